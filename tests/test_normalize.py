import dataclasses

import pytest

from convo.core.errors import RecordError
from convo.core.record import ConversationMessage
from convo.memory.coercion import (
    LenientMessageCoercer,
    StrictMessageCoercer,
    normalize_message,
    normalize_messages,
)
from convo.memory.messages import ai, human, system, to_text, tool


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("plain", "plain"),
        (b"caf\xc3\xa9", "café"),
        (b"\xff", "\ufffd"),
        ({"text": "t", "content": "c"}, "t"),
        ({"content": [{"text": "a"}, "b"]}, "{'content': [{'text': 'a'}, 'b']}"),
        ({"data": 3}, "{'data': 3}"),  # Jianmu: only a string value counts
        ({"value": None}, "{'value': None}"),
        ({"other": 1}, "{'other': 1}"),
        (["a", "", None, {"value": "v"}], "a\nv"),
        (("a", "b"), "('a', 'b')"),  # a tuple is not a list: str()
        (None, ""),
        (42, "42"),
    ],
)
def test_to_text(content, expected):
    assert to_text(content) == expected


def test_openai_dict():
    msg = normalize_message({"role": "assistant", "content": "hi", "name": "Bot"})
    assert msg.role == "assistant" and msg.text_chunks == ["hi"] and msg.speaker == "Bot"


def test_anthropic_blocks():
    msg = normalize_message(
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "search", "input": {"q": "x"}}],
        }
    )
    assert msg.extra["blocks"][0]["name"] == "search"


def test_autogen_and_agentscope():
    a = normalize_message({"type": "TextMessage", "source": "planner", "content": "go"})
    assert a.speaker == "planner"
    b = normalize_message({"id": "m1", "name": "Alice", "role": "user", "content": "hi", "metadata": None,
                           "timestamp": "2024-01-01 10:00:00.000"})  # fmt: skip
    assert b.speaker == "Alice"


def test_convo_record_and_message_pass():
    rec = {
        "textChunks": ["x"],
        "metadata": {"speaker": "A", "listeners": []},
        "tags": [],
        "timestamp": None,
    }
    assert normalize_message(rec).speaker == "A"
    m = human("hey")
    assert normalize_message(m) is m


def test_text_and_objects():
    assert normalize_message("hello", fallback_role="assistant").role == "assistant"

    class Model:
        def model_dump(self):
            return {"role": "user", "content": "from pydantic"}

    assert normalize_message(Model()).text_chunks == ["from pydantic"]

    @dataclasses.dataclass
    class Msg:
        name: str
        role: str
        content: str

        def to_dict(self):
            return dataclasses.asdict(self)

    assert normalize_message(Msg("Bob", "assistant", "ok")).speaker == "Bob"


def test_coercion_modes():
    junk = {"unrelated": True}
    with pytest.raises(ValueError, match="Invalid message payload dict"):
        normalize_message(junk)
    with pytest.raises(RecordError):
        normalize_message(junk, coercer=StrictMessageCoercer())
    wrapped = normalize_message(junk, coercer=LenientMessageCoercer())
    assert wrapped.role == "assistant" and wrapped.text_chunks == [str(junk)]
    assert normalize_message(None, coercer=LenientMessageCoercer()) is None
    assert (
        normalize_message(object(), coercer=LenientMessageCoercer())
        .text_chunks[0]
        .startswith("<object")
    )


def test_normalize_messages_rules():
    out = normalize_messages(["a", "  ", None, {"role": "user", "content": "b"}])
    assert [m.text_chunks for m in out] == [["a"], ["b"]]  # empty text and None left out
    assert normalize_messages(None) == []
    assert [m.text for m in normalize_messages("one")] == ["one"]
    with pytest.raises(ValueError):
        normalize_messages([{"x": 1}])
    with pytest.raises(RecordError):
        normalize_messages([{"x": 1}], coercer=StrictMessageCoercer())


def test_constructors():
    assert (system("s").role, human("h").role, ai("a").role) == ("system", "user", "assistant")
    t = tool("42", tool_call_id="call_1")
    assert t.role == "tool" and t.extra["blocks"][0]["tool_use_id"] == "call_1"
    assert human("x", name="Alice").speaker == "Alice"
    assert isinstance(ai("x"), ConversationMessage)
