"""Gemini CLI sessions and prompt logs (``convo.importers.agents.gemini_cli``).

Fixtures follow google-gemini/gemini-cli ``packages/core/src/services/
chatRecordingTypes.ts`` (``ConversationRecord``, ``MessageRecord`` with ``toolCalls``,
``thoughts``, ``tokens``, ``displayContent``) as ``chatRecordingService.ts`` writes it:
a pretty-printed ``session-*.json`` (2025) and a ``session-*.jsonl`` (2026: a message
written again when it changes, ``$set`` and ``$rewindTo`` lines, a torn line); and
``logger.ts``'s ``logs.json`` (``LogEntry``). Each holds one damaged entry.
"""

from __future__ import annotations

import json

import pytest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import gemini_cli
from convo.importers.registry import registry

DIR = FIXTURES / "gemini_cli"
DOC = DIR / "session-2025-09-10T08-00-3f9a1c2e.json"
LINES = DIR / "session-2026-05-04T10-30-7b2e4d1a.jsonl"
LOGS = DIR / "logs.json"


@pytest.mark.parametrize("path", [DOC, LINES, LOGS], ids=lambda p: p.name)
def test_golden(path):
    recs, _, _ = run(gemini_cli.read, path)
    assert_golden(f"formats/gemini_cli/{path.name.split('.')[0]}.jsonl", recs)


def test_session_document():
    recs, rejects, warnings = run(gemini_cli.read, DOC)
    assert [r.where for r in rejects] == [f"{DOC.name}#msg-5"] and not warnings
    asked, answer, info, error = recs
    thread = "gemini-cli:3f9a1c2e-8b7d-4e6f-a5c4-d3e2f1a0b9c8"
    assert {r["thread"] for r in recs} == {thread}
    assert {r["subject"] for r in recs} == {"Garden notes summary"}
    # what the user typed; the content sent (with the file) kept
    assert asked["textChunks"] == ["Summarise @notes/garden.md"]
    assert "Sow peas in March. Lift garlic in July.\n" in asked["extra"]["sent"]
    assert asked["extra"]["session"]["projectHash"].startswith("c0ffee")
    assert asked["id"] == "gemini-cli:5d1e6f70-1a2b-4c3d-8e9f-0a1b2c3d4e5f"
    assert answer["metadata"] == {"speaker": "gemini", "listeners": ["user"]}
    assert answer["textChunks"][1:] == [
        '[tool_use read_file] {"absolute_path":"/srv/work/notes/calendar.md"}',
        "[tool_result read_file] March: peas. July: garlic. September: onions.",
        '[tool_use run_shell_command] {"command":"ls seeds/"}',
        "[tool_result run_shell_command error] Directory not found: seeds/",
        '[tool_use write_file] {"file_path":"/srv/work/notes/summary.md",'
        '"content":"Peas: March. Garlic: July."}',
        "[tool_result write_file cancelled]",
    ]
    assert answer["extra"]["model"] == "gemini-2.5-pro"
    assert answer["extra"]["thinking"][0]["subject"] == "Reading the notes"
    assert len(answer["extra"]["tool_calls"]) == 3
    assert info["tags"] == ["system", "info"] and info["metadata"]["speaker"] == "gemini-cli"
    assert error["tags"] == ["system", "error"] and error["role"] == "system"


def test_thoughts_private_unless_asked():
    recs, _, _ = run(gemini_cli.read, DOC)
    assert not any("wants a summary" in c for r in recs for c in r["textChunks"])
    recs, _, _ = run(gemini_cli.read, DOC, THINKING)
    assert recs[1]["textChunks"][0] == (
        "[thinking] **Reading the notes** The user wants a summary of the garden notes."
    )
    assert "thinking" not in recs[1]["extra"]


