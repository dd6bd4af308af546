"""GitHub Copilot CLI sessions (``convo.importers.agents.copilot_cli``).

Fixtures follow github/copilot-sdk ``nodejs/src/generated/session-events.ts`` (the
event envelope and the ``session.start``, ``user.message`` with file, selection and
image attachments, ``assistant.reasoning``, ``assistant.message`` with tool requests and
``reasoningText``, ``tool.execution_start``/``_complete`` (a success and an error),
``session.info``/``session.error``/``abort``, a sub-agent's message, UI state events, a
torn line, a line that is not an event, reasoning no message follows), and a 0.0.3xx
session in the older flat ``<id>.jsonl``.
"""

from __future__ import annotations

import json

import pytest
from chat_exports_helpers import ingest
from formats_helpers import FIXTURES, THINKING, detect_name, files_taken, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import copilot_cli
from convo.importers.registry import registry
from convo.pipeline.notes import clash_warning

DIR = FIXTURES / "copilot_cli" / "session-state"
SID = "51854430-83f7-4543-a9bf-ec76ead71f59"
NEW = DIR / SID / "events.jsonl"
OLD = DIR / "7a22dab8-b57b-472a-b1ce-21f691cb0cf5.jsonl"


@pytest.mark.parametrize("path", [NEW, OLD], ids=lambda p: p.parent.name + "/" + p.name)
def test_golden(path):
    recs, _, _ = run(copilot_cli.read, path)
    assert_golden(f"formats/copilot_cli/{path.stem}.jsonl", recs)


def test_session():
    recs, rejects, warnings = run(copilot_cli.read, NEW)
    assert [(r.where, r.reason) for r in rejects] == [
        ("events.jsonl:10", "not JSON"),
        ("events.jsonl:15", "not a Copilot CLI event (type, data)"),
    ]
    assert warnings == [
        "events.jsonl: 1 reasoning block no message follows: not kept",
        "events.jsonl: session events skipped (the UI's state): assistant.turn_end 1, "
        "assistant.turn_start 1, session.model_change 1, session.shutdown 1",
    ]
    info, asked, run_it, ran, failed, answer, _, sub, error, abort = recs
    assert {r["thread"] for r in recs} == {f"copilot-cli:{SID}"}
    assert info["extra"]["session"]["copilotVersion"] == "0.0.407-1"
    assert "session" not in asked["extra"]
    assert info["textChunks"] == [
        "[session.info folder_trust] Folder /Users/ann/kettle has been added to trusted folders."
    ]
    assert info["tags"] == ["system"] and info["metadata"]["speaker"] == "system"
    assert asked["id"] == "copilot-cli:e0000004-1a2b-4c3d-8e9f-0a1b2c3d4e5f"
    assert asked["textChunks"] == [
        "Why does test_boil hang? See @kettle/boil.py",
        "[file] /Users/ann/kettle/boil.py",
        "[selection /Users/ann/kettle/boil.py] while temp < 100:\n    pass",
        "[image screenshot.png, image/png, 72 bytes]",
    ]
    assert asked["timestamp"] == "2026-02-04T10:52:00Z"
    assert run_it["textChunks"] == [
        "Let me run the test with a timeout.",
        '[tool_use bash] {"command":"timeout 5 pytest -q tests/test_boil.py",'
        '"description":"Run the boil test"}',
    ]
    assert run_it["extra"]["thinking"] == ["The loop never heats; run the test with a timeout."]
    assert run_it["extra"]["model"] == "claude-sonnet-4.5"
    assert ran["metadata"] == {"speaker": "tool", "listeners": ["assistant"]}
    assert ran["textChunks"] == ["[tool_result bash] Terminated after 5s\n1 test timed out"]
    assert failed["textChunks"] == [
        "[tool_result str_replace_editor error] Path /Users/ann/kettle/missing.py does not exist"
    ]
    assert failed["tags"] == ["error"]
    assert answer["extra"]["thinking"] == ["Off by one."]
    assert sub["extra"]["agent_id"] == "test-writer"
    assert error["textChunks"] == ["[session.error rate_limit] Rate limit exceeded; retry in 20s"]
    assert abort["textChunks"] == ["[abort] user initiated"]


def test_thinking_when_asked():
    recs, _, _ = run(copilot_cli.read, NEW, THINKING)
    assert recs[2]["textChunks"][0] == (
        "[thinking] The loop never heats; run the test with a timeout."
    )
    assert "thinking" not in recs[2]["extra"]


def test_older_flat_file():
    recs, rejects, warnings = run(copilot_cli.read, OLD)
    assert not rejects and not warnings
    assert [r["textChunks"] for r in recs] == [["Name three pelicans"], ["Percy, Penny and Pip."]]
    assert recs[0]["thread"] == "copilot-cli:7a22dab8-b57b-472a-b1ce-21f691cb0cf5"


def test_thread_from_the_folder_without_a_start(tmp_path):
    folder = tmp_path / "session-state" / "abc"
    folder.mkdir(parents=True)
    path = folder / "events.jsonl"
    path.write_text("".join(NEW.read_text().splitlines(keepends=True)[3:5]))
    source = Source(path)
    from convo.importers.context import ImportContext

    recs = [m.serialize() for m in copilot_cli.read(source, ImportContext(source))]
    assert recs[0]["thread"] == "copilot-cli:abc"


def test_a_repeated_id_on_other_text(tmp_path):
    lines = OLD.read_text().splitlines()
    third = json.loads(lines[2])
    third["id"] = json.loads(lines[1])["id"]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([*lines[:2], json.dumps(third)]) + "\n")
    recs, _, warnings = ingest(path, "copilot-cli")
    assert recs[1]["id"].startswith("h:")
    assert warnings == [f"{path}: {clash_warning(1)}"]


def test_detected_among_builtins():
    reg = fresh_registry(copilot_cli)
    for path in (NEW, OLD):
        assert detect_name(reg, path) == "copilot-cli"
        assert registry.detect(Source(path)).name == "copilot-cli"


def test_no_other_file_is_read_as_copilot_cli():
    assert files_taken({"copilot-cli"}, {"copilot_cli"}) == {}
