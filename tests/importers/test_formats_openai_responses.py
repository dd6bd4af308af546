"""OpenAI Responses API objects and item lists (``convo.importers.agents.openai_responses``).

Fixtures follow openai/openai-python ``src/openai/types/responses/`` (Response with
``output`` items; ``ResponseReasoningItem`` with ``summary_text`` parts and
``encrypted_content``; ``ResponseFunctionToolCall`` with ``call_id``/``arguments``;
``function_call_output``; ``output_text`` with ``annotations``; ``EasyInputMessage``
without ``type``) and the examples of the API reference
(platform.openai.com/docs/api-reference/responses).
"""

from __future__ import annotations

import orjson
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import openai_responses as responses
from convo.importers.registry import registry

DIR = FIXTURES / "openai_responses"


def test_response_object_golden():
    recs, rejects, warnings = run(responses.read, DIR / "response.json")
    assert not rejects and not warnings
    assert_golden("formats/openai_responses/response.jsonl", recs)
    system, answer = recs
    assert system["role"] == "system" and system["extra"] == {"instructions": True}
    assert answer["thread"] == "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b"
    assert answer["timestamp"] == "2025-03-08T23:29:02Z"
    assert answer["extra"]["response"]["previous_response_id"].startswith("resp_")


def test_items_golden_rejects_and_warning():
    recs, rejects, warnings = run(responses.read, DIR / "items.jsonl")
    assert_golden("formats/openai_responses/items.jsonl", recs)
    assert [r.where for r in rejects] == ["items.jsonl#line-8"]
    assert warnings == [
        "items.jsonl: Responses items carry no times: messages get the epoch sentinel"
    ]


def test_reasoning_never_in_text():
    for name in ("response.json", "items.jsonl"):
        recs, _, _ = run(responses.read, DIR / name)
        text = " ".join(c for r in recs for c in r["textChunks"])
        assert "Checking the timetable" not in text and "Need live data" not in text
    recs, _, _ = run(responses.read, DIR / "items.jsonl")
    call = recs[1]
    assert call["extra"]["thinking"] == [
        {"id": "rs_1", "summary": ["Need live data: call the weather tool."]}
    ]
    # a trailing reasoning item (encrypted, no summary) is kept as an empty record
    assert recs[-1]["textChunks"] == [""] and recs[-1]["extra"]["thinking"][0]["encrypted"]


def test_include_thinking():
    recs, _, _ = run(responses.read, DIR / "items.jsonl", THINKING)
    thinking = [r for r in recs if r["textChunks"][0].startswith("[thinking]")]
    assert thinking[0]["textChunks"] == ["[thinking] Need live data: call the weather tool."]
    assert not any("thinking" in (r.get("extra") or {}) for r in recs)


def test_tool_call_and_output_are_linked():
    recs, _, _ = run(responses.read, DIR / "items.jsonl")
    call, output = recs[1], recs[2]
    assert call["textChunks"] == ['[tool_use get_weather] {"location":"Paris, France"}']
    assert output["metadata"] == {"speaker": "tool", "listeners": ["assistant"]}
    assert output["replyTo"] == call["id"] == "openai:fc_12345xyz"
    assert recs[0]["textChunks"] == [
        "What is the weather in Paris?",
        "[image] https://example.com/paris.jpg",
    ]
    developer = recs[4]
    assert developer["role"] == "system" and developer["metadata"]["speaker"] == "developer"


def test_input_items_list_object(tmp_path):
    doc = {
        "object": "list",
        "data": [{"type": "message", "id": "msg_1", "role": "user", "content": [
            {"type": "input_text", "text": "Tell me a joke"}]}],
        "first_id": "msg_1", "last_id": "msg_1", "has_more": False,
    }  # fmt: skip
    path = tmp_path / "input_items.json"
    path.write_bytes(orjson.dumps(doc))
    assert responses.sniff(Source(path)) >= 90
    recs, rejects, _ = run(responses.read, path)
    assert not rejects and [r["textChunks"] for r in recs] == [["Tell me a joke"]]


def test_detect_among_builtins():
    reg = fresh_registry(responses)
    assert detect_name(reg, DIR / "response.json") == "openai-responses"
    assert detect_name(reg, DIR / "items.jsonl") == "openai-responses"


def test_global_registry_detects():
    assert registry.detect(Source(DIR / "items.jsonl")).name == "openai-responses"


def test_an_inline_image_is_named_not_copied_into_the_text():
    """A ``data:`` URL (megabytes of base64) is not text a person said."""
    parts = [
        {"type": "input_text", "text": "what is this?"},
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
        {"type": "input_image", "image_url": "https://example.com/a.png"},
    ]
    assert responses.message_chunks(parts) == [
        "what is this?",
        "[image] data URL",
        "[image] https://example.com/a.png",
    ]


def test_a_function_call_output_is_labelled_by_its_call(tmp_path):
    """An output read as bare text (``Sunny, 22C``): no ``[tool_result NAME]`` label as
    every other agent reader writes (and the tool-results convention looks for). The
    OpenAI Agents SDK's ``to_input_list()`` mixes such items with role-only messages."""
    path = tmp_path / "input_list.json"
    path.write_bytes(orjson.dumps([
        {"content": "Weather in Oslo?", "role": "user"},
        {"arguments": '{"city":"Oslo"}', "call_id": "call_1", "name": "get_weather",
         "type": "function_call", "id": "fc_1", "status": "completed"},
        {"call_id": "call_1", "output": "Rain, 9C", "type": "function_call_output"},
        {"call_id": "call_2", "output": "orphan", "type": "function_call_output"},
    ]))  # fmt: skip
    recs, _, _ = run(responses.read, path)
    assert [r["textChunks"] for r in recs[2:]] == [
        ["[tool_result get_weather] Rain, 9C"],
        ["[tool_result call_2] orphan"],
    ]
    assert recs[2]["replyTo"] == "openai:fc_1" and "output" not in recs[2]["extra"]["item"]
