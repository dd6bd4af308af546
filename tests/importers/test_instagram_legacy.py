"""Instagram DMs from the data download before 2020 (``messages.json``:
``convo.importers.apps.instagram_legacy``): the keys its readers and anonymisers found
with the code search list (an anonymiser of such downloads, ``instagram_anonymise.py``:
``media``, ``media_owner``, ``media_share_caption``, ``media_share_url``,
``animated_media_images``, ``media_url``, ``link``, ``profile_share_username``,
``profile_share_name``, ``story_share``, ``action``, ``video_call_action``,
``mentioned_username``, ``voice_media``, ``likes``; a viewer's ``heart``).
"""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.apps import instagram_legacy
from convo.importers.registry import registry

FILE = FIXTURES / "instagram" / "legacy" / "messages.json"


def test_detected():
    assert registry.detect(Source(FILE)).name == "instagram-legacy"


def test_threads_read_oldest_first_with_what_they_share():
    recs, rejects, warnings = run(instagram_legacy.read, FILE)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"], r["tags"]) for r in recs]
    assert got == [
        ("anna_b", ["Hello 🌱"], []),
        ("jorg.m", ["[media] direct/201906/abc.jpg"], []),
        ("jorg.m", ["look at this", "[story] seedclub"], []),
        ("anna_b", ["❤️"], []),
        (
            "anna_b",
            [
                "[shared post by seedclub] https://scontent.cdninstagram.com/v/t51/seeds.jpg",
                "Seeds!",
            ],
            [],
        ),
        ("anna_b", ["[profile] seedclub (Seed Club)"], []),
        ("jorg.m", ["see you then", "[mention] @anna_b"], []),
        ("jorg.m", ["Video chat ended"], ["system"]),
        ("anna_b", ["anna_b created the group."], ["system"]),
        ("kim", ["https://example.org/swap"], []),
    ]
    assert {r["format"] for r in recs} == {"instagram"}
    assert recs[0]["thread"] == "anna_b, jorg.m" and recs[-1]["thread"] == "anna_b, jorg.m, kim"
    assert recs[0]["metadata"]["listeners"] == ["jorg.m"]
    assert recs[-1]["metadata"]["listeners"] == []  # a group
    assert recs[0]["timestamp"] == "2019-06-01T10:00:00Z"
    assert recs[0]["extra"]["reactions"] == [
        {"actor": "jorg.m", "reaction": "❤", "timestamp": "2019-06-01T10:01:00+00:00"}
    ]


def test_a_thread_of_another_shape_is_rejected(tmp_path):
    path = tmp_path / "messages.json"
    path.write_text(
        '[{"participants": ["a"], "conversation": [{"sender": "a", "created_at": '
        '"2019-06-01T10:00:00+00:00", "text": "hi"}, 3]}, {"participants": ["b"]}]'
    )
    recs, rejects, _ = run(instagram_legacy.read, path)
    assert [r["textChunks"] for r in recs] == [["hi"]]
    assert [x.reason for x in rejects] == [
        "not an Instagram message (not an object)",
        "not an Instagram thread (no conversation list)",
    ]
