"""OpenAI Codex CLI session rollouts (``convo.importers.agents.codex``).

Fixtures follow openai/codex ``codex-rs/protocol/src/protocol.rs`` (``RolloutLine``:
``timestamp``, ``type``, ``payload``; ``SessionMetaLine``, ``TurnContextItem``,
``CompactedItem``, ``EventMsg``) and ``models.rs`` (``ResponseItem``: message, reasoning
with encrypted content, function_call with JSON-string arguments, function_call_output
as a string and as content items, custom_tool_call for apply_patch, local_shell_call,
web_search_call, ghost_snapshot); the first Rust CLI's rollout (a meta first line, the
items themselves, ``record_type`` lines); and the TypeScript CLI's ``{session, items}``
document (``codex-cli/src/utils/storage/save-rollout.ts``). Each also holds a damaged
line or item.
"""

from __future__ import annotations

import json

import pytest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import codex
from convo.importers.registry import registry

DIR = FIXTURES / "codex"
CURRENT = DIR / "rollout-2025-10-02T09-14-05-0199a3c2-5e1f-7c3a-9b8e-2f4d6a8c0e11.jsonl"
FIRST_RUST = DIR / "rollout-2025-07-14T16-02-11-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl"
TYPESCRIPT = DIR / "rollout-2025-05-02-b2f7e0c4-1a9d-4c3e-8f5a-6d7e8f9a0b1c.json"
SESSION = "0199a3c2-5e1f-7c3a-9b8e-2f4d6a8c0e11"


@pytest.mark.parametrize(
    ("path", "golden"),
    [(CURRENT, "current"), (FIRST_RUST, "first-rust"), (TYPESCRIPT, "typescript")],
)
def test_golden(path, golden):
    recs, _, _ = run(codex.read, path)
    assert_golden(f"formats/codex/{golden}.jsonl", recs)


def test_current_rollout():
    recs, rejects, warnings = run(codex.read, CURRENT)
    name = CURRENT.name
    assert [(r.where, r.reason) for r in rejects] == [
        (f"{name}:18", "not JSON"),
        (f"{name}:26", "not a Codex rollout line (a JSON object)"),
    ]
    assert warnings == [
        f"{name}: skipped lines that repeat the items or hold no message: 1 event_msg "
        "agent_message, 1 event_msg agent_reasoning, 1 event_msg context_compacted, "
        "1 event_msg patch_apply_end, 1 event_msg token_count, 1 event_msg user_message, "
        "1 ghost_snapshot"
    ]
    assert {r["thread"] for r in recs} == {f"codex:{SESSION}"}
    env, asked, call, output = recs[:4]
    assert env["tags"] == ["context"] and env["extra"]["session"]["cwd"] == "/srv/work/kettle"
    assert asked["textChunks"] == ["Why does test_boil time out? Fix it."]
    assert asked["timestamp"] == "2025-10-02T09:14:11Z" and asked["tags"] == []
    # the turn context and the reasoning go to the next record, the call
    assert call["extra"]["turn_context"]["model"] == "gpt-5-codex"
    assert call["extra"]["model"] == "gpt-5-codex"
    assert call["extra"]["thinking"] == [
        {
            "summary": ["**Looking at the test**\n\nI should read tests/test_boil.py first."],
            "encrypted": True,
        }
    ]
    assert call["textChunks"][0].startswith('[tool_use shell] {"command":["bash","-lc",')
    assert call["id"] == f"codex:{SESSION}:call_Q1w2E3r4T5y6U7i8O9p0AsDf"
    assert output["replyTo"] == call["id"] and output["metadata"]["speaker"] == "tool"
    assert output["metadata"]["listeners"] == ["assistant"]
    patch = recs[4]
    assert patch["textChunks"][0].startswith("[tool_use apply_patch] *** Begin Patch\n")
    assert patch["extra"]["thinking"] == [{"encrypted": True}]
    by_text = {r["textChunks"][0]: r for r in recs}
    assert by_text["[tool_result shell] 1 passed in 0.03s"]["replyTo"] == (
        f"codex:{SESSION}:call_Lo9Ca1Sh2El3Lc4Al5L6xYz"
    )
    aborted = by_text["[turn_aborted] interrupted"]
    assert aborted["tags"] == ["system"] and aborted["metadata"]["speaker"] == "codex"
    summary = next(r for r in recs if r["metadata"]["speaker"] == "summary")
    assert summary["role"] == "system" and summary["extra"]["replacement_history"] == 1


