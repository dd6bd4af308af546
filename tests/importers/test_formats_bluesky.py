"""Bluesky posts as the AppView API answers them (``convo.importers.forums.bluesky``).

Fixtures in the shape of the ``app.bsky.feed.defs`` lexicon (``postView``,
``feedViewPost`` with ``reply`` and ``reasonRepost``, ``threadViewPost``,
``notFoundPost``) and ``com.atproto.repo.listRecords``, as clients' tests and API answers
quoted in public repositories show them: byte-indexed facets, a shortened link whose
facet holds the whole URI, image, quote and link-card embed views.
"""

from __future__ import annotations

from formats_helpers import FIXTURES, files_taken, run

from convo.core.io import Source
from convo.importers.forums import bluesky
from convo.importers.registry import registry

DIR = FIXTURES / "bluesky"
ROOT = "bluesky:at://did:plc:ann4tide/app.bsky.feed.post/3kroot1"


def test_author_feed():
    recs, rejects, _ = run(bluesky.read, DIR / "author-feed.json")
    assert not rejects
    card, quote, first, reply, reposted = recs
    assert first["id"] == ROOT and first["thread"] == ROOT
    assert first["textChunks"] == [
        "Low water at 6 @bo.example.com, table: https://tides.example.org/table?port=12&day=6"
        " #rockpools",
        "[image] https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:ann4tide/bafkimg@jpeg",
    ]
    assert first["metadata"] == {"speaker": "Ann Lee", "listeners": ["bo.example.com"]}
    assert first["tags"] == ["rockpools"] and first["extra"]["likes"] == 4
    assert reply["replyTo"] == reply["thread"] == ROOT
    assert reply["metadata"] == {"speaker": "bo.example.com", "listeners": ["Ann Lee"]}
    assert quote["extra"]["quote"] == "at://did:plc:bo5shore/app.bsky.feed.post/3kother9"
    assert card["textChunks"] == ["Forecast", "https://weather.example/tides"]
    assert reposted["extra"]["reposted_by"] == "ann.bsky.social"
    assert reposted["metadata"]["speaker"] == "bo.example.com"
    assert first["timestamp"] == "2024-03-01T10:00:00Z"


def test_post_thread():
    recs, rejects, warnings = run(bluesky.read, DIR / "post-thread.json")
    assert not rejects
    assert [r["id"].rsplit("/", 1)[1] for r in recs] == ["3kroot1", "3kreply2", "3kre6", "3kre7"]
    assert all(r["thread"] == ROOT for r in recs)
    assert recs[3]["metadata"]["listeners"] == ["bo.example.com"]  # the author replied to
    assert any("1 post the answer does not show" in w for w in warnings)


def test_listed_records_speak_under_their_did():
    (rec,), rejects, _ = run(bluesky.read, DIR / "list-records.json")
    assert not rejects and rec["id"] == ROOT
    assert rec["metadata"]["speaker"] == "did:plc:ann4tide"


def test_detection():
    for name in ("author-feed.json", "post-thread.json", "list-records.json"):
        assert registry.detect(Source(DIR / name)).name == "bluesky"
    assert files_taken({"bluesky"}, {"bluesky"}) == {}
