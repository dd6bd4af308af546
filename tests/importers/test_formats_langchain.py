"""LangChain ``messages_to_dict`` output (``convo.importers.agents.langchain``).

Fixtures follow langchain-ai/langchain ``libs/core/langchain_core/messages/base.py``
(``message_to_dict`` = ``{"type": m.type, "data": m.model_dump()}``) and the fields of
``HumanMessage``/``AIMessage`` (``tool_calls`` with ``type: tool_call``,
``invalid_tool_calls``, ``usage_metadata``, ``response_metadata``), ``ToolMessage``
(``tool_call_id``, ``status``, ``artifact``), ``ChatMessage`` (``role``) and
``AIMessageChunk``; Anthropic content blocks (``thinking``, ``tool_use``) as
langchain-anthropic returns them, DeepSeek's ``additional_kwargs.reasoning_content``.
"""

from __future__ import annotations

import orjson
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import langchain
from convo.importers.registry import registry

PATH = FIXTURES / "langchain" / "messages.json"


def test_golden_and_reject():
    recs, rejects, warnings = run(langchain.read, PATH)
    assert_golden("formats/langchain/messages.jsonl", recs)
    assert [r.where for r in rejects] == ["messages.json#item-9"]
    assert len(warnings) == 1


def test_mapping():
    recs, _, _ = run(langchain.read, PATH)
    system, human, call, result, mixed, failed, chunk, chat = recs
    assert system["role"] == "system"
    assert human["metadata"] == {"speaker": "Ada", "listeners": ["ai"]} and human["role"] == "user"
    assert call["textChunks"] == ['[tool_use multiply] {"a":3,"b":12}']
    assert result["replyTo"] == call["id"] == "langchain:run-b8e2b2ff-0a6b-4b0a-9f3c-1f2b3c4d5e6f-0"
    assert result["metadata"]["speaker"] == "multiply" and result["role"] == "tool"
    # a tool_use block and the same call in tool_calls make one chunk, not two
    assert mixed["textChunks"] == [
        "3 * 12 = 36. Let me add the other two.",
        '[tool_use add] {"a":11,"b":49}',
    ]
    assert failed["extra"]["status"] == "error" and failed["replyTo"] == mixed["id"]
    assert chunk["role"] == "assistant" and chunk["extra"]["type"] == "AIMessageChunk"
    assert chat["role"] == "user" and chat["metadata"]["speaker"] == "user"


def test_reasoning_private_unless_asked():
    recs, _, _ = run(langchain.read, PATH)
    text = " ".join(c for r in recs for c in r["textChunks"])
    assert "Now the addition" not in text and "compute it myself" not in text
    assert recs[4]["extra"]["thinking"] == ["Now the addition; call add."]
    assert recs[6]["extra"]["thinking"] == ["Timeout; compute it myself: 60."]
    recs, _, _ = run(langchain.read, PATH, THINKING)
    assert recs[4]["textChunks"][0] == "[thinking] Now the addition; call add."


def test_jsonl_of_lists(tmp_path):
    items = orjson.loads(PATH.read_bytes())[:2]
    path = tmp_path / "history.jsonl"
    path.write_bytes(orjson.dumps(items) + b"\n" + orjson.dumps(items[1]) + b"\n")
    assert langchain.sniff(Source(path)) >= 90
    recs, rejects, _ = run(langchain.read, path)
    assert not rejects
    assert [r["thread"] for r in recs] == ["history.jsonl#line-1"] * 2 + ["history.jsonl"]


def test_detect_among_builtins():
    assert detect_name(fresh_registry(langchain), PATH) == "langchain"


def test_global_registry_detects():
    assert registry.detect(Source(PATH)).name == "langchain"


def test_dumpd_serialized_messages():
    """``langchain_core.load.dumpd`` (LangSmith runs, LangGraph checkpoints): the
    ``{"lc": 1, "type": "constructor", "id": [..., CLASS], "kwargs"}`` form reads as
    ``messages_to_dict``'s; a ``not_implemented`` stub is rejected with its place."""
    path = FIXTURES / "langchain" / "dumpd.jsonl"
    assert detect_name(registry, path) == "langchain"
    recs, rejects, warnings = run(langchain.read, path)
    assert [r.where for r in rejects] == ["dumpd.jsonl#line-3"]
    assert len(warnings) == 1
    system, human, call, result, answer, thanks = recs
    assert [r["role"] for r in recs] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert human["id"] == "langchain:4c1d9e2a-7b3f-4a6e-8d0c-2f5b7a9e1c33"
    assert call["textChunks"] == ['[tool_use convert] {"value":5,"from":"mi","to":"km"}']
    assert result["replyTo"] == call["id"] and result["metadata"]["speaker"] == "convert"
    assert answer["textChunks"] == ["5 miles is 8.05 km."]
    assert {r["thread"] for r in recs[:5]} == {"dumpd.jsonl#line-1"}
    assert thanks["thread"] == "dumpd.jsonl" and system["metadata"]["speaker"] == "system"


V1 = FIXTURES / "langchain" / "v1_blocks.json"


def test_langchain_core_v1_standard_blocks():
    """langchain-core 1.0's standard content blocks (``messages/content.py``,
    ``output_version: "v1"``): a ``tool_call`` block was written raw and again from
    ``tool_calls``; server tool calls and results, ``text-plain`` and base64 media with
    a ``mime_type`` were raw JSON; a ``RemoveMessage`` was rejected as malformed."""
    recs, rejects, warnings = run(langchain.read, V1)
    assert rejects == []
    assert warnings[0] == (
        "v1_blocks.json: skipped 1 RemoveMessage entry (LangGraph's instructions to "
        "delete a message by id: not messages)"
    )
    human, ai, tool = recs
    assert human["textChunks"] == ["What is in this image?", "[image image/png, 9 bytes]"]
    assert ai["textChunks"] == [
        '[tool_use web_search] {"query":"cat breeds"}',
        "[tool_result ws_1] 3 results",
        "A cat.",
        "breed: tabby",
        '[tool_use lookup] {"q":"tabby"}',
    ]
    assert ai["extra"]["thinking"] == ["Looks like a cat."]
    assert tool["replyTo"] == ai["id"] == "langchain:v1_blocks.json:lc_run--0"  # a short id
    assert detect_name(fresh_registry(langchain), V1) == "langchain"
