"""The agent reader's fast paths against their plain twins: a ``{"messages": [...]}``
document streamed equals the same document read whole; the plain message's shortcut in
``convert`` equals its converter; ``content_id``'s one-string hash equals hashing part
by part."""

from __future__ import annotations

import hashlib
from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core.errors import RecordError
from convo.core.fields import original
from convo.core.io import Source
from convo.core.record import (
    EPOCH_STR,
    ConversationMessage,
    ConversationMessageMeta,
    content_id,
    take_typed,
)
from convo.importers.agents import finish, reader
from convo.importers.agents.parts import AGENT_FORMATS, Thread
from convo.importers.agents.reader import _Reader, read_agent_messages
from convo.importers.context import ImportContext
from convo.pipeline import ingest
from convo.pipeline.ingest import Finisher
from convo.store.lines import jsonl_line

text = st.text(alphabet=st.sampled_from(["a", "é", " ", '"', "\\", "\n", "{", "]"]), max_size=6)
role = st.sampled_from(["user", "assistant", "system", "tool", "developer", "User", "model", 3])
content = st.one_of(
    text,
    st.none(),
    st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": text}), max_size=2),
)
message = st.one_of(
    st.fixed_dictionaries({"role": role, "content": content}),
    st.fixed_dictionaries(
        {"role": role, "content": content}, optional={"name": text, "tool_call_id": text}
    ),
    st.sampled_from([1, "x", None, [], {"no": "content"}]),  # rejected
)


def _read(path, fmt: str, whole: bool) -> tuple[list[dict[str, Any]], int]:
    seen: list = []
    source = Source(path)
    ctx = ImportContext(source, on_reject=seen.append)
    if whole:
        raw = path.read_bytes()
        msgs = list(_Reader(source, ctx, fmt)._whole(raw, iter(())))
    else:
        msgs = list(read_agent_messages(source, ctx, fmt))
    return [m.serialize() for m in msgs], len(seen)


@settings(max_examples=60, deadline=None)
@given(
    msgs=st.lists(message, max_size=8),
    conv=st.fixed_dictionaries({}, optional={"id": text, "tools": st.lists(text, max_size=2)}),
    after=st.booleans(),
    fmt=st.sampled_from(["openai", "anthropic", "langmem", "jianmu"]),
)
def test_streamed_document_equals_whole(tmp_path_factory, msgs, conv, after, fmt):
    """A document over several lines (one line is read as JSONL)."""
    doc = {**conv, "messages": msgs} if not after else {"messages": msgs, **conv}
    path = tmp_path_factory.mktemp("doc") / "c.json"
    path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    streamed = _read(path, fmt, whole=False)
    assert streamed == _read(path, fmt, whole=True)
    for rec in streamed[0]:  # lossless: the source's message, stored or stood for
        if not rec.get("extra", {}).get("system_prompt"):
            assert original(rec, fmt) in msgs


@settings(max_examples=200, deadline=None)
@given(
    role=st.sampled_from(["user", "assistant", "system", "tool"]),
    body=st.text(min_size=1, max_size=8),
    fmt=st.sampled_from([f for f in AGENT_FORMATS if f != "autogen"]),
    named=st.booleans(),
)
def test_plain_message_shortcut_equals_its_converter(role, body, fmt, named):
    obj = {"role": role, "content": body}

    def thread() -> Thread:
        return Thread(id="t", last={"user": "Ann" if named else None, "assistant": None})

    fast = finish.convert(dict(obj), fmt, thread(), checked_later=True)
    with mock.patch.object(finish, "_plain_text", lambda obj, fmt: None):
        plain = finish.convert(dict(obj), fmt, thread(), checked_later=True)
    assert fast.serialize() == plain.serialize()
    assert not (fast.extra or {})  # nothing stored twice


def _finished(path, fmt: str) -> tuple[list[bytes], list[str], int]:
    """The document read as ``fmt`` and finished as the ingest pipeline does: the JSONL
    lines, the warnings and the number rejected."""
    warnings: list[str] = []
    rejected: list = []
    source = Source(path)
    ctx = ImportContext(source, on_reject=rejected.append, on_warning=warnings.append)
    finisher = Finisher(fmt, source.name, [])
    lines = []
    for msg in read_agent_messages(source, ctx, fmt):
        try:
            lines.append(jsonl_line(finisher(msg)))
        except RecordError as e:
            lines.append(repr(e).encode())
    return lines, warnings, len(rejected)


plain_message = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", "tool"]), "content": text}
)


@settings(max_examples=80, deadline=None)
@given(
    msgs=st.lists(st.one_of(plain_message, plain_message, message), max_size=10),
    conv=st.fixed_dictionaries({}, optional={"id": text, "tools": st.lists(text, max_size=2)}),
    shape=st.sampled_from(["document", "after", "array", "jsonl"]),
    fmt=st.sampled_from(AGENT_FORMATS),
)
def test_reader_plain_path_equals_the_long_way(tmp_path_factory, msgs, conv, shape, fmt):
    """``_conversation``'s one-call path for ``{"role", "content": "text"}`` (finish.
    plain_message) against every message taken through ``_one`` and ``convert``: the
    same lines once finished, warnings and rejections."""
    if shape == "document":
        data = orjson.dumps({**conv, "messages": msgs}, option=orjson.OPT_INDENT_2)
    elif shape == "after":
        data = orjson.dumps({"messages": msgs, **conv}, option=orjson.OPT_INDENT_2)
    elif shape == "array":
        data = orjson.dumps([{**conv, "messages": msgs}], option=orjson.OPT_INDENT_2)
    else:
        data = b"\n".join(orjson.dumps({**conv, "messages": msgs}) for _ in range(2))
    path = tmp_path_factory.mktemp("doc") / "c.json"
    path.write_bytes(data)
    fast = _finished(path, fmt)
    with mock.patch.object(reader, "plain_message", lambda obj, fmt, thread: None):
        assert _finished(path, fmt) == fast


