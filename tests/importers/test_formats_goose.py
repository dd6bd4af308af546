"""Goose sessions (``convo.importers.agents.goose``).

Fixtures follow block/goose ``crates/goose/src/session/legacy.rs`` (a metadata line,
then one ``Message`` a line) and ``crates/goose/src/conversation/message.rs``: text,
image, thinking, ``toolRequest``/``toolResponse`` (a list value and the newer
``{"content", "isError"}``, errors on both sides), ``systemNotification``, visibility
metadata, a line that is not JSON and one that is not a message; and an early session
(no metadata line, no ids, a ``summarizationRequested`` marker).
"""

from __future__ import annotations

import json

import pytest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import goose
from convo.importers.registry import registry

DIR = FIXTURES / "goose"
SESSION = DIR / "20250301_101500.jsonl"
EARLY = DIR / "20250115_093000.jsonl"


@pytest.mark.parametrize("path", [SESSION, EARLY], ids=lambda p: p.name)
def test_golden(path):
    recs, _, _ = run(goose.read, path)
    assert_golden(f"formats/goose/{path.stem}.jsonl", recs)


def test_session():
    recs, rejects, warnings = run(goose.read, SESSION)
    assert [(r.where, r.reason) for r in rejects] == [
        ("20250301_101500.jsonl:7", "not JSON"),
        ("20250301_101500.jsonl:11", "not a Goose message (role, created, content)"),
    ]
    assert not warnings
    asked, run_it, ran, _view, viewed, missing, failed, answer = recs
    assert {r["thread"] for r in recs} == {"goose:20250301_101500"}
    assert asked["subject"] == "Fix the failing boil test"
    assert asked["extra"]["session"]["working_dir"] == "/Users/ann/kettle"
    assert asked["textChunks"] == [
        "The boil test hangs, can you look?",
        "[image image/png, 72 bytes]",
    ]
    assert asked["timestamp"] == "2025-03-01T09:15:00Z"
    assert asked["id"] == "goose:msg_0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    assert run_it["textChunks"] == [
        "Let me run it with a timeout.",
        '[tool_use developer__shell] {"command":"timeout 5 pytest tests/test_boil.py"}',
    ]
    assert run_it["extra"]["thinking"] == ["Run the test with a timeout first."]
    assert ran["metadata"] == {"speaker": "tool", "listeners": ["assistant"]}
    assert ran["extra"]["original_role"] == "user"
    assert ran["textChunks"] == [
        "[tool_result developer__shell] Terminated after 5s\n1 test timed out"
    ]
    assert viewed["textChunks"] == [
        "[tool_result developer__text_editor] while temp < 100:\n    pass"
    ]
    assert missing["textChunks"] == [
        "[tool_use toolu_01Zz error] -32602: Tool not found: developer__boil"
    ]
    assert failed["textChunks"] == [
        "[tool_result toolu_01Zz error] -32602: Tool not found: developer__boil"
    ]
    assert failed["tags"] == ["agent-only"]
    assert answer["tags"] == ["system", "user-only"]
    assert answer["textChunks"][1] == "[systemNotification] Context compacted"


def test_thinking_private_unless_asked():
    recs, _, _ = run(goose.read, SESSION, THINKING)
    assert recs[1]["textChunks"][0] == "[thinking] Run the test with a timeout first."


def test_early_session():
    recs, rejects, _ = run(goose.read, EARLY)
    assert not rejects
    assert [r["id"][:2] for r in recs] == ["h:"] * 3
    assert recs[2]["tags"] == ["system"]
    assert recs[2]["textChunks"] == [
        "[summarizationRequested] Your conversation has exceeded the model's context limit"
    ]


def test_detect_among_builtins(tmp_path):
    reg = fresh_registry(goose)
    for path in (SESSION, EARLY):
        assert detect_name(reg, path) == "goose"
        assert registry.detect(Source(path)).name == "goose"
    # a text-only session: its messages' keys (created, no name or tool fields) say Goose
    plain = tmp_path / "20250102_080000.jsonl"
    plain.write_text(
        "".join(
            json.dumps(
                {"role": r, "created": 1735804800 + i, "content": [{"type": "text", "text": t}]}
            )
            + "\n"
            for i, (r, t) in enumerate((("user", "hi"), ("assistant", "hello")))
        )
    )
    assert registry.detect(Source(plain)).name == "goose"


def test_openai_messages_are_not_taken(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(
        '{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hello"}\n'
    )
    assert goose.sniff(Source(path)) == 0
