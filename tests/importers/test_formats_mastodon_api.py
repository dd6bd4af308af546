"""Mastodon API statuses (``convo.importers.forums.mastodon_api``).

Fixtures in the shape of Mastodon's ``REST::StatusSerializer`` as real API answers show
it (status JSON quoted in public repositories' logs and tests: ``id`` strings,
``in_reply_to_id``, ``uri``, ``account.acct``, ``mentions``, ``poll``, ``reblog``) and of
kensanata/mastodon-archive's ``<instance>.user.<name>.json`` (``core.py``: ``account``,
``statuses``, ``favourites``, ``bookmarks``, ``mentions`` notifications, times from
``isoformat``).
"""

from __future__ import annotations

from formats_helpers import FIXTURES, files_taken, run

from convo.core.io import Source
from convo.importers.forums import mastodon_api
from convo.importers.registry import registry

DIR = FIXTURES / "mastodon_api"
ANN = "https://tide.example/users/ann/statuses/"


def test_a_list_of_statuses():
    recs, rejects, _ = run(mastodon_api.read, DIR / "statuses.json")
    assert not rejects
    thanks, table, first, poll, boost, aside = recs
    assert first["id"] == f"mastodon:{ANN}111000000000000002"
    assert first["metadata"] == {"speaker": "Ann Lee", "listeners": ["@bob@shore.example"]}
    assert first["textChunks"] == [
        "Low water at 6, @bob #rockpools",
        "[image] https://tide.example/system/media_attachments/files/9/original/pool.jpg",
    ]
    assert first["tags"] == ["rockpools"] and first["format"] == "mastodon"
    # a reply chain, newest first in the file, linked by the instance's local ids
    assert table["replyTo"] == first["id"] and thanks["replyTo"] == table["id"]
    assert {thanks["thread"], table["thread"], first["thread"]} == {f"{ANN}111000000000000002"}
    assert poll["textChunks"] == ["Rocks or sand?", "[poll] Rocks (2), Sand (1)"]
    assert boost["textChunks"] == ["[boost] https://shore.example/@bob/110999999999999999"]
    assert boost["tags"] == ["boost"]
    # a reply to a status not in the file: no replyTo, its id kept
    assert "replyTo" not in aside and aside["extra"]["in_reply_to_id"] == "110999999999999000"
    assert aside["thread"] == "tide.example:110999999999999000"
    assert aside["subject"] == "weather"


def test_mastodon_archive_file():
    recs, rejects, _ = run(mastodon_api.read, DIR / "tide.example.user.ann.json")
    assert not rejects
    assert [r["tags"] for r in recs] == [["rockpools"], [], ["favourite"], ["mention"]]
    assert recs[2]["metadata"]["speaker"] == "bob"  # no display name: the username
    assert recs[3]["metadata"] == {"speaker": "bob", "listeners": ["@ann"]}
    assert recs[3]["timestamp"] == "2023-04-05T07:00:00Z"


def test_detection():
    for name in ("statuses.json", "tide.example.user.ann.json"):
        assert registry.detect(Source(DIR / name)).name == "mastodon-api"
    assert files_taken({"mastodon-api"}, {"mastodon_api"}) == {}


def test_direct_conversations_are_read_as_their_last_status(tmp_path):
    """``/api/v1/conversations`` answers a list of direct conversations (``accounts``,
    ``last_status``): every item was rejected as not a status. Each is now its last
    status, a direct message heard by its mentions."""
    path = tmp_path / "conversations.json"
    path.write_text(
        '[{"id": "41", "unread": false, "accounts": [{"id": "482", "username": "ann", '
        '"acct": "ann@o.example"}], "last_status": {"id": "1032", "uri": '
        '"https://m.example/users/kai/statuses/1032", "created_at": "2019-12-05T06:04:43.000Z", '
        '"in_reply_to_id": null, "visibility": "direct", "spoiler_text": "", "content": '
        '"<p><span class=\\"h-card\\"><a href=\\"https://o.example/@ann\\" class=\\"u-url '
        'mention\\">@<span>ann</span></a></span> seeds?</p>", "account": {"id": "1", '
        '"username": "kai", "acct": "kai", "display_name": "Kai"}, "mentions": [{"acct": '
        '"ann@o.example"}], "media_attachments": [], "tags": []}}, '
        '{"id": "42", "unread": true, "accounts": [], "last_status": null}]',
        encoding="utf-8",
    )
    recs, rejects, _ = run(mastodon_api.read, path)
    assert [(r["metadata"]["speaker"], r["metadata"]["listeners"], r["textChunks"][0])
            for r in recs] == [("Kai", ["@ann@o.example"], "@ann seeds?")]  # fmt: skip
    assert recs[0]["extra"]["visibility"] == "direct"
    assert [r.where for r in rejects] == ["conversations.json#status-2"]