def test_jsonl_session_as_the_cli_loads_it():
    recs, rejects, warnings = run(gemini_cli.read, LINES)
    assert [(r.where, r.reason) for r in rejects] == [
        (f"{LINES.name}:10", "not JSON"),
        (f"{LINES.name}:12", "not a Gemini CLI session line (a message, $set or $rewindTo)"),
    ]
    assert warnings == [
        f"{LINES.name}: skipped earlier versions of updated messages: 1",
        f"{LINES.name}: skipped messages removed by a rewind: 2",
    ]
    assert [r["textChunks"] for r in recs] == [
        ["Which tomato varieties ripen first?"],
        ["Early ones: 'Stupice' and 'Glacier'."],
        ["And cucumbers?"],
        ["'Marketmore' takes about 55 days."],
    ]
    reply = recs[1]  # its last version: tokens and thoughts added
    assert reply["source_id"].endswith(":4")
    assert reply["extra"]["tokens"]["total"] == 2067
    assert {r["subject"] for r in recs} == {"Early tomatoes"}  # from a later $set line
    assert recs[0]["extra"]["session"]["lastUpdated"] == "2026-05-04T10:30:09.000Z"


def test_a_message_updated_after_a_later_one_keeps_its_place(tmp_path):
    """The CLI keeps a message where it first came (a Map): a last version written after
    a later message's first is still read before it."""
    sid = "0d9c8b7a-6f5e-4d3c-2b1a-098f7e6d5c4b"

    def msg(n: int, text: str) -> dict:
        return {
            "id": f"0d9c8b7a-{n:04d}-4000-8000-000000000000",
            "timestamp": f"2026-05-05T09:00:0{n}.000Z",
            "type": "user" if n % 2 else "gemini",
            "content": text,
        }

    lines = [
        {"sessionId": sid, "projectHash": "ab" * 32, "startTime": "2026-05-05T09:00:00Z"},
        msg(1, "first"),
        msg(2, "second"),
        msg(1, "first, edited"),
        {"$set": {"messages": [msg(3, "replaced all"), msg(4, "and more")]}},
        msg(3, "replaced all, edited"),
    ]
    path = tmp_path / "session-x.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    recs, rejects, _ = run(gemini_cli.read, path)
    assert not rejects
    assert [r["textChunks"] for r in recs] == [["replaced all, edited"], ["and more"]]
    lines[4] = {"$set": {"summary": "s"}}
    lines[5] = msg(2, "second, edited")
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    recs, _, warnings = run(gemini_cli.read, path)
    assert [r["textChunks"] for r in recs] == [["first, edited"], ["second, edited"]]
    assert warnings == ["session-x.jsonl: skipped earlier versions of updated messages: 2"]


def test_prompt_log():
    recs, rejects, _ = run(gemini_cli.read, LOGS)
    assert [r.where for r in rejects] == ["logs.json#item-4"]
    assert [r["id"] for r in recs] == [
        "gemini-cli:3f9a1c2e-8b7d-4e6f-a5c4-d3e2f1a0b9c8:log-0",
        "gemini-cli:3f9a1c2e-8b7d-4e6f-a5c4-d3e2f1a0b9c8:log-1",
        "gemini-cli:7b2e4d1a-6c5b-4a39-8f2e-1d0c9b8a7f6e:log-0",
    ]
    assert {tuple(r["tags"]) for r in recs} == {("prompt-log",)}
    assert recs[2]["thread"] == "gemini-cli:7b2e4d1a-6c5b-4a39-8f2e-1d0c9b8a7f6e"


def test_detect_among_builtins():
    reg = fresh_registry(gemini_cli)
    for path in (DOC, LINES, LOGS):
        assert detect_name(reg, path) == "gemini-cli"
        assert registry.detect(Source(path)).name == "gemini-cli"


