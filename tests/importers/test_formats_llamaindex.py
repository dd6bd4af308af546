"""LlamaIndex chat stores (``convo.importers.agents.llamaindex``).

Fixtures follow run-llama/llama_index ``llama-index-core/llama_index/core/storage/
chat_store/simple_chat_store.py`` (``persist()``: ``{"store": {KEY: [ChatMessage]},
"class_name"}``) with ``ChatMessage`` from ``llama_index/core/base/llms/types.py``:
today's blocks (text, document, image, cache, thinking, tool_call, citation), OpenAI tool
calls in ``additional_kwargs``, a tool message, a short ``chat_history`` key; and a 0.10
store (``content`` strings, Anthropic tool calls) persisted as a JSON string.
"""

from __future__ import annotations

import json

import pytest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import llamaindex
from convo.importers.registry import registry

DIR = FIXTURES / "llamaindex"
STORE = DIR / "chat_store.json"
OLD = DIR / "v0-10-chat_store.json"
LONG_KEY = "user-7d3f9a2c-5b1e-4c8d-a6f0-2e9b8c4d1a37"


@pytest.mark.parametrize("path", [STORE, OLD], ids=lambda p: p.name)
def test_golden(path):
    recs, _, _ = run(llamaindex.read, path)
    assert_golden(f"formats/llamaindex/{path.stem}.jsonl", recs)


def test_blocks_and_tool_calls():
    recs, rejects, warnings = run(llamaindex.read, STORE)
    assert [(r.where, r.reason) for r in rejects] == [
        (f"chat_store.json#store.{LONG_KEY}.6", "not a LlamaIndex chat message (role, blocks)"),
        ("chat_store.json#store.broken", "not a list of chat messages"),
    ]
    assert warnings == ["chat_store.json: a chat store keeps no times: the epoch sentinel"]
    system, user, call, result, answer, ping, _pong = recs
    assert system["thread"] == f"llamaindex:{LONG_KEY}"
    # a short key is the store's own: the file (a generic name: with its folder) scopes it
    assert ping["thread"] == "llamaindex:llamaindex/chat_store.json:chat_history"
    assert user["textChunks"] == [
        "How many vacation days do I get? Here is my contract.",
        "[file contract.pdf, application/pdf, 9 bytes]",
        "[image] https://files.example/badge.png",
    ]
    assert call["textChunks"] == ['[tool_use handbook_search] {"query":"vacation days"}']
    assert "tool_calls" not in call["extra"].get("additional_kwargs", {})
    assert call["extra"]["blocks"][0]["id"] == "call_hR8sT2uV4wX6yZ0a"
    assert result["metadata"] == {"speaker": "tool", "listeners": ["assistant"]}
    assert result["textChunks"] == ["[tool_result handbook_search] Section 4.2: 28 days a year."]
    assert answer["textChunks"] == [
        '[tool_use calendar_lookup] {"year":2025}',
        "You get 28 vacation days a year.",
        "[citation Section 4.2] 28 days a year",
    ]
    assert answer["extra"]["thinking"] == ["The contract does not override section 4.2."]


def test_thinking_private_unless_asked():
    recs, _, _ = run(llamaindex.read, STORE, THINKING)
    assert recs[4]["textChunks"][0] == "[thinking] The contract does not override section 4.2."


def test_old_store_persisted_as_a_string():
    recs, rejects, _ = run(llamaindex.read, OLD)
    assert not rejects
    assert [r["metadata"]["speaker"] for r in recs] == ["user", "assistant", "tool", "assistant"]
    assert recs[1]["textChunks"] == ['[tool_use query_engine_tool] {"query":"vector index"}']
    # the tool message names no tool: the call it answers does
    assert recs[2]["textChunks"] == [
        "[tool_result query_engine_tool] An index of embeddings for similarity search."
    ]
    assert recs[0]["thread"] == "llamaindex:v0-10-chat_store.json:session-1"


def test_two_apps_stores_keep_their_chats_apart(tmp_path):
    """Every app persists to ``chat_store.json`` with the key ``chat_history``: the
    folder tells their threads (and so their content-hash ids) apart."""
    threads = []
    for app in ("app-a", "app-b"):
        (tmp_path / app).mkdir()
        path = tmp_path / app / "chat_store.json"
        path.write_text(
            json.dumps({"store": {"chat_history": [{"role": "user", "content": "hi"}]}})
        )
        threads += [r["thread"] for r in run(llamaindex.read, path)[0]]
    assert threads == [
        "llamaindex:app-a/chat_store.json:chat_history",
        "llamaindex:app-b/chat_store.json:chat_history",
    ]


def test_detect_among_builtins():
    reg = fresh_registry(llamaindex)
    for path in (STORE, OLD):
        assert detect_name(reg, path) == "llamaindex"
        assert registry.detect(Source(path)).name == "llamaindex"


def test_another_store_object_is_not_taken(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"store": {"a": [{"role": "user", "content": "hi"}]}}))
    assert llamaindex.sniff(Source(path)) == 0
