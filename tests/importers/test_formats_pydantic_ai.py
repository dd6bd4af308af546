"""Pydantic AI message history (``convo.importers.agents.pydantic_ai``).

Fixtures follow pydantic/pydantic-ai ``pydantic_ai_slim/pydantic_ai/messages.py`` as
``ModelMessagesTypeAdapter.dump_json`` writes it: today's requests (``instructions``,
``run_id``, ``conversation_id``; system-prompt, user-prompt with an image URL, binary
content and a cache point, tool-return, a validation retry-prompt with pydantic's
error list, a retry-prompt without a tool, a tool-availability-delta) and responses
(thinking, tool-call with JSON-string and object args, builtin-tool-call/return, text,
usage, ``provider_response_id``); and a 0.0.x history (December 2024: no request
timestamp, ``args_json``/``args_dict`` wrapped args, null tool_call_id) as the docs'
chat app stores it, a JSONL line per run.
"""

from __future__ import annotations

import json

import pytest
from chat_exports_helpers import ingest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import pydantic_ai
from convo.importers.registry import registry
from convo.pipeline.notes import clash_warning

DIR = FIXTURES / "pydantic_ai"
HISTORY = DIR / "history.json"
V0 = DIR / "v0-chat-app.jsonl"


@pytest.mark.parametrize("name", ["history.json", "v0-chat-app.jsonl"])
def test_golden(name):
    recs, _, _ = run(pydantic_ai.read, DIR / name)
    assert_golden(f"formats/pydantic_ai/{name.split('.')[0]}.jsonl", recs)


def test_request_parts_are_their_speakers():
    recs, rejects, warnings = run(pydantic_ai.read, HISTORY)
    assert [r.where for r in rejects] == ["history.json#item-8"]
    assert warnings == ["history.json: 1 tool-availability-delta part not read (no text)"]
    speakers = [r["metadata"]["speaker"] for r in recs]
    assert speakers == [
        "system", "system", "user", "assistant", "tool", "assistant", "tool", "assistant",
        "pydantic-ai",
    ]  # fmt: skip
    instructions, system, user = recs[:3]
    assert instructions["textChunks"] == ["Answer in one sentence."]
    assert instructions["extra"]["kind"] == "instructions"
    assert system["textChunks"] == ["You are a terse weather assistant."]
    assert user["textChunks"] == [
        "What's the weather where this photo was taken?",
        "[image] https://img.example/harbour.jpg",
        "[image d1e2f3, image/png, 72 bytes]",
    ]
    assert {r["thread"] for r in recs} == {"pydantic-ai:conv-5c4b3a29-18f7-4e6d-9c5b-a4f3e2d1c0b9"}
    # the instructions every request repeats are one record
    assert sum(r["extra"].get("kind") == "instructions" for r in recs) == 1


def test_tool_calls_results_and_retries():
    recs, _, _ = run(pydantic_ai.read, HISTORY)
    call, result, call2, retry, answer, nudge = recs[3:]
    assert call["id"] == "pydantic-ai:resp_68b6a3f2c1d0e9f8a7b6c5d4"
    assert call["textChunks"] == ['[tool_use get_weather] {"city":"Hamburg"}']
    assert call["extra"]["model"] == "gpt-5-2025-08-07"
    assert call["extra"]["usage"]["input_tokens"] == 412
    assert call["extra"]["blocks"][0]["id"] == "call_Qm3bX9kLp2Vw8Rt5"
    assert result["id"] == "pydantic-ai:call_Qm3bX9kLp2Vw8Rt5:return"
    assert result["textChunks"] == [
        '[tool_result get_weather] {"city":"Hamburg","temp_c":14,"sky":"drizzle"}'
    ]
    assert result["role"] == "tool" and result["timestamp"] == "2025-09-02T08:00:02Z"
    assert call2["textChunks"] == ['[tool_use get_forecast] {"city":"Hamburg","days":"two"}']
    assert retry["textChunks"] == [
        "[tool_result get_forecast error] days: Input should be a valid integer, unable to "
        "parse string as an integer"
    ]
    assert retry["id"] == "pydantic-ai:call_Zx7cV1bN4mQ8wE2r:retry"
    assert answer["textChunks"] == [
        '[tool_use web_search] {"query":"Hamburg weather tomorrow"}',
        '[tool_result web_search] {"status":"completed"}',
        "Drizzly and 14 °C in Hamburg now, clearing tomorrow.",
    ]
    assert nudge["role"] == "user" and nudge["tags"] == ["system"]
    assert nudge["textChunks"] == ["Please return text or call a tool."]


