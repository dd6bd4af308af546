"""Conformance with AutoGen AgentChat's message classes (the BaseChatMessage PR text).

Each test names the passage it checks. The PR's point: the ``ChatMessage``/``AgentEvent``
unions exist so that serialising a message keeps the fields of its concrete type (like
``HandoffMessage.target``); convo must keep them too, from ingest to export.
"""

from __future__ import annotations

import orjson
import pytest

from convo.output import exporters as ex
from convo.pipeline.ingest import read_messages

T = "2024-03-06T10:00:0{}Z"


def dump(kind, i, content, source="planner", **fields):
    """A ``model_dump()`` of a built-in message or event (the common fields first)."""
    return {"id": f"autogen-msg-{i:08d}", "source": source, "models_usage": None,
            "metadata": {}, "created_at": T.format(i % 10), "content": content, "type": kind,
            **fields}  # fmt: skip


CHAT_MESSAGES = [
    dump("TextMessage", 1, "Plan ready", source="user"),
    dump("MultiModalMessage", 2, ["Look at this", {"data": "iVBORw0KGgo="}]),
    dump("StopMessage", 3, "TERMINATE"),
    dump("HandoffMessage", 4, "Transferring to the coder", target="coder", context=[]),
    dump("ToolCallSummaryMessage", 5, "42", tool_calls=[
        {"id": "call_1", "arguments": '{"a": 6}', "name": "multiply"}],
        results=[{"content": "42", "name": "multiply", "call_id": "call_1", "is_error": False}]),
    dump("StructuredMessage[MessageType]", 6, {"data": "data", "references": ["a", "b"]},
         format_string=None),
]  # fmt: skip
AGENT_EVENTS = [
    dump("ToolCallRequestEvent", 7, [{"id": "call_1", "arguments": '{"a": 6}', "name": "multiply"}]),
    dump("ToolCallExecutionEvent", 8, [
        {"content": "42", "name": "multiply", "call_id": "call_1", "is_error": False}]),
    dump("ThoughtEvent", 9, "I should multiply."),
    dump("MemoryQueryEvent", 10, [{"content": "likes tea", "mime_type": "text/plain",
                                   "metadata": None}]),
    dump("UserInputRequestedEvent", 11, "", request_id="req-1"),
    dump("ModelClientStreamingChunkEvent", 12, "partial tok"),
    dump("SelectSpeakerEvent", 13, ["coder"]),
    dump("CodeGenerationEvent", 14, "print(1)", retry_attempt=0, code_blocks=[
        {"code": "print(1)", "language": "python"}]),
    dump("CodeExecutionEvent", 15, None, retry_attempt=0, result={
        "exit_code": 0, "output": "1", "code_file": None}),
]  # fmt: skip


def ingest(tmp_path, items):
    path = tmp_path / "autogen.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in items))
    return list(read_messages(path))


@pytest.mark.parametrize("item", CHAT_MESSAGES + AGENT_EVENTS, ids=lambda x: x["type"])
def test_every_built_in_type_round_trips(tmp_path, item):
    """ChatMessage/AgentEvent as unions of the built-in concrete types; dump and load:
    a dump read by convo is written back unchanged, type-specific fields included."""
    (msg,) = ingest(tmp_path, [item])
    assert msg.format == "autogen" and msg.speaker == item["source"]
    assert ex.to_autogen([msg]) == [item]


def test_handoff_target_is_not_lost(tmp_path):
    """ "Fields like HandoffMessage.target will be lost because it is now treated as a base
    class": convo keeps target (extra and listeners), through any export."""
    (msg,) = ingest(tmp_path, [CHAT_MESSAGES[3]])
    assert msg.extra["target"] == "coder" and msg.metadata.recipients == ["coder"]
    assert ex.to_typeagent([msg])[0]["metadata"]["listeners"] == ["coder"]
    assert ex.to_autogen([msg])[0]["target"] == "coder"


