"""Goose sessions (``goose``): ``~/.local/share/goose/sessions/<session>.jsonl``; its
SQLite store (``sessions.db``, Goose 1.10 on) is read as those files by ``goose_db``.

Shape (block/goose ``crates/goose/src/session/legacy.rs``, which reads the files Goose
wrote before its SQLite store and still imports; messages from
``crates/goose/src/conversation/message.rs``): JSON lines, the first the session's
metadata (``{"working_dir", "description", "schedule_id", "message_count",
"total_tokens", "input_tokens", "output_tokens", "accumulated_*"}``; the earliest files
have none), then one ``Message`` a line: ``{"id", "role": user | assistant, "created":
epoch seconds, "content": [...], "metadata": {"userVisible", "agentVisible"}}``.
Content (``type``, camelCase): ``text``, ``image`` (``data``, ``mimeType``),
``toolRequest`` (``id``, ``toolCall``: ``{"status": "success", "value": {"name",
"arguments"}}`` or ``{"status": "error", "error"}``), ``toolResponse`` (``id``,
``toolResult``: ``{"status": "success", "value": [content]}``, newer ``"value":
{"content": [...], "isError"}``, or an error), ``toolConfirmationRequest``,
``actionRequired``, ``frontendToolRequest``, ``thinking``, ``redactedThinking``,
``systemNotification``; before 1.0 also ``contextLengthExceeded``,
``summarizationRequested`` and ``conversationCompacted``.

Decisions:
- One record a message; speaker = the role; a user message holding only tool responses
  is the ``tool``'s (``extra.original_role``); listeners the other party.
- Chunks in order: text as is; ``[tool_use NAME] {arguments}`` and ``[tool_result NAME]
  output`` (the name of the request it answers; ``error`` flagged), whole; images named;
  a confirmation or an action asked of the person as ``[tool_confirmation NAME] {...}``
  / ``[action_required KIND] ...``; notifications and the old context markers as
  ``[KIND] msg`` (tagged ``system``). Thinking is private: ``extra.thinking``
  (``--include-thinking``: ``[thinking]`` chunks).
- Visibility: a message only the agent saw is tagged ``agent-only``, one only the person
  saw (compacted away from the agent) ``user-only``, one neither sees ``archived``.
- time = ``created`` (epoch seconds, UTC).
- thread = ``goose:<session>`` (the file's name without ``.jsonl``: Goose names sessions
  by their start, ``20250301_101500``, or as the person asked). id = ``goose:<id>``
  when the message has one (newer versions; a repeated one on other text: the content
  hash), else the content hash.
- The metadata line: ``description`` is the first message's subject, the rest in its
  ``extra.session``.
- A line that is not JSON or not a message is rejected with its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC
from pathlib import PurePath
from typing import Any

from convo.core.compression import strip_compressed
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents import goose_db
from convo.importers.agents.blocks import block_chunk, dumps, whole_chunk
from convo.importers.agents.samples import sample_values
from convo.importers.build import OwnIds, file_local_id, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head, json_lines
from convo.importers.registry import Format

NAME = "goose"
ROLES = ("user", "assistant")
OTHER = {"user": ["assistant"], "assistant": ["user"], "tool": ["assistant"]}
_MARKERS = re.compile(
    r'"type"\s*:\s*"(?:toolRequest|toolResponse|redactedThinking|toolConfirmationRequest|'
    r'frontendToolRequest|systemNotification|contextLengthExceeded|summarizationRequested)"'
    r'|"(?:userVisible|agentVisible)"\s*:'
)
NOTICES = (
    "systemNotification",
    "contextLengthExceeded",
    "summarizationRequested",
    "conversationCompacted",
)
VISIBILITY = {(False, True): "agent-only", (True, False): "user-only", (False, False): "archived"}


def _is_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("role") in ROLES
        and isinstance(value.get("created"), int)
        and not isinstance(value.get("created"), bool)
        and isinstance(value.get("content"), list)
    )


def _is_metadata(value: Any) -> bool:
    return isinstance(value, dict) and "working_dir" in value and "role" not in value


def sniff(source: Source) -> int:
    if source.head.startswith(goose_db.MAGIC):
        return 90 if goose_db.is_goose_db(source) else 0
    return _sniff_lines(json_head(source))


def _sniff_lines(text: str) -> int:
    if not text.startswith("{"):
        return 0
    values = sample_values(text)
    if values and _is_metadata(values[0]):
        values = values[1:]
        if not values:
            return 90 if "description" in text else 0
    good = [v for v in values if _is_message(v)]
    if not good or len(good) * 2 < len(values):
        return 0
    if _MARKERS.search(text):
        return 90
    # only text: the message's own keys say Goose (an OpenAI message has no "created")
    plain = len(good) == len(values) and all(
        set(v) <= {"id", "role", "created", "content"} for v in good
    )
    return 78 if plain else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if source.head.startswith(goose_db.MAGIC):
        yield from _read_db(source, ctx)
        return
    session = _Session(source, ctx)
    for number, where, value in json_lines(source, ctx):
        if number == 1 and _is_metadata(value):
            session.meta = value
            continue
        if not _is_message(value):
            ctx.reject(where, "not a Goose message (role, created, content)", value)
            continue
        yield session.record(value, where)
    session.finish()


def _read_db(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """Goose's ``sessions.db`` (``goose_db``): each session as a session file."""
    session: _Session | None = None
    for sid, meta, where, msg in goose_db.sessions(source):
        if where is None:  # a session starts
            if session is not None:
                session.finish()
            session = _Session(source, ctx)
            session.thread = f"{NAME}:{sid}"
            title = meta.get("name") or meta.get("description")
            session.meta = {k: v for k, v in meta.items() if k != "name"}
            if title:
                session.meta["description"] = title
        elif session is not None and _is_message(msg):
            yield session.record(msg, where)
        else:
            ctx.reject(where, "not a Goose message (role, created, content)", msg)
    if session is not None:
        session.finish()