def test_reasoning_is_private_unless_asked():
    recs, _, _ = run(codex.read, CURRENT)
    assert not any("Looking at the test" in c for r in recs for c in r["textChunks"])
    last = recs[-1]  # trailing reasoning: a record with no text, at the reasoning's line
    assert last["textChunks"] == [""] and last["extra"]["thinking"] == [
        {"summary": ["Nothing left to do."]}
    ]
    assert last["source_id"].endswith(":27") and last["timestamp"] == "2025-10-02T09:20:30Z"
    recs, _, _ = run(codex.read, CURRENT, THINKING)
    thoughts = [r for r in recs if (r.get("extra") or {}).get("reasoning")]
    assert [t["textChunks"] for t in thoughts] == [
        ["[thinking] **Looking at the test**\n\nI should read tests/test_boil.py first."],
        [""],  # encrypted only: nothing readable
        ["[thinking] Nothing left to do."],
    ]
    assert [t["extra"].get("encrypted") for t in thoughts] == [True, True, None]
    assert not any("thinking" in (r.get("extra") or {}) for r in recs)


def test_first_rust_rollout():
    recs, rejects, warnings = run(codex.read, FIRST_RUST)
    assert [r.where for r in rejects] == [f"{FIRST_RUST.name}:10"]
    assert warnings == [
        f"{FIRST_RUST.name}: skipped lines that repeat the items or hold no message: "
        "2 record_type state"
    ]
    assert {r["timestamp"] for r in recs} == {"2025-07-14T16:02:11Z"}  # the session's
    assert recs[0]["tags"] == ["context"]
    assert recs[0]["extra"]["session"]["instructions"] == "Prefer small commits."
    call, output = recs[2], recs[3]
    assert call["extra"]["thinking"] == [{"summary": ["Check lid.py for a debounce."]}]
    assert output["replyTo"] == call["id"] == "codex:5973b6c0-94b8-487b-a530-2aeb6098ae0e:call_1"


def test_typescript_document():
    recs, rejects, _ = run(codex.read, TYPESCRIPT)
    assert [r.where for r in rejects] == [f"{TYPESCRIPT.name}#item-6"]
    session = "b2f7e0c4-1a9d-4c3e-8f5a-6d7e8f9a0b1c"
    assert [r["id"] for r in recs] == [
        f"codex:{session}:msg_6814a0e1c2",
        f"codex:{session}:call_a1",
        recs[2]["id"],
        f"codex:{session}:msg_6814a0e9b7",
    ]
    assert recs[2]["id"].startswith("h:") and recs[2]["replyTo"] == recs[1]["id"]
    assert recs[1]["extra"]["thinking"] == [{"summary": ["A grep, then sed."]}]
    assert {r["timestamp"] for r in recs} == {"2025-05-02T08:30:00Z"}


def test_detect_among_builtins():
    reg = fresh_registry(codex)
    for path in (CURRENT, FIRST_RUST, TYPESCRIPT):
        assert detect_name(reg, path) == "codex"
        assert registry.detect(Source(path)).name == "codex"


def test_other_formats_files_are_not_codex(tmp_path):
    """Responses item lists without the rollout's first line stay openai-responses."""
    path = tmp_path / "items.jsonl"
    path.write_text(
        '{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}\n'
        '{"type": "function_call_output", "call_id": "c1", "output": "ok"}\n'
    )
    assert codex.sniff(Source(path)) == 0
    assert registry.detect(Source(path)).name == "openai-responses"


