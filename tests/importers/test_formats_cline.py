"""Cline, Roo Code and Kilo Code tasks (``convo.importers.agents.cline``).

Fixtures follow cline/cline ``src/shared/messages/content.ts`` (``ClineStorageMessage``:
Anthropic messages with ``ts``, ``id``, ``modelInfo``, ``metrics``; ``thinking``,
``tool_use`` and ``tool_result`` blocks, a denied command with ``is_error``, the
``<environment_details>`` block of each user turn) in a task folder named by its start,
with the folder's ``ui_messages.json`` (``ClineMessage``) and ``task_metadata.json``;
and an older task of XML tools in text and no ``ts`` in a Roo Code folder (a UUID).
"""

from __future__ import annotations

import json

from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import cline
from convo.importers.registry import registry

DIR = FIXTURES / "cline"
TASK = DIR / "tasks" / "1717405200000"
HISTORY = TASK / "api_conversation_history.json"
ROO = DIR / "roo" / "3f2e1d0c-9b8a-4765-8432-10fedcba9876" / "api_conversation_history.json"


def test_golden():
    for path, name in ((HISTORY, "task"), (ROO, "roo-xml-tools")):
        recs, _, _ = run(cline.read, path)
        assert_golden(f"formats/cline/{name}.jsonl", recs)


def test_task_history():
    recs, rejects, warnings = run(cline.read, HISTORY)
    assert [r.where for r in rejects] == [f"{HISTORY.name}#item-7"] and not warnings
    asked, reads, result, _command, denied, answer = recs
    assert {r["thread"] for r in recs} == {"cline:1717405200000"}
    assert asked["textChunks"] == ["<task>\nWhy does boil() never return?\n</task>"]
    assert asked["extra"]["environment_details"][0].startswith("<environment_details>")
    assert asked["timestamp"] == "2024-06-03T09:00:00Z"
    assert reads["id"] == "cline:msg_01XyZ9aBcDeFgHiJkLmNoPqR"
    assert reads["textChunks"] == [
        "Let me read the kettle.",
        '[tool_use read_file] {"path":"src/kettle.ts"}',
    ]
    assert reads["extra"]["thinking"] == ["The loop condition must be wrong; read the file."]
    assert reads["extra"]["metrics"]["cost"] == 0.0167
    assert reads["extra"]["model"]["modelId"] == "claude-sonnet-4-20250514"
    assert result["metadata"] == {"speaker": "tool", "listeners": ["assistant"]}
    assert result["extra"]["original_role"] == "user"
    assert result["textChunks"][0].startswith("[tool_result read_file] export function boil()")
    # a result with the user's words beside it is the user's
    assert denied["metadata"]["speaker"] == "user"
    assert denied["textChunks"] == [
        "[tool_result execute_command error] The user denied this operation.",
        "<feedback>\nDon't run the tests yet.\n</feedback>",
    ]
    assert answer["textChunks"] == ["The loop never updates temp; heat() must be called inside it."]


def test_thinking_private_unless_asked():
    recs, _, _ = run(cline.read, HISTORY, THINKING)
    assert recs[1]["textChunks"][0] == "[thinking] The loop condition must be wrong; read the file."
    assert "thinking" not in recs[1]["extra"]


def test_older_task_without_times():
    recs, rejects, warnings = run(cline.read, ROO)
    assert not rejects
    assert warnings == [f"{ROO.name}: messages without ts (older tasks) get the epoch sentinel"]
    assert {r["thread"] for r in recs} == {"cline:3f2e1d0c-9b8a-4765-8432-10fedcba9876"}
    assert recs[1]["textChunks"][0].startswith("<thinking>Find the sensor first.</thinking>")


def test_side_files_are_recognised_and_not_read():
    for name, what in (
        ("ui_messages.json", "the task panel's copy of the task"),
        ("task_metadata.json", "the task's files in context and model usage"),
    ):
        path = TASK / name
        assert registry.detect(Source(path)).name == "cline"
        recs, rejects, warnings = run(cline.read, path)
        assert not recs and not rejects
        assert warnings == [
            f"{name}: {what} ({name}): not read; the task is read from "
            "api_conversation_history.json"
        ]


