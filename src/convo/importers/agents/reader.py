"""Agent-framework message formats: openai, anthropic, agentscope, langmem, autogen, jianmu.

Each format reads one JSON array of messages, one object with a ``messages`` list (a
conversation: OpenAI fine-tuning line, Anthropic request with ``system``, LangMem thread
``{id, messages, metadata}``, AutoGen TaskResult; a batch line, ``classify.batch_request``,
as the conversation it holds), a list of such conversations, one bare
message, or JSONL with one message or one conversation a line (Claude Code sessions,
AutoGen dumps, fine-tuning files). JSONL streams line by line; a JSON array (of messages
or of conversations, one conversation at a time) and a ``{"messages": [...]}`` document
stream element by element (convo.core.jsonstream), in a few passes (standard input is spooled
to a temporary file for them; the pass that learns both parties' names stops once it
knows them); anything else is read whole (up to 512 MiB).

Mapping (the chat family's conventions)
- speaker: the message's ``name`` where given, else its role as the source spells it
  (``developer`` stays ``developer``), AutoGen's ``source``, ``tool`` (or the Jianmu
  ``tool`` name) for tool results, ``summary`` for Claude Code summaries.
- role: system/user/assistant/tool. developer→system, model→assistant, function→tool,
  human→user, ai→assistant; the source spelling is kept in ``extra["original_role"]``.
  An unknown role leaves ``role`` empty. A message without a role gets ``fallback_role``
  (``user``). AutoGen: source ``user`` → user, ToolCallExecutionEvent → tool, else assistant.
- listeners, the other party of a two-party exchange: a user message → the assistant
  side's name (the latest assistant speaker, or the first one when none spoke yet, or
  ``"assistant"``); an assistant message → the user side's name (likewise, or ``"user"``);
  a tool result → the assistant side; system messages → none. An AutoGen HandoffMessage
  → its ``target``. A listener equal to the speaker is dropped.
- timestamp: Claude Code ``timestamp``, AgentScope ``timestamp`` (naive local
  ``YYYY-MM-DD HH:MM:SS.fff`` read in ``--tz``), AutoGen ``created_at``, LangMem and
  Jianmu ``metadata.timestamp`` (ISO or epoch seconds/ms). OpenAI and Anthropic API
  messages carry none: the epoch sentinel, with one warning a source.
- id: the source's id (Claude Code ``uuid``, AgentScope/AutoGen/Jianmu ``id``); ids
  shorter than 16 characters are unique only in their file (``1``, ``m1``), so they are
  scoped ``FORMAT:FILE:THREAD:ID`` (or ``FORMAT:FILE:ID``; FILE without its folder, see
  docs/ids.md); uuids stay as they are. No id (OpenAI): left empty, so the
  pipeline uses a content hash plus an occurrence counter (two "ok" in one file differ).
- thread: the conversation's ``id``/``conversation_id``/``thread_id``/``session_id``,
  Claude Code ``sessionId`` (as the source has it: exports write it back; a content-hash
  id hashes one under 16 characters, unique only in its file, as ``FILE:ID``:
  ``build.ContentIds.assign_local``); a JSONL line holding a conversation without id gets
  ``FILE#line-N``. replyTo: Claude Code ``parentUuid`` (prefixed like ids).
- source_id: ``FILE#msg-K`` (document), ``FILE#conv-C.msg-K`` (list of conversations),
  ``FILE#line-N`` (a message a line), ``FILE#line-N.msg-K`` (a conversation a line).

EXTRA CONVENTION (exporters back to each agent format rely on it)
- ``extra["original"]``: the original message object verbatim (the whole Claude Code
  envelope line; for a conversation, the message item), for lossless same-format export.
  Left out when it is ``{"role": ROLE, "content": TEXT}`` with the record's own role and
  one chunk: the record stands for it (``convo.core.fields.original`` gives it back).
- ``extra["blocks"]``: normalised content blocks, left out when they are one text block
  a chunk (readers make those from the chunks). Anthropic-like dicts: ``{"type": "text",
  "text"}``, ``{"type": "thinking", "thinking"}``, ``{"type": "redacted_thinking", "data"}``,
  ``{"type": "refusal", "refusal"}``, ``{"type": "tool_use", "id", "name", "input"}``
  (``input`` parsed to an object when the source had a JSON string, double-encoded strings
  decoded twice; when not valid JSON, ``input`` is ``{}`` and the raw string in ``input_raw``),
  ``{"type": "tool_result", "tool_use_id", "content", "is_error"}`` (+ ``name`` when
  known; ``content`` a string or a list of blocks), ``{"type": "image", "url"}`` or
  ``{"type": "image", "media_type", "data"}`` (data URLs split), ``{"type": "audio"|"video"|
  "file", ...}`` (``url`` or ``media_type``/``format`` + ``data``, or OpenAI ``file`` fields),
  ``{"type": "memory", "content", "mime_type"}`` (AutoGen); unknown block types unchanged.
- ``extra["name"]``: the source's ``name`` where it had one.
- ``extra["original_role"]``: the source's role when it was mapped.
- ``extra["conversation"]`` (on the first message of a conversation only): the
  conversation object without ``messages`` (fine-tuning ``tools``, LangMem ``metadata``,
  Anthropic ``system``/``model``...). An Anthropic ``system`` prompt also becomes a system
  message first, with ``extra["system_prompt"] = True`` and ``original = {"system": ...}``.
- ``extra["claude_code"]``: the envelope type (user/assistant/system/summary).
- AutoGen: ``extra["type"]`` and every type-specific field (``target``, ``context``,
  ``models_usage``, ``metadata``, ``request_id``, ``result``...) at the top of extra.
- LangMem: ``extra["user_id"]``; Jianmu: ``extra["tool"]``.
- ``extra["lenient"] = True`` marks a non-message object wrapped under ``--lenient``.

Readable chunks: one a block. Text as is; ``[thinking] ...`` (--include-thinking; else in
``extra.blocks`` only); ``[tool_use NAME] {json}``; ``[tool_result NAME] ...`` (``NAME error``;
``[image] URL`` or ``[image image/png, N bytes]``; other types ``[type] {json}``. Non-text
chunks are cut at 2000 characters (the original is in extra); no content: one empty chunk.

Detection (by content, the first lines or the whole head parsed): Claude Code envelopes
(``sessionId``/``parentUuid``; the SDK's ``session_id`` with ``parent_tool_use_id`` or
``subtype``) → anthropic; ``type`` + ``source`` with an AutoGen class name → autogen;
``__module__`` agentscope, ``invocation_id``, or name+role+content with an AgentScope
timestamp → agentscope; a ``tool`` key or dict content → jianmu; message ``metadata``
with ``user_id``/``timestamp``, or a thread with ``id`` and ``metadata`` → langmem;
Anthropic-only blocks (tool_use, tool_result, thinking, image source) → anthropic; any
other role+content → openai (plain role+text, valid in both, is openai). Records with
``textChunks`` (convo's JSONL) and ChatGPT exports (``mapping``) are never claimed.

Coercion: an object that is not a message is rejected (``--strict`` aborts); under
``--lenient`` it becomes a text message (its JSON, role user). Claude Code bookkeeping
entries (file-history-snapshot, queue-operation...) are skipped, one warning a kind; its
``summary`` lines are titles for the next message (``claude_code._claude_code``).
Jianmu content becomes text by Jianmu's own ``Message.to_text`` rules, its typed blocks
(``export --to jianmu``'s thinking, media) blocks again (``blocks.jianmu_body``). A
LangMem ``Message`` (``id``, ``content``, ``timestamp``, ``user``) is spoken by its
user's name, as role user.

Nesting: a message nested more than ``MAX_DEPTH`` (200) levels is rejected with its
location, never wrapped under ``--lenient`` (see ``convo.importers.agents.blocks``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from convo.core.errors import InputError, RecordError
from convo.core.io import Source, open_binary
from convo.core.jsonl import iter_lines
from convo.core.jsonstream import JsonArray
from convo.core.record import ConversationMessage
from convo.importers.agents.classify import batch_line, classify, is_container
from convo.importers.agents.dspy_history import answered
from convo.importers.agents.finish import convert, plain_message, wrapped
from convo.importers.agents.parts import (
    AGENT_FORMATS,
    NotMessage,
    Thread,
    TooDeep,
    check_message_object,
)
from convo.importers.agents.samples import spool_stdin
from convo.importers.build import ContentIds, file_scope
from convo.importers.context import ImportContext

__all__ = ["AGENT_FORMATS", "message_from_object", "read_agent_messages"]

DOC_LIMIT = 512 << 20
_THREAD_KEYS = ("id", "conversation_id", "thread_id", "session_id", "sessionId")
_Streamed = Callable[[], Generator[Any, None, None]]  # a conversation's messages, read again


# -- library API -----------------------------------------------------------------------


def message_from_object(
    obj: dict[str, Any], *, fmt: str | None = None, fallback_role: str = "user"
) -> ConversationMessage:
    """One agent-framework message dict to a ``ConversationMessage``.

    ``fmt`` is one of ``AGENT_FORMATS``; None detects it from the keys. Raises
    ``convo.core.errors.RecordError`` when ``obj`` is not a message (of that format).
    """
    if fmt is not None and fmt not in AGENT_FORMATS:
        raise RecordError(
            f"unknown agent format {fmt!r}", hint="one of " + ", ".join(AGENT_FORMATS)
        )
    if is_container(obj):
        raise RecordError(
            "a conversation, not a message",
            hint="convert each item of its 'messages' list, or ingest the file",
        )
    name = fmt or classify(obj, loose=True)
    if name is None:
        raise RecordError(
            "not an agent-framework message",
            hint="a message needs a role and content (or AutoGen type and source)",
        )
    return convert(obj, name, Thread(), fallback_role=fallback_role)


# -- reading ---------------------------------------------------------------------------


class _Reader:
    """One source read as format ``fmt``."""

    def __init__(self, source: Source, ctx: ImportContext, fmt: str):
        self.source = source
        self.ctx = ctx
        self.fmt = fmt
        self.file = file_scope(source.name)  # the scope of short message ids
        self.ids = ContentIds(source.name)  # content ids of short conversations
        self.warned_time = False
        self.stream_thread = Thread()  # messages a line share one conversation

    def read(self) -> Iterator[ConversationMessage]:
        with self.source.open() as stream:
            lines = iter_lines(stream)
            first = next(lines, None)
            if first is None:
                self.ctx.warn(self.source.name, "empty input, no messages")
                return
            try:
                value = orjson.loads(first.raw)
            except orjson.JSONDecodeError:
                yield from self._document(first.raw, lines)
                return
            yield from self._line(first.number, value, first.raw)
            for line in lines:
                try:
                    value = orjson.loads(line.raw)
                except orjson.JSONDecodeError as e:
                    reason = "truncated last line" if line.torn else "invalid JSON"
                    self.ctx.reject(
                        self.ctx.loc(line.number),
                        f"{reason} ({str(e).split(': line')[0]})",
                        line.raw,
                        "each line must be one JSON message or conversation",
                    )
                    continue
                yield from self._line(line.number, value, line.raw)

    def _document(self, head: bytes, lines: Iterator[Any]) -> Iterator[ConversationMessage]:
        """A multi-line JSON document: an array or a conversation streamed, else read whole."""
        start = head.lstrip()[:1]
        if start not in (b"[", b"{"):
            yield from self._whole(head, lines)
            return
        spool: Path | None = None
        if self.source.is_stdin:  # read again in passes: keep it on disk
            spool = spool_stdin(head, lines)
        opener: Callable[[], BinaryIO] = (
            partial(open_binary, spool) if spool is not None else self.source.open
        )
        try:
            if start == b"[":
                yield from self._stream_list(opener)
            else:
                yield from self._stream_object(opener)
        finally:
            if spool is not None:
                spool.unlink(missing_ok=True)

    def _stream_list(self, opener: Callable[[], BinaryIO]) -> Iterator[ConversationMessage]:
        """A JSON array of messages or of conversations: a first pass tells which (and
        stops at the first message once both parties are known)."""
        name = self.source.name
        thread = Thread()
        n = 0
        all_conversations = True
        with opener() as f:
            for value in JsonArray(f, where=name).values():
                n += 1
                all_conversations = all_conversations and is_container(value)
                thread.prime([value], self.fmt)
                if not all_conversations and thread.primed:
                    break
        with opener() as f:
            values = JsonArray(f, where=name).values()
            if n and all_conversations:
                for c, conv in enumerate(values, 1):
                    yield from self._conversation(
                        conv, f"conv-{c}.", None, self.ctx.thread_of(self.ctx.loc(f"conv-{c}"))
                    )
            else:
                for k, item in enumerate(values, 1):
                    msg = self._one(item, thread, f"msg-{k}")
                    if msg is not None:
                        yield msg

    def _stream_object(self, opener: Callable[[], BinaryIO]) -> Iterator[ConversationMessage]:
        """A conversation ``{"messages": [...], ...}`` streamed; one message read whole.

        Three passes: the top-level members (the messages skimmed, not kept), the
        messages up to the first that tells both parties (``Thread.prime``), then all."""
        name = self.source.name
        with opener() as f:
            top = JsonArray(f, None, where=name, skip=("messages",))
            for _ in top:
                pass
        keys = set(top.keys)
        if top.kinds.get("messages") != "[" or keys & {"role", "textChunks"}:
            with opener() as f:
                lines = iter_lines(f)
                first = next(lines)
                yield from self._whole(first.raw, lines)
            return

        def messages() -> Generator[Any, None, None]:
            with opener() as f:
                yield from JsonArray(f, ("messages",), where=name).values()

        yield from self._conversation(top.members, "", None, None, messages)

    def _whole(self, head: bytes, lines: Iterator[Any]) -> Iterator[ConversationMessage]:
        parts = [head]
        size = len(head)
        for line in lines:
            parts.append(line.raw)
            size += len(line.raw) + 1
            if size > DOC_LIMIT:
                raise InputError(
                    f"larger than {DOC_LIMIT >> 20} MiB for one JSON document",
                    where=self.source.name,
                    hint="write it as JSONL, one message or conversation a line",
                )
        try:
            value = orjson.loads(b"\n".join(parts))
        except orjson.JSONDecodeError as e:
            raise InputError(
                f"invalid JSON ({str(e).split(': line')[0]})",
                where=self.source.name,
                hint=f"expected {self.fmt} messages as a JSON array, an object or JSONL",
            ) from None
        del parts
        if isinstance(value, list) and value and all(is_container(v) for v in value):
            for c, conv in enumerate(value, 1):
                yield from self._conversation(
                    conv, f"conv-{c}.", None, self.ctx.thread_of(self.ctx.loc(f"conv-{c}"))
                )
        elif is_container(value):
            yield from self._conversation(value, "", None, None)
        elif isinstance(value, list):
            thread = Thread()
            thread.prime(value, self.fmt)
            for k, item in enumerate(value, 1):
                yield from _some(self._one(item, thread, f"msg-{k}"))
        else:
            yield from _some(self._one(value, self.stream_thread, "msg-1"))

    def _line(self, number: int, value: Any, raw: bytes) -> Iterator[ConversationMessage]:
        where = self.ctx.loc(number)
        value, failed = batch_line(value)
        if failed:
            self.ctx.reject(where, failed, raw)
            return
        if is_container(value):
            yield from self._conversation(
                value,
                f"line-{number}.",
                number,
                self.ctx.thread_of(f"{self.source.name}#line-{number}"),
            )
        elif isinstance(value, list) and value and all(is_container(v) for v in value):
            for c, conv in enumerate(value, 1):  # a list of conversations on one line
                locator = f"line-{number}.conv-{c}"
                yield from self._conversation(
                    conv, f"{locator}.", number, self.ctx.thread_of(self.ctx.loc(locator))
                )
        elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
            thread = Thread()
            thread.prime(value, self.fmt)
            for k, item in enumerate(value, 1):
                yield from _some(
                    self._one(item, thread, f"line-{number}.msg-{k}", f"{where}#msg-{k}")
                )
        else:
            yield from _some(self._one(value, self.stream_thread, f"line-{number}", where, raw))

    def _conversation(
        self,
        conv: dict[str, Any],
        prefix: str,
        line: int | None,
        default_thread: str | None,
        streamed: _Streamed | None = None,
    ) -> Iterator[ConversationMessage]:
        """One conversation; ``streamed()`` gives its messages when ``conv`` has none.
        The commonest message is made in one call (``finish.plain_message``)."""
        thread, messages = self._thread(conv, default_thread, streamed)
        messages = answered(conv, thread, messages)  # a DSPy history entry's answers
        base = self.ctx.loc(line) if line is not None else None
        system = conv.get("system")
        if system not in (None, "", []):
            yield self._system_prompt(system, thread, f"{prefix}system")
        name, fmt = f"{self.source.name}#{prefix}msg-", self.fmt
        for k, item in enumerate(messages, 1):
            msg = plain_message(item, fmt, thread)
            if msg is not None:
                msg.source_id = f"{name}{k}"
                if not self.warned_time:
                    self._note_time(msg)
                if msg.thread:
                    self.ids.assign_local(msg)
                yield msg
                continue
            msg = self._one(item, thread, f"{prefix}msg-{k}", f"{base}#msg-{k}" if base else None)
            if msg is not None:
                yield msg

    def _thread(
        self, conv: dict[str, Any], default_thread: str | None, streamed: _Streamed | None
    ) -> tuple[Thread, Iterable[Any]]:
        """A conversation's ``Thread`` (primed) and its messages."""
        tid = next((conv[k] for k in _THREAD_KEYS if isinstance(conv.get(k), (str, int))), None)
        thread = Thread(id=str(tid) if tid is not None else default_thread)
        thread.extra = {k: v for k, v in conv.items() if k != "messages"} or None
        if streamed:
            with contextlib.closing(streamed()) as first_pass:
                thread.prime(first_pass, self.fmt)
            return thread, streamed()
        thread.prime(conv["messages"], self.fmt)
        return thread, conv["messages"]

    def _system_prompt(self, system: Any, thread: Thread, locator: str) -> ConversationMessage:
        msg = convert(
            {"role": "system", "content": system},
            "anthropic",
            thread,
            zone=self.ctx.options.tz,
            checked_later=True,
        )
        assert msg.extra is not None
        msg.extra["original"] = {"system": system}
        msg.extra["system_prompt"] = True
        msg.source_id = f"{self.source.name}#{locator}"
        self._note_time(msg)
        return msg

    def _one(
        self, obj: Any, thread: Thread, locator: str, where: str | None = None, raw: Any = None
    ) -> ConversationMessage | None:
        """One message object; None when it is rejected or skipped (reported at ``where``,
        by default ``FILE#locator``)."""
        if thread.queued.pending and isinstance(obj, dict):
            thread.queued.delivered(obj)
        try:
            check_message_object(obj)
            thread.scope = self.file
            msg = convert(
                obj,
                self.fmt,
                thread,
                zone=self.ctx.options.tz,
                warn=lambda m: self.ctx.warn(where or self.ctx.loc(locator), m),
                checked_later=True,
                include_thinking=self.ctx.options.include_thinking,
            )
        except TooDeep as e:
            self._refuse(obj, locator, where, raw, e)
            return None
        except NotMessage as e:
            return self._not_message(e, obj, thread, locator, where, raw)
        msg.source_id = f"{self.source.name}#{locator}"
        if msg.timestamp is None and not self.warned_time:
            self._note_time(msg)
        if msg.thread and not msg.id:
            self.ids.assign_local(msg)
        return msg

    def _not_message(
        self, e: NotMessage, obj: Any, thread: Thread, locator: str, where: str | None, raw: Any
    ) -> ConversationMessage | None:
        """What an object that is no message gives: a Claude Code queue line the message
        it delivered (``claude_queue``), a title held for the next message, a skipped
        entry counted, under --lenient a wrapped object, else a rejection."""
        where = where or self.ctx.loc(locator)
        if e.queue is not None:
            self.stream_thread.skip(e.what, where)
            taken = thread.queued.operation(e.queue, where)
            return None if taken is None else self._one(taken, thread, locator, where, raw)
        if e.title is not None:  # kept for the next message (claude_code._claude_code)
            thread.hold(e.title, where)
        elif e.bookkeeping:
            self.stream_thread.skip(e.what, where)
        elif self.ctx.options.lenient:
            return wrapped(obj, self.fmt, f"{self.source.name}#{locator}")
        else:
            self._refuse(obj, locator, where, raw, e)
        return None

    def _refuse(
        self, obj: Any, locator: str, where: str | None, raw: Any, e: NotMessage | TooDeep
    ) -> None:
        where = where or self.ctx.loc(locator)
        self.ctx.reject(
            where, f"not a message ({self.fmt}): {e.what}", obj if raw is None else raw, e.hint
        )

    def _note_time(self, msg: ConversationMessage) -> None:
        if msg.timestamp is None and not self.warned_time:
            self.warned_time = True
            self.ctx.warn(
                self.source.name,
                "some messages carry no time; they get the epoch sentinel 1970-01-01T00:00:00Z",
            )


def _some(msg: ConversationMessage | None) -> Iterator[ConversationMessage]:
    if msg is not None:
        yield msg


def read_agent_messages(
    source: Source, ctx: ImportContext, fmt: str
) -> Iterator[ConversationMessage]:
    """Read ``source`` as agent format ``fmt`` (one of ``AGENT_FORMATS``)."""
    reader = _Reader(source, ctx, fmt)
    yield from reader.read()
    reader.stream_thread.said_untaken(ctx.warn)


def read_conversation(
    source: Source, ctx: ImportContext, fmt: str, conv: dict[str, Any], prefix: str
) -> Iterator[ConversationMessage]:
    """One conversation ``{"id", "system"?, "messages": [...]}`` a format found inside its
    own document (an AgentScope session's memory), read as ``fmt`` by the rules above;
    its messages are located ``FILE#PREFIXmsg-K``."""
    return _Reader(source, ctx, fmt)._conversation(conv, prefix, None, None)
