"""A converter's ``Parts`` finished into a ``ConversationMessage``: listeners from the
``Thread``, scoped ids, time, and the ``extra`` the record needs (see the EXTRA
CONVENTION in ``convo.importers.agents.reader``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, tzinfo
from typing import Any

from convo.core.fields import plain_original
from convo.core.record import (
    ConversationMessage,
    ConversationMessageMeta,
    chat_message,
    unchecked_message,
)
from convo.core.timestamps import parse_any
from convo.importers.agents.blocks import MAX_DEPTH, chunks_of, depth_check, dumps, jsonable
from convo.importers.agents.frameworks import CONVERTERS
from convo.importers.agents.parts import NotMessage, Parts, Thread, TooDeep
from convo.importers.build import GLOBAL_ID_LENGTH, scoped_id


def source_key(fmt: str, raw: Any, thread: str | None, scope: str | None = None) -> str | None:
    """A source id made unique across sources: long ids (uuids) as is; short ones
    (``1``, ``m1``: unique only in their file) prefixed with the format, the file
    (``scope``, ``build.file_scope``) and the conversation: ``fmt:file:thread:id``."""
    if raw is None or isinstance(raw, bool) or not isinstance(raw, (str, int)):
        return None
    text = str(raw)
    if not text:
        return None
    if len(text) >= GLOBAL_ID_LENGTH:
        return text
    local = f"{thread}:{text}" if thread else text
    return scoped_id(fmt, scope, local)


def convert(
    obj: dict[str, Any],
    fmt: str,
    thread: Thread,
    *,
    zone: tzinfo = UTC,
    fallback_role: str = "user",
    warn: Callable[[str], None] | None = None,
    checked_later: bool = False,
    include_thinking: bool = True,
) -> ConversationMessage:
    """Convert one message object of framework ``fmt``; raises NotMessage (TooDeep).
    ``extra`` keeps only what the record's other fields do not (``_kept``). Validated by
    pydantic unless ``checked_later`` (the ingest pipeline's ``check_message``). Thinking
    blocks are chunks only with ``include_thinking`` (else they stay in ``extra.blocks``)."""
    text = _plain_text(obj, fmt)
    if text is not None and checked_later and not thread.extra and thread.when is None:
        return _plain_message(obj["role"], text, fmt, thread)
    safe = _checked_depth(obj if text is None else None, thread.extra)
    if text is not None:  # {"role", "content": "text"}: the record holds all of it
        parts = Parts(obj["role"], obj["role"], [], {}, timestamp=thread.when)
        chunks = [text]
    else:
        parts = CONVERTERS[fmt](obj, fallback_role)
        chunks = _kept(obj, parts, include_thinking, thread)
    timestamp = _time(parts.timestamp if parts.timestamp is not None else thread.when, zone, warn)
    extra = parts.extra
    thread_id = thread.id
    if isinstance(parts.thread, str) and parts.thread:
        thread_id = thread.id = parts.thread  # a session id carries on to later entries
    if thread.extra:
        extra["conversation"], thread.extra = thread.extra, None
    if not safe:  # Python objects (bytes, huge ints) from the library API
        extra = jsonable(extra)
    listeners = parts.listeners
    if listeners is None:
        listeners = thread.listeners(parts.role, parts.speaker)
    thread.heard(parts.role, parts.speaker, aside="sidechain" in parts.tags)
    fields: dict[str, Any] = {
        "tags": parts.tags,
        "timestamp": timestamp,
        "id": source_key(fmt, parts.id, thread_id, thread.scope),
        "format": fmt,
        "thread": thread_id,
        "reply_to": source_key(fmt, parts.reply_to, thread_id, thread.scope),
        "role": parts.role,
        "extra": extra,
    }
    if checked_later:
        return unchecked_message(chunks, parts.speaker, list(listeners), fields)
    return ConversationMessage(
        text_chunks=chunks,
        metadata=ConversationMessageMeta(speaker=parts.speaker, recipients=list(listeners)),
        **fields,
    )


# The most of the assistant's text kept to tell a repeated result by (a result longer
# than this is kept, repeated or not).
SAID_MAX = 1 << 20


def _check_repeat(parts: Parts, thread: Thread) -> None:
    """Raise NotMessage (bookkeeping) when ``parts`` repeats what the assistant said
    since the last other turn (a Claude Code run's result); keep that text otherwise.
    Only Claude Code's lines are kept for it, in pieces joined only for a result (adding
    each message to one string copied it all again: a conversation of 40,000 assistant
    messages in a row took a minute, quadratic), and no more than ``SAID_MAX``."""
    if "claude_code" not in parts.extra:
        return
    if parts.repeats is not None:
        said = "".join(thread.said) if thread.said_size <= SAID_MAX else ""
        if said and "".join(parts.repeats.split()) == said:
            raise NotMessage(
                "Claude Code result (its text repeats the last answer; its figures "
                "are not imported)",
                bookkeeping=True,
            )
        return
    if parts.role == "assistant" and "sidechain" not in parts.tags:
        said = "".join(b["text"] for b in parts.blocks if b.get("type") == "text"
                       and isinstance(b.get("text"), str))  # fmt: skip
        piece = "".join(said.split())
        if thread.said_size <= SAID_MAX:
            thread.said.append(piece)
        thread.said_size += len(piece)
    elif parts.role in ("user", "tool"):
        thread.said, thread.said_size = [], 0


def _time(value: Any, zone: tzinfo, warn: Callable[[str], None] | None) -> Any:
    """A message's time (``None``: none); one that does not read is warned and left unknown."""
    try:
        return parse_any(value, zone)
    except ValueError as e:
        if warn:
            warn(f"{e}; timestamp left unknown")
        return None


def plain_message(obj: Any, fmt: str, thread: Thread) -> ConversationMessage | None:
    """``convert(obj, fmt, thread, checked_later=True)`` when ``obj`` is the commonest
    message, ``{"role": ROLE, "content": "text"}`` (``_plain_text``) and no conversation
    fields wait for it; else None (the caller takes the long way). One call where the
    reader's ``_one`` and ``convert`` were five, and the message marked ``TYPED`` when
    the values that do not come from ``obj`` are of the right types too, so the
    ``Finisher`` does not check them again. With the record's and the Finisher's
    fewer calls, ``convo ingest`` of a 200k-message ``{"messages": [...]}`` file took
    0.80-1.01× the CPU of the commit before in two bench runs of 3 alternating rounds
    on a loaded machine, and 0.88× over 6 more pairs, every one faster (BENCHMARKS.md,
    chat JSON)
    (tests/importers/test_agents_stream.py holds it equal to ``_one``, and the ``TYPED``
    message's line equal to the checked one's)."""
    if type(obj) is not dict or len(obj) != 2 or thread.extra or thread.when or fmt == "autogen":
        return None
    content, role = obj.get("content"), obj.get("role")
    if type(content) is str and content and type(role) is str and role in _SAME_ROLES:
        return _plain_message(role, content, fmt, thread, typed=True)
    return None


def _plain_message(
    role: str, text: str, fmt: str, thread: Thread, *, typed: bool = False
) -> ConversationMessage:
    """``convert`` of ``{"role": role, "content": text}`` (``_plain_text``), the pipeline
    checking it later: no id, time, reply or ``extra`` (the record holds all of it).
    ``typed``: mark it ``TYPED`` if the format, the thread and the listener (a name
    from the thread's past messages) are strings (role and text are, by ``_plain_text``)."""
    listeners = thread.listeners(role, role)
    thread.heard(role, role)
    tid = thread.id
    typed = (
        typed
        and type(fmt) is str
        and type(tid) in _STR_OR_NONE
        and (not listeners or type(listeners[0]) is str)
    )
    return chat_message(text, role, listeners, fmt, tid, typed=typed)


def _kept(
    obj: dict[str, Any], parts: Parts, include_thinking: bool = True, thread: Thread | None = None
) -> list[str]:
    """The chunks of ``parts`` (a tool result named by its call, as ``thread`` saw it),
    its ``extra`` given the blocks and the original message unless the chunks and the
    role say it all."""
    if thread is not None:
        _check_repeat(parts, thread)
        thread.called(parts.blocks)
    chunks = chunks_of(parts.blocks, include_thinking, thread.tools if thread else None)
    if not _text_only(parts.blocks):
        parts.extra["blocks"] = parts.blocks
    if obj != plain_original(parts.role, chunks):
        parts.extra["original"] = obj
    return chunks


def _checked_depth(obj: Any, conversation: dict[str, Any] | None) -> bool:
    """Raise TooDeep when the message (None: known shallow) or its conversation's fields
    nest too deep; else whether both are JSON values as they are (orjson writes them)."""
    deep, safe = depth_check(obj) if obj is not None else (False, True)
    if conversation:
        deep_rest, safe_rest = depth_check(conversation, MAX_DEPTH - 1)
        deep, safe = deep or deep_rest, safe and safe_rest
    if deep:
        raise TooDeep(
            f"nested more than {MAX_DEPTH} levels deep",
            hint="convo refuses deeper JSON (a record adds two levels; orjson writes 254)",
        )
    return safe


_SAME_ROLES = frozenset(("system", "user", "assistant", "tool"))  # ROLE_MAP keeps these
_STR_OR_NONE = (str, type(None))


def _plain_text(obj: dict[str, Any], fmt: str) -> str | None:
    """The text of the commonest message, ``{"role": ROLE, "content": "text"}`` (a role
    ROLE_MAP keeps as it is, some text): every converter but AutoGen's makes it one text
    block spoken by the role, with nothing for ``extra``, and it nests one level, so
    ``convert`` takes it without the converter or the depth check (its plain twin is
    checked against it in tests/importers/test_chat_agents.py)."""
    if len(obj) != 2 or fmt == "autogen":
        return None
    content, role = obj.get("content"), obj.get("role")
    if type(content) is str and content and type(role) is str and role in _SAME_ROLES:
        return content
    return None


def _text_only(blocks: list[dict[str, Any]]) -> bool:
    """The blocks are what a reader makes of the chunks alone: one ``{"type": "text",
    "text": CHUNK}`` a chunk (``convo.output.exporters.common.blocks``)."""
    return bool(blocks) and all(
        len(b) == 2 and b.get("type") == "text" and type(b.get("text")) is str for b in blocks
    )


def wrapped(obj: Any, fmt: str, source_id: str) -> ConversationMessage:
    """An object that is no message kept as the user's text (``--lenient``)."""
    text = dumps(obj)
    return ConversationMessage(
        text_chunks=[text],
        metadata=ConversationMessageMeta(speaker="user"),
        role="user",
        format=fmt,
        source_id=source_id,
        extra={
            "lenient": True,
            "original": jsonable(obj),
            "blocks": [{"type": "text", "text": text}],
        },
    )
