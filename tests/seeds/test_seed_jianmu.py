"""Conformance with the Jianmu message module's documentation (``jianmu.message``).

Each test names the passage it checks. convo's counterpart of Jianmu's ``Message`` is the
record (``ConversationMessage`` with ``role``); the helpers live in ``convo.memory``
(``messages``: constructors, ``to_text``, ``to_dict``; ``coercion``: coercers and
normalisers; ``history``: ``JsonlMessageStore``, the counterpart of ``StateMessageStore``,
backed by a JSONL file instead of a state manager).
"""

from __future__ import annotations

import asyncio

import pytest

from convo.core.errors import RecordError
from convo.memory.coercion import (
    LenientMessageCoercer,
    MessageCoercerProtocol,
    StrictMessageCoercer,
    normalize_message,
    normalize_messages,
)
from convo.memory.history import (
    AsyncJsonlMessageStore,
    AsyncMessageStoreProtocol,
    JsonlMessageStore,
    MaxCountRetention,
    MessageEvent,
    MessageStoreProtocol,
    RetentionPolicyProtocol,
)
from convo.memory.messages import MESSAGE_FIELDS, ai, human, system, to_dict, to_text, tool


@pytest.fixture
def path(tmp_path):
    return tmp_path / "history.jsonl"


def texts(messages):
    return [to_text(m) for m in messages]


def test_minimal_example(path):
    """4. 最小示例: StateMessageStore(state_manager, key="messages", max_messages=50);
    append(human("hello")); append(ai("hi")); get_messages(limit=10)."""
    store = JsonlMessageStore(path, key="messages", max_messages=50)
    store.append(human("hello"))
    store.append(ai("hi"))
    recent = store.get_messages(limit=10)
    assert texts(recent) == ["hello", "hi"]
    assert [m.role for m in recent] == ["user", "assistant"]


def test_typical_usage(path):
    """StateMessageStore, Typical usage: store = StateMessageStore(sm, key="messages",
    max_messages=50); store.append(human("hello")); recent = store.get_messages(limit=10)."""
    store = JsonlMessageStore(path, key="messages", max_messages=50)
    store.append(human("hello"))
    assert texts(store.get_messages(limit=10)) == ["hello"]


def test_message_fields():
    """Message 属性: id, role (system/user/assistant/tool), content, name, tool,
    tool_call_id, tool_calls, metadata."""
    assert MESSAGE_FIELDS == (
        "id", "role", "content", "name", "tool", "tool_call_id", "tool_calls", "metadata"
    )  # fmt: skip
    msg = tool("3 results", name="search", tool="search", tool_call_id="c1",
               metadata={"k": "v"}, id="m1")  # fmt: skip
    assert msg.id == "m1" and msg.role == "tool" and msg.speaker == "search"
    assert msg.extra["tool"] == "search" and msg.extra["metadata"] == {"k": "v"}
    assert msg.extra["blocks"][0]["tool_use_id"] == "c1"
    calls = [{"id": "c1", "name": "search", "input": {"q": "x"}}]
    assert ai("", tool_calls=calls).extra["blocks"][0]["name"] == "search"
    assert human("x").id  # a stable identifier is always there


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, ""),
        ("plain", "plain"),
        (b"caf\xc3\xa9", "café"),
        (b"\xff", "\ufffd"),
        ({"text": "t", "content": "c"}, "t"),
        ({"content": "c", "data": "d"}, "c"),
        ({"data": "d"}, "d"),
        ({"value": "v"}, "v"),
        ({"text": 3, "value": "v"}, "v"),  # only a string value counts
        ({"other": 1}, "{'other': 1}"),  # else str(content)
        (["a", "", None, {"value": "v"}], "a\nv"),  # empty parts skipped
        (42, "42"),
    ],
)
def test_to_text(content, expected):
    """to_text: None → ""; str; bytes decoded with "replace"; dict → first str of text,
    content, data, value, else str(content); list → parts joined by newlines; else str."""
    assert to_text(content) == expected


def test_to_text_of_a_message():
    """to_text(self_or_content): a Message instance gives the text of its content."""
    assert to_text(human("hello")) == "hello"
    assert to_text(tool("42", tool_call_id="c1")) == "42"


def test_to_dict():
    """to_dict: id, role and content always, plus name, tool, tool_call_id, tool_calls and
    metadata when they are set."""
    assert to_dict(human("hello", id="m1")) == {"id": "m1", "role": "user", "content": "hello"}
    full = to_dict(tool("42", name="calc", tool="calc", tool_call_id="c1", id="t1",
                        metadata={"a": 1}))  # fmt: skip
    assert full == {"id": "t1", "role": "tool", "content": "42", "name": "calc",
                    "tool": "calc", "tool_call_id": "c1", "metadata": {"a": 1}}  # fmt: skip
    assert "name" not in to_dict(human("x", name=None))


