"""Instagram DMs (``convo.importers.apps.instagram``, read by ``apps.messenger``).

The fixture follows Meta's download layout (``your_instagram_activity/messages/inbox/
<thread>/message_1.json``: ``participants``, newest-first ``messages`` with
``sender_name``/``timestamp_ms``/``content``/``photos``/``share``/``reactions``) and its
double encoding: every non-ASCII string is written as UTF-8 bytes escaped ``\\u00XX``.
"""

from __future__ import annotations

import shutil

from formats_helpers import FIXTURES, run

from conftest import ROOT, assert_golden
from convo.core.io import Source
from convo.importers.apps import instagram
from convo.importers.registry import registry

INBOX = FIXTURES / "instagram" / "your_instagram_activity" / "messages" / "inbox"
PATH = INBOX / "annlee_17843210987654321" / "message_1.json"


def test_golden_and_mapping():
    recs, rejects, _ = run(instagram.read, PATH)
    assert not rejects
    assert_golden("formats/instagram/message_1.jsonl", recs)
    morning, _liked, cafe, photo, share = recs  # oldest first
    assert all(r["format"] == "instagram" for r in recs)
    assert morning["timestamp"] == "2023-08-15T09:12:33Z"
    assert cafe["textChunks"] == ["Café at noon? ☕"]  # mojibake repaired
    assert cafe["metadata"] == {"speaker": "ben.odé", "listeners": ["ann.lee"]}
    assert cafe["thread"] == "ben.odé"
    assert photo["textChunks"][0].startswith("[photo] your_instagram_activity/")
    assert share["textChunks"] == [
        "[link] https://www.instagram.com/p/Cv1a2b3c4d5/",
        "Sunset at the pier",
    ]
    assert share["extra"]["reactions"] == [
        {"reaction": "❤", "actor": "ben.odé", "timestamp": 1692091000}
    ]


def test_detected_by_the_download_layout(tmp_path):
    assert registry.detect(Source(PATH)).name == "instagram"
    # Messenger's files stay Messenger's.
    assert registry.detect(Source(ROOT / "sample_data/chat/messenger.json")).name == "messenger"
    # Without the layout, a shared post's owner still says Instagram.
    copy = tmp_path / "message_1.json"
    shutil.copyfile(PATH, copy)
    assert registry.detect(Source(copy)).name == "instagram"
    plain = tmp_path / "plain.json"
    plain.write_text(
        '{"participants": [{"name": "a"}], "messages": [{"sender_name": "a", '
        '"timestamp_ms": 1, "content": "hi"}]}'
    )
    assert registry.detect(Source(plain)).name == "messenger"
    inside = tmp_path / "instagram-annlee-2024-01-01" / "messages" / "inbox" / "x"
    inside.mkdir(parents=True)
    shutil.copyfile(plain, inside / "message_1.json")
    assert registry.detect(Source(inside / "message_1.json")).name == "instagram"


def test_a_file_without_participants_is_detected_and_read(tmp_path):
    """Issue 36 §6: detection rests on what every thread file has, not on the optional
    ``participants``; the senders stand in for them (the listener of a two-person chat)."""
    import orjson

    doc = orjson.loads(PATH.read_bytes())
    del doc["participants"]
    inside = tmp_path / "your_instagram_activity" / "messages" / "inbox" / "ann_1"
    inside.mkdir(parents=True)
    path = inside / "message_1.json"
    path.write_bytes(orjson.dumps(doc))
    assert registry.detect(Source(path)).name == "instagram"
    recs, rejects, _ = run(instagram.read, path)
    assert not rejects
    assert recs[0]["metadata"] == {"speaker": "ann.lee", "listeners": ["ben.odé"]}
    bare = tmp_path / "bare.json"
    bare.write_text('{"messages": [{"sender_name": "a", "timestamp_ms": 1, "content": "hi"}]}')
    assert registry.detect(Source(bare)).name == "messenger"


CALLS = INBOX / "anasouza_17841400000000000" / "message_1.json"


def test_calls_without_a_sentence_and_reaction_times():
    """A real download's message keys (a 54,100-message Instagram export described by its
    reader's notes): ``call_duration`` on 40 messages, some without ``content``, and a
    ``timestamp`` on most reactions. A call without a sentence was skipped as empty:
    now ``[call] 754 s`` (``0``: missed); the duration and the reaction's time are kept."""
    recs, rejects, warnings = run(instagram.read, CALLS)
    assert not rejects and not warnings
    assert [r["textChunks"] for r in recs] == [
        ["oi, tudo bem? vamos ligar"],
        ["Audio call ended"],
        ["[call] 754 s"],
        ["[call] missed"],
    ]
    assert recs[0]["extra"]["reactions"] == [
        {"reaction": "\u2764\ufe0f", "actor": "Raphael", "timestamp": 1755000050}
    ]
    assert recs[1]["extra"]["call_duration"] == 754