def test_thinking_private_unless_asked():
    recs, _, _ = run(pydantic_ai.read, HISTORY)
    assert recs[3]["extra"]["thinking"] == ["The photo shows a harbour; look up Hamburg."]
    assert not any("harbour; look" in c for r in recs for c in r["textChunks"])
    recs, _, _ = run(pydantic_ai.read, HISTORY, THINKING)
    assert recs[3]["textChunks"][0] == "[thinking] The photo shows a harbour; look up Hamburg."


def test_v0_history():
    recs, rejects, warnings = run(pydantic_ai.read, V0)
    assert not rejects and not warnings
    assert {r["thread"] for r in recs} == {"v0-chat-app.jsonl"}
    # a request without a time of its own: its first part's
    assert recs[0]["timestamp"] == "2024-12-18T14:03:11Z"
    assert recs[2]["textChunks"] == ["[tool_use roll_die] {}"]
    assert recs[6]["textChunks"] == ['[tool_use roll_die] {"plus":10}']
    assert recs[7]["textChunks"] == ["[tool_result roll_die] 13"]
    assert recs[7]["id"].startswith("h:")  # no tool_call_id: the content hash
    assert recs[8]["extra"]["model"] == "gemini-1.5-flash"


def test_history_stored_again_keeps_its_ids(tmp_path):
    """``all_messages_json()`` after a second run repeats the first run's messages: the
    ids of the messages that carry their own are the same."""
    first = json.loads(HISTORY.read_text())[:3]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(first))
    b.write_text(json.dumps([*first, first[0]]))
    ids_a = {r["id"] for r in run(pydantic_ai.read, a)[0] if not r["id"].startswith("h:")}
    ids_b = {r["id"] for r in run(pydantic_ai.read, b)[0] if not r["id"].startswith("h:")}
    assert ids_a and ids_a <= ids_b


def test_detect_among_builtins():
    reg = fresh_registry(pydantic_ai)
    for path in (HISTORY, V0):
        assert detect_name(reg, path) == "pydantic-ai"
        assert registry.detect(Source(path)).name == "pydantic-ai"


def test_other_kind_documents_are_not_taken(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps([{"kind": "request", "parts": [{"type": "text"}]}]))
    assert pydantic_ai.sniff(Source(path)) == 0


def test_a_repeated_response_id_is_not_shared(tmp_path):
    """A local server answering with one constant id: the second answer, of other text,
    gets its content hash (two messages never share an id: the pipeline's rule, with
    its warning naming the file); the same answer stored again keeps the id."""
    answer = {
        "kind": "response",
        "provider_response_id": "chatcmpl-123",
        "timestamp": "2025-01-01T00:00:00Z",
    }
    doc = [
        {**answer, "parts": [{"part_kind": "text", "content": "one"}]},
        {**answer, "parts": [{"part_kind": "text", "content": "two"}]},
        {**answer, "parts": [{"part_kind": "text", "content": "one"}]},
    ]
    path = tmp_path / "local.json"
    path.write_text(json.dumps(doc))
    recs, _, warnings = ingest(path, "pydantic-ai")
    assert [r["id"] for r in recs][::2] == ["pydantic-ai:local.json:chatcmpl-123"] * 2
    assert recs[1]["id"].startswith("h:")
    assert warnings == [f"{path}: {clash_warning(1)}"]


def test_a_large_history_on_one_line_is_detected(tmp_path):
    """``all_messages_json()`` writes one line: a history past the sniffing head is cut
    inside the array, and its keys still name it."""
    turn = json.loads(HISTORY.read_text())[:2]
    path = tmp_path / "big.json"
    path.write_text(json.dumps(turn * 200, separators=(",", ":")))
    assert path.stat().st_size > 64 * 1024
    assert registry.detect(Source(path)).name == "pydantic-ai"
    recs, rejects, _ = run(pydantic_ai.read, path)
    assert not rejects and len(recs) == 1 + 2 * 200 + 200  # instructions once, parts, responses