def test_two_tasks_with_the_same_words_keep_both(tmp_path):
    """Every task's file has the same name: the task folder tells their messages apart."""
    same = [{"role": "user", "content": "<task>\nhi\n</task>", "ts": 1717405200000}]
    paths = []
    for task in ("1717405200000", "1717409999000"):
        (tmp_path / task).mkdir()
        paths.append(tmp_path / task / "api_conversation_history.json")
        paths[-1].write_text(json.dumps(same))
    a, b = ([r["thread"] for r in run(cline.read, p)[0]] for p in paths)
    assert a == ["cline:1717405200000"] and b == ["cline:1717409999000"]


def test_detect_among_builtins():
    reg = fresh_registry(cline)
    for path in (HISTORY, ROO):
        assert detect_name(reg, path) == "cline"
        assert registry.detect(Source(path)).name == "cline"


def test_plain_anthropic_messages_stay_anthropic(tmp_path):
    path = tmp_path / "messages.json"
    path.write_text(json.dumps([{"role": "user", "content": [{"type": "text", "text": "hi"}]}]))
    assert cline.sniff(Source(path)) == 0


def _long_task(path, first_text: str, n: int = 150) -> None:
    """A task larger than the sniffing head, as Cline writes it (``ts`` after content)."""
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": first_text}], "ts": 1717405200000}
    ]
    for i in range(1, n):
        role = "assistant" if i % 2 else "user"
        text = f"step {i} " + "x" * 900
        msgs.append({"role": role, "content": [{"type": "text", "text": text}],
                     "ts": 1717405200000 + i * 1000})  # fmt: skip
    path.write_text(json.dumps(msgs))


def test_renamed_long_task_is_cline_by_content(tmp_path):
    """A task file larger than the head, under another name (a download, a copy), is
    found by its first messages, not read as plain Anthropic messages without times."""
    for name, first in (
        ("cline-task.json", "<task>\nRefactor the deploy scripts.\n</task>"),
        ("huge-first.json", "<task>\n" + "a long pasted document " * 4000 + "\n</task>"),
    ):
        path = tmp_path / name
        _long_task(path, first)
        assert path.stat().st_size > 100_000
        assert registry.detect(Source(path)).name == "cline"
        recs, rejects, _ = run(cline.read, path)
        assert not rejects and len(recs) == 150
        assert recs[0]["timestamp"] == "2024-06-03T09:00:00Z"
        assert recs[1]["timestamp"] == "2024-06-03T09:00:01Z"


def test_ui_messages_alone_are_the_task():
    """A task's ``ui_messages.json`` without its ``api_conversation_history.json`` (as
    users commit it to their repositories, Cline 3.x and Roo Code alike) read no message,
    only "not read; the task is read from api_conversation_history.json" (a file that
    was not there): now the panel's messages are the task."""
    path = FIXTURES / "cline" / "ui-only" / "1760534080000" / "ui_messages.json"
    assert registry.detect(Source(path)).name == "cline"
    recs, rejects, warnings = run(cline.read, path)
    assert not rejects
    got = [
        (r["metadata"]["speaker"], r.get("role"), r["textChunks"][0][:40], r["tags"]) for r in recs
    ]
    assert got == [
        ("user", "user", "Why does my kettle click off before it b", []),
        ("assistant", "assistant", '[tool_use readFile] {"tool":"readFile","', []),
        ("assistant", "assistant", "[tool_use execute_command] python -m pyt", []),
        ("tool", "tool", "[tool_result execute_command] \n1 failed:", []),
        ("cline", None, '{"message":"Failed to create stream: req', ["system", "error"]),
        ("assistant", "assistant", "Should I raise CUTOFF to 100 C?", []),
        ("user", "user", "Yes, do it.", []),
        ("assistant", "assistant", '[tool_use use_mcp_server] {"type":"use_m', []),
        ("tool", "tool", "[tool_result use_mcp_server] K-200: cuto", []),
        ("assistant", "assistant", "I will set CUTOFF = 100 in thermo.py.", []),
        ("assistant", "assistant", "CUTOFF is now 100 C; the test passes.", []),
    ]  # fmt: skip
    assert {r["thread"] for r in recs} == {"cline:1760534080000"}
    assert recs[0]["timestamp"] == "2025-10-15T13:14:40Z"
    assert recs[1]["extra"]["thinking"] == ["The thermostat module decides the cutoff; read it."]
    assert recs[5]["extra"]["options"] == ["Yes", "No"]
    assert warnings == [
        "ui_messages.json: the task panel's bookkeeping and empty messages not read "
        "(api_req_started 1, checkpoint_created 1, completion_result 1, error_retry 1, "
        "resume_task 1, task_progress 1, text 1)"
    ]