def test_constructors():
    """system()/human()/ai()/tool(): role system/user/assistant/tool; **kwargs are Message
    field overrides; tool(content, name=None)."""
    assert [m.role for m in (system("s"), human("h"), ai("a"), tool("t"))] == [
        "system", "user", "assistant", "tool"
    ]  # fmt: skip
    assert human("hi", name="Alice").speaker == "Alice"
    assert to_dict(tool("out", "grep"))["name"] == "grep"
    with pytest.raises(TypeError):
        human("x", colour="red")  # not a Message field


def test_message_event():
    """MessageEvent: event_type Literal['added'], message Message."""
    event = MessageEvent(event_type="added", message=human("x"))
    assert event.event_type == "added" and to_text(event.message) == "x"
    with pytest.raises(ValueError):
        MessageEvent(event_type="removed", message=human("x"))  # type: ignore[arg-type]


def test_protocols(path):
    """MessageStoreProtocol, AsyncMessageStoreProtocol, MessageCoercerProtocol,
    RetentionPolicyProtocol."""
    assert isinstance(JsonlMessageStore(path), MessageStoreProtocol)
    assert isinstance(AsyncJsonlMessageStore(path), AsyncMessageStoreProtocol)
    assert isinstance(StrictMessageCoercer(), MessageCoercerProtocol)
    assert isinstance(LenientMessageCoercer(), MessageCoercerProtocol)
    assert isinstance(MaxCountRetention(), RetentionPolicyProtocol)


def test_strict_coercer():
    """StrictMessageCoercer: None → None; a Message as is; a dict → Message(**payload), an
    invalid dict or another type raises ValueError."""
    c = StrictMessageCoercer()
    assert c.coerce(None) is None
    m = human("x")
    assert c.coerce(m) is m
    one = c.coerce({"role": "user", "content": "one"})
    assert one.role == "user" and to_text(one) == "one"
    with pytest.raises(ValueError, match="Invalid message payload dict"):
        c.coerce({"unrelated": True})
    with pytest.raises(ValueError, match="Invalid message payload type: int"):
        c.coerce(3)


def test_lenient_coercer():
    """LenientMessageCoercer: a dict that is not a message, or any other payload, becomes
    Message(role="assistant", content=str(payload))."""
    c = LenientMessageCoercer()
    assert c.coerce(None) is None
    junk = {"unrelated": True}
    m = c.coerce(junk)
    assert m.role == "assistant" and to_text(m) == str(junk)
    assert to_text(c.coerce(42)) == "42"
    assert to_text(c.coerce({"role": "user", "content": "ok"})) == "ok"


def test_normalize_message():
    """normalize_message: a coercer's result takes precedence; None → None; Message as is;
    dict → Message.model_validate; else to_text(...).strip() as fallback_role, None when
    empty."""
    assert normalize_message(None) is None
    m = ai("x")
    assert normalize_message(m) is m
    assert to_text(normalize_message({"role": "assistant", "content": "d"})) == "d"
    with pytest.raises(ValueError):
        normalize_message({"nothing": "here"})
    wrapped = normalize_message("  hi  ", fallback_role="assistant")
    assert wrapped.role == "assistant" and to_text(wrapped) == "hi"
    assert normalize_message("   ") is None
    assert normalize_message(["a", "b"]).text == "a\nb"
    assert normalize_message("x", coercer=LenientMessageCoercer()).role == "assistant"


def test_normalize_messages():
    """normalize_messages: None → []; a Sequence (not str, bytes, dict, Message) item by
    item, else [payload]; None results dropped; the coercer applied item by item."""
    assert normalize_messages(None) == []
    assert texts(normalize_messages("one")) == ["one"]
    assert texts(normalize_messages({"role": "user", "content": "d"})) == ["d"]
    assert texts(normalize_messages(["a", None, "", human("b")])) == ["a", "b"]
    assert texts(normalize_messages(("a", "b"))) == ["a", "b"]
    out = normalize_messages([1, "x"], coercer=LenientMessageCoercer())
    assert [m.role for m in out] == ["assistant", "assistant"]