class _Session:
    """One session file: its thread, metadata (for the first record), tool names."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.source = source
        self.ctx = ctx
        stem = strip_compressed(PurePath(source.name).name).removesuffix(".jsonl")
        self.thread = (
            f"{NAME}:{stem}" if stem and not source.is_stdin else ctx.thread_of(source.name)
        )
        self.meta: dict[str, Any] | None = None
        self.first = True
        self.tools: dict[str, str] = {}
        self.own = OwnIds()

    def record(self, msg: dict[str, Any], where: str) -> ConversationMessage:
        role = msg["role"]
        parts = [as_dict(p) for p in msg["content"]]
        kinds = {as_str(p.get("type")) for p in parts}
        speaker = "tool" if role == "user" and kinds == {"toolResponse"} else role
        chunks, thinking, tags = self._chunks(parts)
        seen = as_dict(msg.get("metadata"))
        shown = (
            seen.get("userVisible", True) is not False,
            seen.get("agentVisible", True) is not False,
        )
        tags += [VISIBILITY[shown]] if shown in VISIBILITY else []
        meta = dict(self.meta or {}) if self.first else {}
        self.first = False
        own = as_str(msg.get("id"))
        return message(
            chunks or [""],
            speaker=speaker,
            listeners=OTHER.get(speaker, []),
            timestamp=_time(msg["created"]),
            id=self.own.checked(
                file_local_id(NAME, own, self.source.name) if own else None, chunks
            ),
            source_id=where,
            format=NAME,
            thread=self.thread,
            subject=as_str(meta.pop("description", None)) or None,
            role=speaker,
            tags=tags,
            extra={
                "original_role": role if speaker != role else None,
                "thinking": thinking,
                "session": meta,
            },
        )

    def _chunks(self, parts: list[dict[str, Any]]) -> tuple[list[str], list[str], list[str]]:
        include = self.ctx.options.include_thinking
        chunks: list[str] = []
        thinking: list[str] = []
        tags: list[str] = []
        for part in parts:
            kind = as_str(part.get("type"))
            if kind in ("thinking", "redactedThinking"):
                said = as_str(part.get("thinking")) or "[redacted]"
                (chunks if include else thinking).append(f"[thinking] {said}" if include else said)
                continue
            if kind in NOTICES:
                tags.append("system")
            make = _PARTS.get(kind)
            chunks.append(
                make(self, part) if make else block_chunk({**part, "type": kind or "unknown"})
            )
        return chunks, thinking, tags

    def _request(self, part: dict[str, Any]) -> str:
        call = as_dict(part.get("toolCall"))
        value = as_dict(call.get("value"))
        name = as_str(value.get("name")) or as_str(part.get("id"))
        self.tools[as_str(part.get("id"))] = name
        if call.get("status") == "error":
            return f"[tool_use {name} error] {as_str(call.get('error'))}"
        return whole_chunk(
            {"type": "tool_use", "name": name, "input": value.get("arguments") or {}}
        )

    def _response(self, part: dict[str, Any]) -> str:
        result = as_dict(part.get("toolResult"))
        name = self.tools.get(as_str(part.get("id"))) or as_str(part.get("id"))
        if result.get("status") == "error":
            return whole_chunk({"type": "tool_result", "name": name, "content": as_str(result.get("error")),
                                "is_error": True})  # fmt: skip
        value = result.get("value")
        inner = value.get("content") if isinstance(value, dict) else value
        error = isinstance(value, dict) and value.get("isError") is True
        text = "\n".join(_content_text(as_dict(c)) for c in as_list(inner))
        return whole_chunk(
            {"type": "tool_result", "name": name, "content": text, "is_error": error}
        )

    def finish(self) -> None:
        self.own.close()
        if self.own.clashes:
            self.ctx.warn(self.source.name, self.own.warning())


def _content_text(c: dict[str, Any]) -> str:
    """An MCP content item of a tool's output: its text, a resource's text, else named."""
    if c.get("type") == "text":
        return as_str(c.get("text"))
    if c.get("type") == "resource":
        res = as_dict(c.get("resource"))
        return as_str(res.get("text")) or f"[resource {as_str(res.get('uri'))}]"
    return (
        _image(c)
        if c.get("type") == "image"
        else block_chunk({**c, "type": as_str(c.get("type")) or "unknown"})
    )


def _image(part: dict[str, Any]) -> str:
    return block_chunk({"type": "image", "media_type": as_str(part.get("mimeType")) or None,
                        "data": part.get("data")})  # fmt: skip


def _confirmation(_: _Session, part: dict[str, Any]) -> str:
    return f"[tool_confirmation {as_str(part.get('toolName'))}] {dumps(part.get('arguments'))}"


def _action(_: _Session, part: dict[str, Any]) -> str:
    data = as_dict(part.get("data"))
    said = (
        as_str(data.get("message"))
        or as_str(data.get("prompt"))
        or dumps(data.get("arguments", data.get("userData")))
    )
    return f"[action_required {as_str(data.get('actionType')) or '?'}] {said}"


def _notice(_: _Session, part: dict[str, Any]) -> str:
    return f"[{part['type']}] {as_str(part.get('msg'))}".rstrip()


_PARTS: dict[str, Callable[[_Session, dict[str, Any]], str]] = {
    "text": lambda _, p: as_str(p.get("text")),
    "image": lambda _, p: _image(p),
    "toolRequest": _Session._request,
    "frontendToolRequest": _Session._request,
    "toolResponse": _Session._response,
    "toolConfirmationRequest": _confirmation,
    "actionRequired": _action,
    **dict.fromkeys(NOTICES, _notice),
}


def _time(created: int) -> str | None:
    try:
        return parse_any(created, UTC)
    except ValueError:
        return None


DESCRIPTION = "Goose sessions (~/.local/share/goose/sessions/*.jsonl, and sessions.db since 1.10)"
EXAMPLE = (
    '{"working_dir": "/Users/ann/app", "description": "Fix the tests", "message_count": 1}\n'
    '{"role": "user", "created": 1740171566, "content": [{"type": "text", "text": "hi"}], '
    '"metadata": {"userVisible": true, "agentVisible": true}}'
)
FIELDS = Fields(
    speaker="the role; a user message of tool responses only: `tool`",
    listeners="the other party; a tool's output → the assistant",
    time="`created` (epoch seconds)",
    zone="epoch seconds: UTC",
    thread="`goose:<session>` (the file's name; in sessions.db the session's id, the same)",
    id="`goose:<id>` when the message has one (short: `goose:<file>:<id>`), else " + CONTENT_HASH,
    scope="the session (its file)",
    subject="the session's `description`, on its first message",
    tags="`agent-only`, `user-only`, `archived` (visibility); `system` on notifications",
    extra="`session` (the metadata line), `original_role`; thinking in `thinking` unless "
    "`--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.jsonl", "sessions.db", "*.db"), sniff, read, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
