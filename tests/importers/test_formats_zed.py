"""Zed's saved conversations (``convo.importers.agents.zed``).

Fixtures follow zed-industries/zed ``crates/assistant_context/src/assistant_context.rs``
(``SavedContext`` 0.4.0 and ``SavedContextV0_1_0``): a 0.4.0 conversation (system, user
with a ``/file`` section and non-ASCII text before later offsets, an assistant with a
thought section, an error status, a message of an unknown role) and a 0.1.0 one
(``message_metadata``, ``model``, ``api_url``).
"""

from __future__ import annotations

import json

import pytest
from formats_helpers import FIXTURES, THINKING, detect_name, files_taken, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import zed
from convo.importers.registry import registry

DIR = FIXTURES / "zed" / "conversations"
NEW = DIR / "Kettle clicks off early - 1.zed.json"
OLD = DIR / "Pelican pouches - 1.zed.json"
CID = "c0ffee00-1234-4abc-9def-0123456789ab"


@pytest.mark.parametrize("path", [NEW, OLD], ids=lambda p: p.name)
def test_golden(path):
    recs, _, _ = run(zed.read, path)
    assert_golden(f"formats/zed/{path.name.split()[0].lower()}.jsonl", recs)


def test_conversation():
    recs, rejects, warnings = run(zed.read, NEW)
    assert [(r.where, r.reason) for r in rejects] == [
        (f"{NEW.name}:messages[5]", "not a Zed message (start, a role in its metadata)")
    ]
    assert warnings == [f"{NEW.name}: Zed records no times: its messages have none"]
    system, asked, answer, thanks, failed = recs
    assert {r["thread"] for r in recs} == {f"zed:{CID}"}
    assert system["subject"] == "Kettle clicks off early" and system["role"] == "system"
    assert [r["id"] for r in recs] == [f"zed:{CID}:0-{n}" for n in (0, 1, 5, 11, 12)]
    assert asked["textChunks"] == [
        "Why does the kettle click off early? Café owners complain ☕\n/file kettle/boil.py\n"
        "```py kettle/boil.py\nwhile temp < 100:\n    pass\n```"
    ]
    assert asked["extra"]["sections"] == [{"label": "kettle/boil.py", "icon": "File"}]
    assert answer["textChunks"] == ["The loop stops at 99°: use `<=`."]  # the offsets are bytes
    assert answer["extra"]["thinking"] == ["<think>\nThe loop condition is off by one.\n</think>"]
    assert thanks["textChunks"] == ["Thanks — and the lid?"]
    assert failed["tags"] == ["error"] and failed["textChunks"] == ["[error] Rate limit exceeded"]
    assert failed["extra"]["error"] == "Rate limit exceeded"


def test_thinking_in_place_when_asked():
    recs, _, _ = run(zed.read, NEW, THINKING)
    assert recs[2]["textChunks"] == [
        "[thinking] <think>\nThe loop condition is off by one.\n</think>",
        "The loop stops at 99°: use `<=`.",
    ]


def test_version_0_1():
    recs, rejects, _ = run(zed.read, OLD)
    assert not rejects
    assert [r["textChunks"] for r in recs] == [
        ["What is a pelican's pouch for?"],
        ["Scooping fish and draining water."],
    ]
    assert recs[0]["extra"]["model"] == "gpt-4-0613" and recs[0]["extra"]["version"] == "0.1.0"
    assert recs[1]["id"] == "zed:5a5a5a5a-0000-4000-8000-000000000001:1"


def test_without_an_id_the_file_names_the_thread(tmp_path):
    doc = json.loads(OLD.read_text())
    del doc["id"]
    path = tmp_path / "Pelican pouches - 2.zed.json"
    path.write_text(json.dumps(doc))
    recs, _, _ = run(zed.read, path)
    assert recs[0]["thread"] == "zed:Pelican pouches"
    assert all(r["id"].startswith("h:") for r in recs)


def test_hostile_offsets(tmp_path):
    doc = json.loads(NEW.read_text())
    doc["messages"][2]["start"] = 10**9  # past the end
    doc["thought_process_output_sections"] = [{"range": {"start": 5, "end": 2}}, {"range": 7}]
    doc["slash_command_output_sections"] = [None, {"range": {"start": -1, "end": True}}]
    path = tmp_path / "x.zed.json"
    path.write_text(json.dumps(doc))
    recs, rejects, _ = run(zed.read, path)
    assert len(recs) == 5 and len(rejects) == 1
    assert recs[-1]["textChunks"] == [""]  # the message starting past the end: empty


def test_not_a_conversation(tmp_path):
    path = tmp_path / "y.zed.json"
    path.write_text('{"zed": "context", "version": "0.4.0", "text": 3}')
    recs, rejects, _ = run(zed.read, path)
    assert not recs and [r.reason for r in rejects] == [
        "not a Zed conversation (an object with its text)"
    ]


def test_detected_among_builtins():
    reg = fresh_registry(zed)
    for path in (NEW, OLD):
        assert detect_name(reg, path) == "zed"
        assert registry.detect(Source(path)).name == "zed"


def test_no_other_file_is_read_as_zed():
    assert files_taken({"zed"}, {"zed"}) == {}
