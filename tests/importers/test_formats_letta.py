"""Letta (MemGPT) agent files (``convo.importers.agents.letta``).

Fixtures follow letta-ai/letta ``letta/serialize_schemas/pydantic_agent_schema.py`` (v1:
one agent, ``core_memory``, ``in_context_message_indices``, MemGPT's ``send_message``
calls, JSON envelopes for the user's words, logins and heartbeats, tool answers named
for the agent; as ``tests/test_agent_files/memgpt_agent_with_convo.af``) and
``letta/schemas/agent_file.py`` (v2: ``agents``, ``blocks``, renumbered ids,
``in_context_message_ids``, reasoning, ``tool_call`` and image parts).
"""

from __future__ import annotations

import json

import pytest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import letta
from convo.importers.registry import registry

DIR = FIXTURES / "letta"
V1 = DIR / "memgpt_agent_with_convo.af"
V2 = DIR / "agent-file-v2.af"


@pytest.mark.parametrize("path", [V1, V2], ids=lambda p: p.name)
def test_golden(path):
    recs, _, _ = run(letta.read, path)
    assert_golden(f"formats/letta/{path.stem}.jsonl", recs)


def test_memgpt_agent():
    recs, rejects, warnings = run(letta.read, V1)
    assert [r.where for r in rejects] == ["memgpt_agent_with_convo.af#messages.10"]
    assert not warnings
    persona, human, _system, boot, ok, login, said, edit, edited, beat, hello = recs
    assert (persona["subject"], persona["tags"]) == ("persona", ["memory"])
    assert human["textChunks"] == ["First name: Sarah"]
    assert human["timestamp"] == "2025-04-01T03:51:11Z"  # naive: UTC
    assert {r["thread"] for r in recs} == {"letta:memgpt_agent_with_convo.af:sam"}
    # send_message's argument is what the person read; the monologue is private
    assert boot["textChunks"] == ["More human than human is our motto."]
    assert boot["metadata"] == {"speaker": "sam", "listeners": ["user"]}
    assert boot["extra"]["thinking"] == [
        "Bootup sequence complete. Persona activated. Testing messaging functionality."
    ]
    assert boot["tags"] == ["evicted"] and ok["tags"] == ["evicted"]
    assert (login["metadata"]["speaker"], login["tags"]) == ("letta", ["system"])
    assert said["textChunks"] == ["hi my name is actually sarah not chad "]
    assert said["extra"]["envelope"] == {
        "type": "user_message",
        "time": "2025-03-31 08:51:08 PM PDT-0700",
    }
    assert edit["textChunks"][0].startswith("[tool_use core_memory_replace] ")
    # v1 names the agent on a tool's answer: the call it answers names the tool
    assert edited["textChunks"][0].startswith("[tool_result core_memory_replace] ")
    assert beat["metadata"]["speaker"] == "letta"
    assert hello["textChunks"] == ["Nice to meet you, Sarah!"] and hello["tags"] == []


def test_monologue_shown_when_asked():
    recs, _, _ = run(letta.read, V1, THINKING)
    assert recs[3]["textChunks"] == [
        "[thinking] Bootup sequence complete. Persona activated. Testing messaging functionality.",
        "More human than human is our motto.",
    ]


def test_agent_file_v2():
    recs, rejects, warnings = run(letta.read, V2)
    assert not rejects
    assert warnings == [
        "agent-file-v2.af: records without created_at (v2's memory blocks) get the epoch sentinel"
    ]
    block, system, old, asked, call, result, answer = recs
    assert block["subject"] == "human" and block["metadata"]["speaker"] == "data_analyst"
    assert {r["thread"] for r in recs} == {"letta:agent-file-v2.af:agent-0"}
    assert system["id"] == "letta:agent-file-v2.af:message-0"
    assert old["tags"] == ["evicted"] and answer["tags"] == []
    assert asked["textChunks"] == ["What is fib(10)?", "[image] https://img.example/chart.png"]
    assert call["textChunks"] == ['[tool_use fibonacci] {"n":10}']
    assert call["extra"]["thinking"] == ["Compute it with the tool."]
    assert result["textChunks"] == ["[tool_result fibonacci] 55"]
    assert result["extra"]["tool_returns"][0]["status"] == "success"


def test_two_files_renumbered_ids_stay_apart(tmp_path):
    doc = json.loads(V2.read_text())
    ids = set()
    for name in ("a.af", "b.af"):
        (tmp_path / name).write_text(json.dumps(doc))
        ids |= {
            r["id"] for r in run(letta.read, tmp_path / name)[0] if r["id"].startswith("letta:")
        }
    assert len(ids) == 12


def test_detect_among_builtins():
    reg = fresh_registry(letta)
    for path in (V1, V2):
        assert detect_name(reg, path) == "letta"
        assert registry.detect(Source(path)).name == "letta"


def test_other_agents_documents_are_not_taken(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"agents": [{"name": "a", "messages": []}]}))
    assert letta.sniff(Source(path)) == 0


def test_agent_file_written_as_one_json_string(tmp_path):
    """letta-ai/agent-file's 1.0 examples (``customer_service.af``) hold the agent file's
    JSON as one JSON string: read as the file itself, the same records."""
    plain, _, _ = run(letta.read, V2)
    text = json.dumps(json.dumps(json.loads(V2.read_text()), indent=2))
    path = tmp_path / V2.name
    path.write_text(text)
    assert text.startswith('"{\\n  \\"agents\\": [')
    assert registry.detect(Source(path)).name == "letta"
    recs, rejects, _ = run(letta.read, path)
    assert not rejects and recs == plain and len(recs) > 2
