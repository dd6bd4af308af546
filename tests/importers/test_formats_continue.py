"""Continue sessions (``convo.importers.apps.continue_dev``).

Fixtures follow continuedev/continue ``core/util/history.ts`` (the session's key order,
``sessions.json`` with ``dateCreated``) and ``core/index.d.ts`` (``ChatHistoryItem``):
a current session (an image and a context item, a thinking message, tool calls with
their states, one errored with arguments that are not JSON, an item's ``reasoning``, a
compaction summary, thinking at the end, an element that is not an item) and a 2024
session (string contents, ``promptLogs``, no mode or model).
"""

from __future__ import annotations

import shutil

import pytest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import continue_dev
from convo.importers.registry import registry

DIR = FIXTURES / "continue_dev" / "sessions"
AGENT = DIR / "6f1c8e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b.json"
CHAT = DIR / "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d.json"
LIST = DIR / "sessions.json"


@pytest.mark.parametrize("path", [AGENT, CHAT], ids=lambda p: p.stem[:8])
def test_golden(path):
    recs, _, _ = run(continue_dev.read, path)
    assert_golden(f"formats/continue/{path.stem[:8]}.jsonl", recs)


def test_agent_session():
    recs, rejects, warnings = run(continue_dev.read, AGENT)
    assert [(r.where, r.reason) for r in rejects] == [
        (f"{AGENT.name}:167", "not a Continue history item (message)")
    ]
    assert not warnings
    asked, read, result, ran, failed, answer, tail = recs
    assert {r["thread"] for r in recs} == {"continue:6f1c8e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b"}
    assert {r["timestamp"] for r in recs} == {"2025-03-20T09:00:00Z"}  # sessions.json
    assert asked["subject"] == "Fix the hanging boil test"
    assert asked["extra"]["session"] == {
        "workspace": "file:///Users/ann/kettle", "mode": "agent", "model": "Claude Sonnet",
        "usage": {"totalCost": 0.0123},
    }  # fmt: skip
    assert asked["textChunks"] == [
        "The boil test hangs. Why?", "[image image/png, 72 bytes]", "[context boil.py]",
    ]  # fmt: skip
    assert asked["extra"]["context"][0]["uri"]["value"].endswith("boil.py")
    assert read["extra"]["thinking"] == ["The loop never updates temp."]
    assert read["textChunks"][1] == '[tool_use read_file] {"filepath":"tests/test_boil.py"}'
    assert result["metadata"] == {"speaker": "tool", "listeners": ["assistant"]}
    assert result["textChunks"] == ["[tool_result read_file] def test_boil(): boil()"]
    assert ran["textChunks"] == ['[tool_use run_terminal_command] {"command": "pytest -x"']
    assert ran["extra"]["thinking"] == ["Run the tests to confirm."]
    assert failed["textChunks"] == [
        "[tool_result run_terminal_command error] Error: command timed out after 120s"
    ]
    assert answer["extra"]["summary"].startswith("Ann asked")
    assert tail["textChunks"] == [""] and tail["extra"]["thinking"] == ["Maybe also add a timeout."]
    assert "promptLogs" not in str(recs) and "<system>" not in str(recs)


def test_thinking_private_unless_asked():
    recs, _, _ = run(continue_dev.read, AGENT, THINKING)
    assert recs[1]["textChunks"][0] == "[thinking] The loop never updates temp."
    assert recs[-1]["textChunks"] == ["[thinking] Maybe also add a timeout."]


def test_without_the_list_the_time_is_unknown(tmp_path):
    path = tmp_path / CHAT.name
    shutil.copy(CHAT, path)
    recs, _, warnings = run(continue_dev.read, path)
    assert {r["timestamp"] for r in recs} == {"1970-01-01T00:00:00Z"}  # the epoch: unknown
    assert warnings == [
        f"{path.name}: no date: no sessions.json beside it lists this session, so its "
        "messages have no time (the epoch)"
    ]


def test_list_alone_reads_no_message():
    recs, rejects, warnings = run(continue_dev.read, LIST)
    assert (recs, rejects) == ([], [])
    assert len(warnings) == 1 and "Continue's list of sessions" in warnings[0]


def test_detect_among_builtins():
    reg = fresh_registry(continue_dev)
    for path in (AGENT, CHAT, LIST):
        assert detect_name(reg, path) == "continue"
        assert registry.detect(Source(path)).name == "continue"


def test_other_session_files_are_not_taken():
    for path in (FIXTURES / "gemini_cli").rglob("*.json"):
        assert continue_dev.sniff(Source(path)) == 0, path