def test_init_rules(path):
    """StateMessageStore.__init__: retention with max_messages or with merge_fn raises
    ValueError; an async merge_fn raises TypeError; the default coercer is Strict."""
    with pytest.raises(ValueError, match="retention"):
        JsonlMessageStore(path, max_messages=2, retention=MaxCountRetention(2))
    with pytest.raises(ValueError, match="merge_fn"):
        JsonlMessageStore(path, retention=MaxCountRetention(2), merge_fn=lambda a, b: a + b)

    async def merge(current, incoming):
        return current + incoming

    with pytest.raises(TypeError, match="sync"):
        JsonlMessageStore(path, merge_fn=merge)
    assert isinstance(JsonlMessageStore(path).coercer, StrictMessageCoercer)


def test_default_coercer_validates_a_dict(path):
    """Issue 19 / the default StrictMessageCoercer: append({"role": "user", "content":
    "one"}) stores a user message."""
    store = JsonlMessageStore(path)
    store.append({"role": "user", "content": "one"})
    (msg,) = store.get_messages()
    assert msg.role == "user" and to_text(msg) == "one"
    with pytest.raises(RecordError):
        store.append("a bare string")


def test_append_many_emits_added_events(path):
    """append_many: Append multiple messages and emit per-message added events;
    subscribe returns the same callback; unsubscribe of an unknown callback is a no-op."""
    store = JsonlMessageStore(path)
    seen = []
    cb = store.subscribe(seen.append)
    assert cb == seen.append
    store.append_many([human("a"), ai("b")])
    assert [(e.event_type, to_text(e.message)) for e in seen] == [("added", "a"), ("added", "b")]
    store.unsubscribe(cb)
    store.unsubscribe(cb)  # unknown now: no error
    store.append(human("c"))
    assert len(seen) == 2


def test_replace(path):
    """replace(messages, *, signal=True): the full history replaced with normalised
    messages; signal controls the change events."""
    store = JsonlMessageStore(path)
    store.append_many([human("a"), human("b")])
    seen = []
    store.subscribe(seen.append)
    store.replace([system("fresh")], signal=False)
    assert texts(store.get_messages()) == ["fresh"] and seen == []
    store.replace([system("again")])
    assert texts(store.get_messages()) == ["again"] and len(seen) == 1


def test_get_messages_limit(path):
    """get_messages(limit): from the tail of the store; all when None (or limit <= 0, as
    ``if limit and limit > 0``)."""
    store = JsonlMessageStore(path)
    store.append_many([human(str(i)) for i in range(5)])
    assert texts(store.get_messages(limit=2)) == ["3", "4"]
    assert len(store.get_messages()) == len(store.get_messages(limit=0)) == 5
    assert len(store.get_messages(limit=-3)) == 5
    assert len(store.get_messages(limit=50)) == 5


def test_read_input(path):
    """read_input(raw, *, fallback_role="user", limit=None): a list through the store's
    coercer, anything else through normalize_messages; tail limit after normalisation."""
    store = JsonlMessageStore(path)
    got = store.read_input([{"role": "user", "content": "a"}, human("b"), None])
    assert texts(got) == ["a", "b"]
    assert store.read_input("hello", fallback_role="assistant")[0].role == "assistant"
    assert texts(store.read_input([human("1"), human("2")], limit=1)) == ["2"]
    with pytest.raises(ValueError):
        store.read_input(["a bare string"])  # the Strict coercer refuses list items
    assert store.read_input(None) == []


def test_key_and_namespace_isolation(path):
    """namespace: "Use this when each sub-agent or subtree needs isolated chat history";
    key: the field holding the history. Two histories in one file never see each other."""
    a = JsonlMessageStore(path, namespace="agent-a")
    b = JsonlMessageStore(path, namespace="agent-b")
    other_key = JsonlMessageStore(path, key="scratch")
    default = JsonlMessageStore(path)
    a.append(human("for a", id="same"))
    assert b.append(human("for b", id="same"))  # same id, other history: stored too
    other_key.append(human("scratch"))
    default.append(human("main"))
    assert texts(a.get_messages()) == ["for a"]
    assert texts(b.get_messages()) == ["for b"]
    assert b.get_messages()[0].id == "same"
    assert texts(other_key.get_messages()) == ["scratch"]
    assert texts(default.get_messages()) == ["main"]
    a.replace([human("a again")])
    assert texts(b.get_messages()) == ["for b"] and texts(default.get_messages()) == ["main"]


def test_max_messages_after_merge_fn(path):
    """max_messages: "If both merge_fn and max_messages are provided, truncation is applied
    after merge_fn returns"."""

    def merge(current, incoming):
        return [*incoming, *current]  # newest first

    store = JsonlMessageStore(path, max_messages=2, merge_fn=merge)
    for t in ("a", "b", "c"):
        store.append(human(t))
    assert texts(store.get_messages()) == ["b", "a"]  # merged [c, b, a], tail of 2