def test_a_first_line_longer_than_the_sniffing_head(tmp_path):
    """A session line carrying Codex's whole base instructions can be longer than the
    head detection reads (64 KiB): the line's start as serde writes it is enough."""
    meta = {
        "id": SESSION,
        "timestamp": "2025-11-20T08:00:00.000Z",
        "cwd": "/srv/work/kettle",
        "originator": "codex_cli_rs",
        "cli_version": "0.63.0",
        "base_instructions": {"text": "You are Codex. " * 6000},
    }
    lines = [
        {"timestamp": "2025-11-20T08:00:00.010Z", "type": "session_meta", "payload": meta},
        {
            "timestamp": "2025-11-20T08:00:03.000Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "hello"}],
            },
        },
    ]
    path = tmp_path / f"rollout-2025-11-20T08-00-00-{SESSION}.jsonl"
    path.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines))
    assert path.stat().st_size > 64 * 1024
    assert registry.detect(Source(path)).name == "codex"
    recs, rejects, _ = run(codex.read, path)
    assert not rejects and [r["textChunks"] for r in recs] == [["hello"]]
    assert recs[0]["extra"]["session"]["base_instructions"]["text"].startswith("You are Codex.")


def test_a_line_type_newer_than_the_reader_is_counted(tmp_path):
    lines = [
        {"timestamp": "2026-03-01T08:00:00.000Z", "type": "session_meta", "payload": {"id": SESSION, "timestamp": "2026-03-01T08:00:00.000Z"}},
        {"timestamp": "2026-03-01T08:00:01.000Z", "type": "world_state", "payload": {"cwd": "/srv/work"}},
        {"timestamp": "2026-03-01T08:00:02.000Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}},
    ]  # fmt: skip
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    recs, rejects, warnings = run(codex.read, path)
    assert not rejects and [r["textChunks"] for r in recs] == [["hi"]]
    assert warnings == [
        "rollout.jsonl: skipped lines that repeat the items or hold no message: 1 world_state"
    ]


def test_prompt_history(tmp_path):
    """``~/.codex/history.jsonl`` (codex-rs ``message_history.rs`` ``HistoryEntry``) sits
    beside the sessions: found by its lines under any name, each prompt a ``user`` record
    of its session tagged ``prompt-log``, not "format not recognised" in a folder walk."""
    path = DIR / "history.jsonl"
    assert registry.detect(Source(path)).name == "codex"
    recs, rejects, warnings = run(codex.read, path)
    assert [r.where for r in rejects] == ["history.jsonl:4"] and not warnings
    assert [r["textChunks"] for r in recs] == [
        ["why does boil() never return?"],
        ["/status"],
        ["add a --dry-run flag to the deploy script\nand document it"],
    ]
    assert recs[0]["thread"] == f"codex:{SESSION}"
    assert recs[2]["thread"] == "codex:5973b6c0-94b8-487b-a530-2aeb6098ae0e"
    assert recs[0]["timestamp"] == "2025-10-02T09:14:05Z"
    assert recs[0]["metadata"] == {"speaker": "user", "listeners": ["assistant"]}
    assert {r["role"] for r in recs} == {"user"} and all(r["tags"] == ["prompt-log"] for r in recs)
    renamed = tmp_path / "prompts.jsonl"
    renamed.write_text(path.read_text())
    assert registry.detect(Source(renamed)).name == "codex"


def test_codex_exec_json_output():
    """``codex exec --json`` (``codex-rs/exec/src/exec_events.rs``: ``ThreadEvent``) was
    "format not recognised": each completed item is read, its earlier states skipped."""
    path = DIR / "exec-json.jsonl"
    assert registry.detect(Source(path)).name == "codex"
    recs, rejects, warnings = run(codex.read, path)
    got = [(r["metadata"]["speaker"], r["metadata"]["listeners"], r["textChunks"]) for r in recs]
    assert got == [
        ("assistant", ["tool"], ['[tool_use shell] {"command":"bash -lc \'grep -n boil kettle/heat.py\'"}']),
        ("tool", ["assistant"], ["[tool_result shell] 12:def boil(kettle):\n"]),
        ("assistant", ["tool"], ['[tool_use shell] {"command":"bash -lc \'pytest -q\'"}']),
        ("tool", ["assistant"], ["[tool_result shell error] 1 failed\n"]),
        ("assistant", ["tool"], ['[tool_use apply_patch] {"changes":[{"path":"/home/ann/kettle/kettle/heat.py","kind":"update"}]}']),
        ("assistant", ["tool"], ['[tool_use docs.search] {"query":"heat()"}']),
        ("tool", ["assistant"], ["[tool_result docs.search] heat(kettle) warms the water"]),
        ("assistant", ["tool"], ['[tool_use web_search] {"query":"pytest -q exit code 1"}']),
        ("assistant", ["user"], ["[todo_list]", "[x] Find the loop", "[x] Call heat()"]),
        ("assistant", ["user"], ["The boil loop now calls heat(); the test passes."]),
        ("assistant", ["user"], ["Done."]),  # an older version's item_type
        ("codex", [], ["[turn.failed] stream disconnected before completion"]),
    ]  # fmt: skip
    assert {r["thread"] for r in recs} == {"codex:0199b7d1-2c3e-7a4f-8b5c-6d7e8f901a2b"}
    assert recs[0]["extra"]["thinking"] == ["**Looking for the boil loop**"]
    assert all(r["timestamp"].startswith("1970") for r in recs)  # no times: warned
    assert [r.where for r in rejects] == ["exec-json.jsonl:18"]
    assert any(w.endswith("2 item.started, 1 item.updated, 1 turn.completed, 2 turn.started")
               for w in warnings)  # fmt: skip
    think, _, _ = run(codex.read, path, THINKING)
    assert think[0]["textChunks"] == ["[thinking] **Looking for the boil loop**"]


def test_a_subagents_rollout_skips_its_copy_of_the_parent():
    """A subagent's rollout (2026, paginated: an ``ordinal`` a line) starts with a copy
    of its parent's: the parent's session_meta and lines up to
    ``subagent_history_start_ordinal``. They were read again into the subagent's
    thread (the parent's prompt twice in the store); now skipped, counted."""
    path = DIR / "rollout-2026-09-01T10-00-05-019f3a2b-4c5d-7e6f-8a9b-0c1d2e3f4a5b.jsonl"
    assert registry.detect(Source(path)).name == "codex"
    recs, rejects, warnings = run(codex.read, path)
    assert not rejects
    assert [r["textChunks"] for r in recs] == [
        ["Find the cutoff constant"],
        ['[tool_use shell] {"command":["rg","CUTOFF"]}'],
        ["[tool_result shell] kettle/thermo.py:8:CUTOFF = 90"],
        ["CUTOFF = 90 in kettle/thermo.py:8."],
    ]
    assert {r["thread"] for r in recs} == {"codex:019f3a2b-4c5d-7e6f-8a9b-0c1d2e3f4a5b"}
    assert recs[0]["extra"]["session"]["agent_nickname"] == "Gauss"  # its own, not the parent's
    assert recs[0]["extra"]["turn_context"]["model"] == "gpt-5.3-codex-mini"
    assert any(w.endswith("4 lines copied from the parent's rollout") for w in warnings)


def test_codex_exec_line_with_a_type_of_another_json_type_is_rejected(tmp_path):
    """A line whose ``type`` is an object or a list (hostile or damaged output) was an
    internal error (``unhashable type``) that stopped the whole file: it is rejected
    with its line, the others read."""
    path = tmp_path / "exec.jsonl"
    lines = (DIR / "exec-json.jsonl").read_text().splitlines()
    lines[2:2] = ['{"type": {"item.completed": 1}, "item": {}}', '{"type": ["error"]}']
    path.write_text("\n".join(lines) + "\n")
    recs, rejects, _ = run(codex.read, path)
    assert [r.where for r in rejects] == ["exec.jsonl:3", "exec.jsonl:4", "exec.jsonl:20"]
    assert len(recs) == 12