def test_structured_message_content_object(tmp_path):
    """StructuredMessage[MessageType](content=MessageType(data="data", references=["a",
    "b"]), source="user"): the content object is kept whole."""
    item = dump("StructuredMessage[MessageType]", 6, {"data": "data", "references": ["a", "b"]},
                source="user", format_string=None)  # fmt: skip
    (msg,) = ingest(tmp_path, [item])
    assert msg.role == "user"
    assert orjson.loads(msg.text_chunks[0]) == {"data": "data", "references": ["a", "b"]}
    assert ex.to_autogen([msg])[0]["content"] == {"data": "data", "references": ["a", "b"]}


def test_tool_events_become_blocks(tmp_path):
    """ToolCallRequestEvent and ToolCallExecutionEvent: calls and results, readable by
    other frameworks (OpenAI tool_calls and tool messages)."""
    calls, results = ingest(tmp_path, AGENT_EVENTS[:2])
    assert calls.extra["blocks"][0] == {"type": "tool_use", "id": "call_1", "name": "multiply",
                                        "input": {"a": 6}}  # fmt: skip
    assert results.role == "tool" and results.extra["blocks"][0]["tool_use_id"] == "call_1"
    out = ex.to_openai([calls, results])
    assert out[0]["tool_calls"][0]["function"] == {"name": "multiply", "arguments": '{"a":6}'}
    assert out[1] == {"role": "tool", "tool_call_id": "call_1", "content": "42"}


def test_thought_and_multimodal(tmp_path):
    """ThoughtEvent (the model's reasoning) and MultiModalMessage (text and images)."""
    media, thought = ingest(tmp_path, [CHAT_MESSAGES[1], AGENT_EVENTS[2]])
    assert [b["type"] for b in media.extra["blocks"]] == ["text", "image"]
    assert thought.extra["blocks"] == [{"type": "thinking", "thinking": "I should multiply."}]


@pytest.mark.parametrize(("exit_code", "failed"), [(0, False), (1, True)])
def test_code_execution_event_text_is_its_result(tmp_path, exit_code, failed):
    """The base classes "Convert content to string": a CodeExecutionEvent has no content,
    its text is its ``result`` (a CodeResult, dumped as ``{exit_code, output}``); a failing
    exit code is an error. The dump is written back unchanged."""
    item = dump("CodeExecutionEvent", 15, None, retry_attempt=0,
                result={"exit_code": exit_code, "output": "1\n", "code_file": None})  # fmt: skip
    del item["content"]  # AutoGen's CodeExecutionEvent has no content field
    (msg,) = ingest(tmp_path, [item])
    (block,) = msg.extra["blocks"]
    assert block["type"] == "tool_result" and block["content"] == "1\n"
    assert block["is_error"] is failed
    assert "1" in msg.text_chunks[0]
    assert ex.to_autogen([msg]) == [item]


@pytest.mark.parametrize("as_lines", [True, False])
def test_container_model_serialisation_is_read(tmp_path, as_lines):
    """ "Many existing code uses containers like this: ``class AppMessage(BaseModel): name:
    str; message: ChatMessage`` ... ``m.model_dump_json()``": such dumps are read as the
    messages they hold, type-specific fields kept (HandoffMessage.target), and written back
    unchanged."""
    items = [{"name": "app", "message": m} for m in CHAT_MESSAGES]
    path = tmp_path / ("app.jsonl" if as_lines else "app.json")
    if as_lines:
        path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in items))
    else:
        path.write_bytes(orjson.dumps(items))
    got = list(read_messages(path))
    assert [m.format for m in got] == ["autogen"] * len(items)
    assert [m.id for m in got] == [m["id"] for m in CHAT_MESSAGES]
    handoff = got[3]
    assert handoff.extra["target"] == "coder" and handoff.metadata.recipients == ["coder"]
    assert handoff.extra["container"] == {"name": "app"}
    assert (got[0].role, got[0].speaker, got[0].timestamp) == ("user", "user", T.format(1))
    assert ex.to_autogen(got) == items