def test_headless_stream_json():
    """``gemini -p --output-format stream-json`` (``packages/core/src/output/types.ts``)
    was read as ``anthropic``: no times, the answer one record a piece, the tool events
    rejected. Now the session file's reading: an answer's pieces and its tools' chunks are
    one ``gemini`` record, the next answer another."""
    path = DIR / "stream-json.jsonl"
    assert registry.detect(Source(path)).name == "gemini-cli"
    recs, rejects, warnings = run(gemini_cli.read, path)
    got = [(r["metadata"]["speaker"], r["role"], r["timestamp"], r["textChunks"]) for r in recs]
    assert got == [
        ("user", "user", "2025-11-04T10:00:00Z", ["Why does the kettle not boil?"]),
        ("gemini", "assistant", "2025-11-04T10:00:02Z", [
            "Let me read the file.",
            '[tool_use read_file] {"absolute_path":"/home/ann/kettle/heat.py"}',
            "[tool_result read_file] def boil(k):\n    pass\n",
            '[tool_use run_shell_command] {"command":"pytest -q"}',
            "[tool_result run_shell_command error] exit code 1",
        ]),
        ("gemini-cli", "system", "2025-11-04T10:00:03Z", ["[warning] Loop detected, stopping execution"]),
        ("gemini", "assistant", "2025-11-04T10:00:04Z", ["boil() never calls heat(); add the call."]),
    ]  # fmt: skip
    assert {r["thread"] for r in recs} == {"gemini-cli:c7e1f0a2-1b3d-4e5f-8a9b-0c1d2e3f4a5b"}
    assert recs[0]["metadata"]["listeners"] == ["gemini"]
    assert recs[1]["extra"]["model"] == "gemini-2.5-pro"
    assert [r.where for r in rejects] == ["stream-json.jsonl:13"]
    assert warnings == ["stream-json.jsonl: skipped events that hold no message: 1 init, 1 result"]


def test_headless_json_output():
    """``--output-format json``: the answer (pretty-printed, no time), or the error."""
    path = DIR / "json-output.json"
    assert registry.detect(Source(path)).name == "gemini-cli"
    recs, rejects, _ = run(gemini_cli.read, path)
    assert not rejects
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        ("gemini", ["boil() never calls heat(); add the call."])
    ]
    assert recs[0]["thread"] == "gemini-cli:c7e1f0a2-1b3d-4e5f-8a9b-0c1d2e3f4a5b"


def test_headless_stream_line_with_a_type_of_another_json_type_is_rejected(tmp_path):
    """A line whose ``type`` is an object (hostile or damaged output) was an internal
    error (``unhashable type``) that stopped the whole file: now rejected with its line."""
    path = tmp_path / "stream.jsonl"
    lines = (DIR / "stream-json.jsonl").read_text().splitlines()
    lines[1:1] = ['{"type": {"message": 1}, "timestamp": "2025-11-04T10:00:00Z"}']
    path.write_text("\n".join(lines) + "\n")
    recs, rejects, _ = run(gemini_cli.read, path)
    assert [r.where for r in rejects] == ["stream.jsonl:2", "stream.jsonl:14"]
    assert len(recs) == 4


def test_headless_stream_keeps_the_latest_tool_names_only(tmp_path):
    """The stream's tool names were a dict of every call in the file (memory growing
    with the calls); now ``CallNames``, the latest calls' names as every other agent
    reader keeps them: a result still finds its call's name."""
    from convo.importers.agents.blocks import CallNames

    lines = [json.dumps({"type": "init", "timestamp": "2025-11-04T10:00:00.000Z",
                         "session_id": "s1", "model": "gemini-2.5-pro"})]  # fmt: skip
    for i in range(CallNames.KEPT + 10):
        lines.append(json.dumps({"type": "tool_use", "timestamp": "2025-11-04T10:00:01.000Z",
                                 "tool_name": f"t{i}", "tool_id": f"c{i}", "parameters": {}}))  # fmt: skip
    lines.append(json.dumps({"type": "tool_result", "timestamp": "2025-11-04T10:00:02.000Z",
                             "tool_id": f"c{CallNames.KEPT + 9}", "status": "success",
                             "output": "ok"}))  # fmt: skip
    path = tmp_path / "stream.jsonl"
    path.write_text("\n".join(lines) + "\n")
    from convo.importers.agents import gemini_cli_stream
    from convo.importers.context import ImportContext

    st = gemini_cli_stream._Stream(Source(path), ImportContext(Source(path)))
    assert isinstance(st.names, CallNames)
    recs, _, _ = run(gemini_cli.read, path)
    assert recs[-1]["textChunks"][-1] == f"[tool_result t{CallNames.KEPT + 9}] ok"
