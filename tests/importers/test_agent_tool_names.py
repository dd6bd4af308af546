"""A tool result is named by the call it answers (``blocks.CallNames``), as every agent
reader writes it (``[tool_result NAME] ...``): Claude Code sessions, OpenAI messages and
Codex rollouts carry only the call's id on the result (audit round 7 found
``[tool_result toolu_01WCF…]`` in real sessions)."""

from __future__ import annotations

import json

from formats_helpers import run

from convo.core.io import Source
from convo.importers.agents import codex
from convo.importers.agents.blocks import CallNames
from convo.importers.registry import registry

SESSION = "5f0c8a2e-1d7b-4c39-9e61-2a4b8c0d6e13"


def _line(kind: str, uuid: str, parent: str | None, content: list[dict]) -> str:
    return json.dumps({
        "type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SESSION,
        "timestamp": "2025-10-21T20:04:27.000Z",
        "message": {"role": kind, "content": content},
    })  # fmt: skip


def test_claude_code_result_named_by_its_call(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join([
        _line("assistant", "a1", None, [
            {"type": "tool_use", "id": "toolu_01WCF", "name": "TodoWrite", "input": {}}]),
        _line("user", "u1", "a1", [
            {"type": "tool_result", "tool_use_id": "toolu_01WCF", "content": "ok"}]),
        _line("user", "u2", "u1", [  # its call is not in the file: the id stays
            {"type": "tool_result", "tool_use_id": "toolu_gone", "content": "late",
             "is_error": True}]),
    ]) + "\n")  # fmt: skip
    fmt = registry.detect(Source(path))
    assert fmt.name == "anthropic"
    recs, rejects, _ = run(fmt.read, path)
    assert not rejects
    assert [r["textChunks"][0] for r in recs[1:]] == [
        "[tool_result TodoWrite] ok",
        "[tool_result toolu_gone error] late",
    ]
    assert [r["id"].rsplit(":", 1)[-1] for r in recs] == ["a1", "u1", "u2"]  # its own ids
    assert recs[1]["extra"]["blocks"][0] == {  # the blocks stay as the source has them
        "type": "tool_result", "tool_use_id": "toolu_01WCF", "content": "ok", "is_error": False,
    }  # fmt: skip


def test_codex_output_named_by_its_call(tmp_path):
    path = tmp_path / "rollout-2025-10-21T20-02-52-x.jsonl"
    items = [
        {"type": "session_meta", "payload": {"id": SESSION, "timestamp": "2025-10-21T20:02:52Z"}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "update_plan",
                                              "arguments": "{}", "call_id": "call_Fgw8"}},
        {"type": "response_item", "payload": {"type": "local_shell_call", "call_id": "call_sh",
                                              "action": {"command": ["ls"]}}},
        {"type": "response_item", "payload": {"type": "function_call_output",
                                              "call_id": "call_Fgw8", "output": "Plan updated"}},
        {"type": "response_item", "payload": {"type": "function_call_output",
                                              "call_id": "call_sh", "output": "a.txt"}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps({"timestamp": "2025-10-21T20:04:32Z", **i}) + "\n"
                            for i in items))  # fmt: skip
    recs, rejects, _ = run(codex.read, path)
    assert not rejects
    outputs = [r for r in recs if r["metadata"]["speaker"] == "tool"]
    assert [r["textChunks"] for r in outputs] == [
        ["[tool_result update_plan] Plan updated"],
        ["[tool_result shell] a.txt"],
    ]
    assert outputs[0]["replyTo"] == f"codex:{SESSION}:call_Fgw8"


def test_call_names_keep_the_latest():
    names = CallNames()
    for i in range(CallNames.KEPT + 5):
        names.add(f"call_{i}", f"tool{i}")
    names.add("call_10", "again")  # a repeated id moves to the newest end
    names.add("", "x")
    names.add("call_none", None)
    assert len(names) == CallNames.KEPT
    assert "call_0" not in names and names["call_10"] == "again"
    assert names[f"call_{CallNames.KEPT + 4}"] == f"tool{CallNames.KEPT + 4}"
    assert "" not in names and "call_none" not in names