def _finish(msg: ConversationMessage, tags: list) -> object:
    try:
        return jsonl_line(Finisher("openai", "f.json", tags)(msg))
    except RecordError as e:
        return e.what


chat_role = st.sampled_from(["user", "assistant", "tool", "system", "User"])


@settings(max_examples=200, deadline=None)
@given(
    obj=st.fixed_dictionaries({"role": chat_role, "content": st.one_of(text, st.none())}),
    party=st.one_of(st.none(), text, st.integers(1, 2)),  # a name from the thread's past
    thread_id=st.one_of(st.none(), text, st.integers(1, 2)),
    fmt=st.sampled_from([*AGENT_FORMATS, 5]),
    tags=st.lists(st.one_of(text, st.integers(0, 2)), max_size=2),
)
def test_typed_plain_message_equals_a_checked_one(obj, party, thread_id, fmt, tags):
    """A message ``finish.plain_message`` marks ``TYPED`` skips the ``Finisher``'s type
    check: it finishes to the line (or the refusal) of the same message checked, and
    that line is what pydantic's model validates and writes back."""

    def made() -> ConversationMessage | None:
        thread = Thread(id=thread_id, last={"user": party, "assistant": party})  # type: ignore[arg-type]
        return finish.plain_message(dict(obj), fmt, thread)  # type: ignore[arg-type]

    plain = made()
    if plain is None:
        return
    take_typed(plain)  # forgotten: checked as any message
    fast = made()
    assert fast is not None
    line = _finish(fast, tags)
    assert line == _finish(plain, tags)
    if isinstance(line, bytes):
        record = orjson.loads(line)
        assert ConversationMessage.deserialize(record).serialize() == record


def _content_id_part_by_part(msg, occurrence=0, *, conversation=None, timestamp=None) -> str:
    """content_id as first written: each part encoded and hashed on its own."""
    h = hashlib.blake2b(digest_size=12)
    for part in (
        msg.format or "",
        msg.thread or conversation or "",
        msg.metadata.speaker or "",
        timestamp or msg.timestamp or EPOCH_STR,
    ):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    for chunk in msg.text_chunks:
        h.update(chunk.encode("utf-8", "surrogatepass"))
        h.update(b"\x1e")
    return f"h:{h.hexdigest()}" + (f"-{occurrence}" if occurrence else "")


maybe = st.one_of(st.none(), st.text(max_size=5))


@settings(max_examples=200)
@given(
    chunks=st.lists(st.text(max_size=5), max_size=3),
    fmt=maybe,
    thread=maybe,
    speaker=maybe,
    stamp=maybe,
    conversation=maybe,
    occurrence=st.integers(0, 3),
)
def test_content_id_equals_part_by_part(
    chunks, fmt, thread, speaker, stamp, conversation, occurrence
):
    msg = ConversationMessage(
        text_chunks=chunks, metadata=ConversationMessageMeta(speaker=speaker), format=fmt
    )
    msg.thread, msg.timestamp = thread, stamp
    args = (msg, occurrence)
    assert content_id(*args, conversation=conversation) == _content_id_part_by_part(
        *args, conversation=conversation
    )


@pytest.mark.parametrize("first", [b"", b"\xef\xbb\xbf"])
def test_bom_and_bad_element_located(tmp_path, first):
    """A BOM is read past; an element orjson refuses stops the stream with its line."""
    from convo.core.errors import InputError

    path = tmp_path / "c.json"
    path.write_bytes(
        first + b'{"messages": [\n{"role": "user", "content": "a"},\n{"role": tru}\n]}'
    )
    ctx = ImportContext(Source(path))
    with pytest.raises(InputError) as e:
        list(read_agent_messages(Source(path), ctx, "openai"))
    assert e.value.where == f"{path}:3"


def test_a_message_from_the_library_api_carries_no_mark(tmp_path):
    """The mark of a typed message (``core.record.TYPED``) is not in the message: a
    library user who calls the importer directly sees only the record's fields, and the
    pipeline still takes the message as typed."""
    import dataclasses

    from convo.importers.registry import get_format

    path = tmp_path / "chat.json"
    path.write_bytes(orjson.dumps({"messages": [{"role": "user", "content": "hi"}] * 3}))
    source = Source(path)
    fields = {f.name for f in dataclasses.fields(ConversationMessage)}
    msgs = []
    for msg in get_format("openai").read(source, ImportContext(source)):
        assert set(vars(msg)) == fields
        msgs.append(msg)
    assert len(msgs) == 3 and all(set(dataclasses.asdict(m)) == fields for m in msgs)
    assert take_typed(msgs[-1])  # the last one made is still the one marked
    taken = []
    typed = ingest.Finisher._typed

    def counted(self, msg):
        taken.append(msg)
        return typed(self, msg)

    with mock.patch.object(ingest.Finisher, "_typed", counted):
        finished = list(ingest.read_messages(str(path)))
    assert [set(vars(m)) for m in finished] == [fields] * 3
    assert taken == finished  # each taken as typed (Finisher._typed)