def test_max_count_retention():
    """MaxCountRetention(max_messages=50): apply(existing, incoming) appends and keeps the
    newest entries; None or <= 0 keeps all."""
    assert MaxCountRetention().max_messages == 50
    keep2 = MaxCountRetention(2)
    assert texts(keep2.apply([human("a")], [human("b"), human("c")])) == ["b", "c"]
    assert len(MaxCountRetention(None).apply([human("a")], [human("b")])) == 2
    assert len(MaxCountRetention(0).apply([human("a")], [human("b")])) == 2


def test_retention_policy_in_store(path):
    """retention: a high-level retention policy (its apply is the merge)."""
    store = JsonlMessageStore(path, retention=MaxCountRetention(1))
    store.append_many([human("a"), human("b")])
    assert texts(store.get_messages()) == ["b"]


def test_async_twin(path):
    """AsyncMessageStoreProtocol: async append, append_many, get_messages; sync subscribe
    and unsubscribe."""

    async def main():
        store = AsyncJsonlMessageStore(path, max_messages=2)
        seen = []
        store.subscribe(seen.append)
        await store.append(human("a"))
        await store.append_many([human("b"), human("c")])
        return await store.get_messages(), await store.get_messages(limit=1), seen

    everything, last, seen = asyncio.run(main())
    assert texts(everything) == ["b", "c"] and texts(last) == ["c"]
    assert [to_text(e.message) for e in seen] == ["a", "b", "c"]


@pytest.mark.parametrize(
    "payload",
    [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "s", "arguments": "{}"}}]},
        {"id": "m7", "role": "tool", "content": "42", "tool_call_id": "c1", "name": "calc"},
    ],
)  # fmt: skip
def test_coerced_dict_is_the_message_it_describes(payload):
    """StrictMessageCoercer: a dict → ``Message(**payload)``; ``content`` is "plain text
    or a structured list of multimodal blocks" and ``to_dict`` returns it as set: a list of
    text blocks stays a list, tool_calls stay as given, ``id`` is always there."""
    got = to_dict(StrictMessageCoercer().coerce(payload))
    assert got["id"] == payload.get("id", got["id"]) and got["id"]
    assert {k: v for k, v in got.items() if k != "id"} == {
        k: v for k, v in payload.items() if k != "id"
    }


def test_to_dict_carries_a_time_the_source_did_not_hold(path):
    """Message ``metadata``: "Arbitrary structured metadata", where convo reads and writes
    the time (``metadata.timestamp``). A time the record has but the source did not hold
    (given here, or set by the store on append) is written there, so export → import keeps
    it; a source that had one is given back unchanged."""
    assert to_dict(human("x", id="m1", timestamp="2024-03-06T14:30:00Z")) == {
        "id": "m1", "role": "user", "content": "x",
        "metadata": {"timestamp": "2024-03-06T14:30:00Z"}}  # fmt: skip
    own = {"timestamp": "2024-03-06T14:30:00+02:00", "a": 1}
    assert to_dict(human("x", id="m2", metadata=own))["metadata"] == own
    store = JsonlMessageStore(path)
    store.append(human("hello", metadata={"a": 1}))
    (stored,) = store.get_messages()
    assert to_dict(stored)["metadata"] == {"a": 1, "timestamp": stored.timestamp}


def test_to_dict_keeps_tool_results_of_a_mixed_turn(tmp_path):
    """Message ``content``: "a structured list of multimodal blocks". A user turn that
    holds tool results beside text and media (Anthropic's) keeps them as blocks, in order,
    so export → import keeps the turn's text."""
    import orjson

    from convo.output import exporters as ex
    from convo.pipeline.ingest import read_messages

    src = tmp_path / "anthropic.json"
    src.write_bytes(orjson.dumps({"messages": [
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "fetch", "input": {"u": "x"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "HTTP 404", "is_error": True},
            {"type": "text", "text": "Here is the cover instead."},
            {"type": "image", "source": {"type": "url", "url": "https://example.org/c.jpg"}}]},
    ]}))  # fmt: skip
    got = list(read_messages(src, format="anthropic"))
    out = ex.to_jianmu(got)
    assert [b["type"] for b in out[1]["content"]] == ["tool_result", "text", "image"]
    dst = tmp_path / "jianmu.json"
    dst.write_bytes(orjson.dumps(out))
    back = list(read_messages(dst, format="jianmu"))
    assert [(m.role, m.text_chunks) for m in back] == [(m.role, m.text_chunks) for m in got]
