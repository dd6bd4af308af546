"""Mastodon archive ``outbox.json`` (``convo.importers.forums.mastodon``).

Fixtures follow mastodon/mastodon ``app/services/backup_service.rb`` (the archive's
``outbox.json`` beside ``actor.json``) and the ActivityPub serialisers
``app/serializers/activitypub/{activity,note}_serializer.rb``: ``Create`` activities
holding ``Note`` objects (``summary`` content warning, ``inReplyTo``, ``conversation``,
HTML ``content`` with ``h-card`` mention and hashtag links, ``attachment`` Documents with
alt ``name``, ``tag`` Mention/Hashtag), ``Announce`` boosts, to/cc addressing.
"""

from __future__ import annotations

import shutil

from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.forums import mastodon
from convo.importers.registry import registry

PATH = FIXTURES / "mastodon" / "outbox.json"


def test_golden_and_reject():
    recs, rejects, warnings = run(mastodon.read, PATH)
    assert_golden("formats/mastodon/outbox.jsonl", recs)
    assert [(r.where, r.reason) for r in rejects] == [
        ("outbox.json:90", "not a status (activity Delete #5)")
    ]
    assert not warnings


def test_mapping():
    recs, _, _ = run(mastodon.read, PATH)
    post, reply, boost, direct = recs
    assert post["metadata"] == {"speaker": "Alice Liddell", "listeners": ["@bob@other.example"]}
    assert post["textChunks"] == [
        "Painting the roses red with @bob #garden\n\nSecond paragraph.",
        "[image] /media_attachments/files/110/000/001/original/roses.jpg",
    ]
    assert post["tags"] == ["garden"] and post["timestamp"] == "2023-04-01T12:00:00Z"
    assert post["extra"]["attachments"][0]["name"].startswith("Three gardeners")
    assert reply["subject"] == "spoilers: the Queen" and reply["extra"]["visibility"] == "followers"
    assert reply["replyTo"] == "mastodon:https://other.example/users/bob/statuses/200"
    assert reply["thread"] == post["thread"]
    assert boost["textChunks"] == ["[boost] https://other.example/users/hatter/statuses/300"]
    assert boost["tags"] == ["boost"]
    assert direct["extra"]["visibility"] == "direct"
    # no conversation field: the thread is the root of the reply chain
    assert direct["thread"] == "https://mastodon.example/users/alice/statuses/110000000000000001"


def test_without_actor_json_the_username_speaks(tmp_path):
    shutil.copy(PATH, tmp_path / "outbox.json")
    recs, _, _ = run(mastodon.read, tmp_path / "outbox.json")
    assert {r["metadata"]["speaker"] for r in recs} == {"alice"}


def test_detect_among_builtins():
    assert mastodon.sniff(Source(PATH)) >= 90
    # the archive's actor.json is recognised (it holds no message: read as none)
    assert 0 < mastodon.sniff(Source(FIXTURES / "mastodon" / "actor.json")) < 90
    assert detect_name(fresh_registry(mastodon), PATH) == "mastodon"


def test_global_registry_detects():
    assert registry.detect(Source(PATH)).name == "mastodon"


def test_an_empty_ordered_items_before_the_real_one(tmp_path):
    """A real archive writes ``"orderedItems":[]`` and then ``"orderedItems":[...]`` (the
    last of duplicate keys is the value): its 1,586 statuses read as none, unsaid."""
    doc = PATH.read_text(encoding="utf-8")
    at = doc.index('"orderedItems"')
    path = tmp_path / "outbox.json"
    path.write_text(doc[:at] + '"orderedItems": [], ' + doc[at:], encoding="utf-8")
    recs, rejects, _ = run(mastodon.read, path)
    expected, expected_rejects, _ = run(mastodon.read, PATH)
    assert len(recs) == len(expected) > 0 and len(rejects) == len(expected_rejects)
    assert [r["id"] for r in recs] == [r["id"] for r in expected]


def test_polls_and_quote_posts():
    """A poll (a ``Question``, as three in a real 2021 archive) read as its question
    alone, its options and votes lost; a Mastodon 4.4 quote post (a real 2026 archive)
    kept only the ``RE: URL`` line of its text."""
    recs, rejects, _ = run(mastodon.read, FIXTURES / "mastodon" / "polls" / "outbox.json")
    assert rejects == []
    single, multiple, quote = recs
    assert single["textChunks"] == ["Rock pools or sand?", "[poll] Rock pools (2), Sand (1)"]
    assert single["extra"]["poll"] == {
        "options": [{"option": "Rock pools", "votes": 2}, {"option": "Sand", "votes": 1}],
        "multiple": False,
        "voters": 3,
        "end": "2021-06-09T06:27:26Z",
    }
    assert multiple["textChunks"][1] == "[poll] Cockle (3), Whelk (2)"
    assert multiple["extra"]["poll"]["multiple"] is True
    assert quote["textChunks"] == ["RE: https://shore.example/@bo/116560803301030000\n\nAgreed."]
    assert (
        quote["extra"]["quote"] == "https://shore.example/ap/users/99/statuses/116560803301030000"
    )


def test_the_archive_folder_reads_without_rejections(tmp_path):
    """An archive as extracted (hikurry/Mastodon-archive): ``actor.json``, ``likes.json``
    and ``bookmarks.json`` beside ``outbox.json`` were "format not recognised", counted
    as rejected (JSON files), so ingesting the folder exited 1. They are the archive's
    now: silent beside outbox.json, said once alone."""
    folder = tmp_path / "archive"
    folder.mkdir()
    shutil.copy(PATH, folder / "outbox.json")
    shutil.copy(PATH.with_name("actor.json"), folder / "actor.json")
    ctx = '"@context": "https://www.w3.org/ns/activitystreams"'
    for name in ("likes", "bookmarks"):
        (folder / f"{name}.json").write_text(
            f'{{{ctx}, "id": "{name}.json", "type": "OrderedCollection", "totalItems": 1, '
            '"orderedItems": ["https://other.example/users/bob/statuses/200"]}'
        )
    for name in ("actor.json", "likes.json", "bookmarks.json"):
        assert registry.detect(Source(folder / name)).name == "mastodon"
        recs, rejects, warnings = run(mastodon.read, folder / name)
        assert recs == [] and rejects == [] and warnings == []
    (folder / "outbox.json").unlink()
    _, _, warnings = run(mastodon.read, folder / "likes.json")
    assert len(warnings) == 1 and "likes.json holds no messages" in warnings[0]
