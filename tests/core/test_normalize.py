import contextlib
import dataclasses

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core.errors import ConvoError, RecordError
from convo.core.record import ConversationMessage
from convo.memory.coercion import (
    LenientMessageCoercer,
    StrictMessageCoercer,
    normalize_message,
    normalize_messages,
)
from convo.memory.history import JsonlMessageStore
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


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["role", "content", "textChunks", "metadata", "type", "source", "tool"])
            | st.text(max_size=4),
            inner,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_property_normalize_arbitrary_json(value):
    """Issue 20: normalize_message(s) and both coercers raise only convo's own errors
    (InvalidMessage is a RecordError and a ValueError)."""
    for call in (
        lambda: normalize_message(value),
        lambda: normalize_messages(value),
        lambda: normalize_message(value, coercer=StrictMessageCoercer()),
        lambda: normalize_messages(value, coercer=LenientMessageCoercer()),
    ):
        with contextlib.suppress(ConvoError):
            call()


@pytest.mark.parametrize("depth", [300, 600, 900])
def test_deep_payloads_are_refused(depth, tmp_path):
    """Issue 20: a payload 300-900 levels deep is an InvalidMessage, never a RecursionError."""
    deep = orjson.loads(b'{"a":' * depth + b'"x"' + b"}" * depth)
    for payload in ({"role": "user", "content": [deep]}, {"textChunks": ["x"], "extra": deep}):
        with pytest.raises(ValueError, match="levels deep"):
            normalize_message(payload)
        with pytest.raises(RecordError, match="levels deep"):
            JsonlMessageStore(tmp_path / "h.jsonl").append(payload)
