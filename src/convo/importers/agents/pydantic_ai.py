"""Pydantic AI message history (``pydantic-ai``): ``ModelMessagesTypeAdapter`` JSON.

Shape (pydantic/pydantic-ai ``pydantic_ai_slim/pydantic_ai/messages.py``: ``ModelMessage``
= ``ModelRequest | ModelResponse`` on the discriminator ``kind``; what
``result.all_messages_json()`` / ``ModelMessagesTypeAdapter.dump_json`` write and the
docs tell people to store): a JSON array of messages (or JSONL, a line a message or a
line a stored history, as the docs' chat app keeps them).

- ``{"kind": "request", "parts": [...], "timestamp", "instructions", "run_id",
  "conversation_id", "metadata"}``; its parts (``part_kind``): ``system-prompt``
  (``content``, ``timestamp``, ``dynamic_ref``), ``user-prompt`` (``content``: a string
  or a list of strings and ``image-url``/``audio-url``/``video-url``/``document-url``
  (``url``), ``binary`` (``data`` base64, ``media_type``), ``text-content``,
  ``uploaded-file``, ``cache-point`` items), ``tool-return`` (``tool_name``,
  ``content`` any JSON, ``tool_call_id``, ``outcome``), ``retry-prompt`` (``content``: a
  string or pydantic's error list, ``tool_name``, ``tool_call_id``), ``speech``
  (``transcript``), ``tool-availability-delta`` (``tools_added``); typed subclasses add
  ``tool_kind`` (``tool-search-return``...).
- ``{"kind": "response", "parts": [...], "usage", "model_name", "timestamp",
  "provider_name", "provider_response_id" (1.x ``vendor_id``), "provider_details"
  (``vendor_details``), "finish_reason", "run_id", "conversation_id", "state"}``; its
  parts: ``text``, ``tool-call`` and ``builtin-tool-call`` (``tool_name``, ``args``: a
  JSON string or an object, ``tool_call_id``), ``builtin-tool-return``, ``thinking``
  (``content``, ``signature``), ``file`` (``content``: binary), ``compaction``,
  ``speech``. Before 0.0.19 (January 2025) a call's ``args`` were wrapped
  (``{"args_json": "..."}`` / ``{"args_dict": {...}}``), requests had no ``timestamp``
  and ``tool_call_id`` could be null.

Decisions:
- A request is several speakers: one record a part. ``system-prompt`` → ``system``;
  ``user-prompt`` → ``user``; ``tool-return`` → ``tool`` (``[tool_result NAME] ...``,
  whole; ``NAME failed`` / ``denied`` when the outcome says so); ``retry-prompt`` with a
  tool → ``tool`` (``[tool_result NAME error] ...``), without → Pydantic AI's own
  ``pydantic-ai`` (role ``user``, tagged ``system``: the words sent to the model are the
  framework's, not the person's); ``speech`` → its ``speaker``. A request's
  ``instructions`` are a ``system`` record (``extra.kind`` ``instructions``) when they
  differ from the thread's last ones (every request repeats them).
  ``tool-availability-delta`` parts say nothing: counted, one warning a file.
- A response is one ``assistant`` record, its parts chunks in order: text as is,
  ``[tool_use NAME] {args}`` (whole), a built-in tool's return as a ``tool_result``,
  files and compactions named; thinking is private: ``extra.thinking``
  (``--include-thinking``: a ``[thinking]`` chunk).
- time = the part's ``timestamp`` (a request part), else the message's; naive times in
  ``--tz``; none (1.0 requests): the epoch sentinel, one warning a file.
- thread = ``pydantic-ai:<conversation_id>`` when the message has one (newer versions),
  else the file's name. id = ``pydantic-ai:<provider_response_id>`` for a response, a
  tool return ``pydantic-ai:<tool_call_id>:return``, else the content hash; a history
  stored again after a later run gives the same ids (the store keeps one copy); an id
  repeated on another message (a server's constant response id) is not used again:
  that message gets its content hash, one warning (the pipeline's rule, docs/ids.md).
- ``extra``: ``model`` (``model_name``), ``provider``, ``usage``, ``finish_reason``,
  ``run_id``, ``metadata``, ``blocks`` (the normalised blocks: tool calls and results
  kept whole for ``convo export``), ``tool_call_id``.
- A value that is not a message (``kind`` request or response with ``parts``) is rejected
  with its place, and so is a request part of a kind Pydantic AI does not write (each
  is a record of its own); a response part of another kind is read as ``[KIND] {...}``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import tzinfo
from typing import Any

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.blocks import block_chunk, dumps, parse_arguments, whole_chunk
from convo.importers.agents.samples import iter_samples, sample_values, sub
from convo.importers.build import file_local_id, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, NAIVE_IN_TZ, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

NAME = "pydantic-ai"
KINDS = ("request", "response")
REQUEST_PARTS = frozenset(
    ("system-prompt", "user-prompt", "tool-return", "retry-prompt", "speech",
     "tool-availability-delta")
)  # fmt: skip
RESPONSE_PARTS = frozenset(
    ("text", "tool-call", "builtin-tool-call", "builtin-tool-return", "thinking", "file",
     "compaction", "speech")
)  # fmt: skip
LISTENERS = {
    "system": ["assistant"],
    "user": ["assistant"],
    "tool": ["assistant"],
    NAME: ["assistant"],
    "assistant": ["user"],
}
_PART_KIND = re.compile(
    r'"part_kind"\s*:\s*"(?:' + "|".join(sorted(REQUEST_PARTS | RESPONSE_PARTS)) + r')"'
)
_KIND = re.compile(r'"kind"\s*:\s*"(?:request|response)"')
TEXT_KEYS = {"text": "content", "speech": "transcript"}  # a response part's text
MEDIA = {"image-url": "image", "audio-url": "audio", "video-url": "video", "document-url": "file"}


def _is_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("kind") in KINDS
        and isinstance(value.get("parts"), list)
    )


def _messages(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def sniff(source: Source) -> int:
    text = json_head_with(source, '"part_kind"')
    if not text:
        return 0
    msgs = [m for v in sample_values(text) for m in _messages(v)][:40]
    if not msgs:  # a head cut inside one large document (all_messages_json() is one line)
        return 85 if _PART_KIND.search(text) and _KIND.search(text) else 0
    good = [m for m in msgs if _is_message(m)]
    if not good or len(good) * 2 < len(msgs):
        return 0
    kinds = {as_str(as_dict(p).get("part_kind")) for m in good for p in m["parts"]}
    return 92 if kinds & (REQUEST_PARTS | RESPONSE_PARTS) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    history = _History(source, ctx)
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        nested = isinstance(sample, list)
        for k, msg in enumerate(_messages(sample), 1):
            here = sub(ctx, where, f"msg-{k}") if nested else where
            if not _is_message(msg):
                ctx.reject(here, "not a Pydantic AI message (kind request or response, parts)", msg)
                continue
            yield from history.records(msg, here)
    history.finish()


class _History:
    """One file's messages: the thread's last instructions, tool names, counts."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.source = source
        self.ctx = ctx
        self.zone: tzinfo | None = ctx.options.tz
        self.include = ctx.options.include_thinking
        self.file_thread = ctx.thread_of(source.name)
        self.instructions: dict[str, str] = {}  # thread -> its last instructions
        self.untimed = 0
        self.deltas = 0

    def records(self, msg: dict[str, Any], where: str) -> Iterator[ConversationMessage]:
        conversation = as_str(msg.get("conversation_id"))
        thread = f"{NAME}:{conversation}" if conversation else self.file_thread
        common = {
            "run_id": as_str(msg.get("run_id")) or None,
            "metadata": as_dict(msg.get("metadata")),
        }
        stamp = msg.get("timestamp") or next(
            (p["timestamp"] for p in msg["parts"] if isinstance(p, dict) and p.get("timestamp")),
            None,
        )  # 0.0.x requests: the first part's time
        if msg["kind"] == "response":
            yield self._response(msg, where, thread, common)
            return
        said = as_str(msg.get("instructions"))
        if said and self.instructions.get(thread) != said:
            self.instructions[thread] = said
            yield self._record(
                [said],
                "system",
                sub(self.ctx, where, "instructions"),
                thread,
                stamp,
                extra={**common, "kind": "instructions"},
            )
        for n, part in enumerate(as_list(msg["parts"]), 1):
            part = as_dict(part)
            here = sub(self.ctx, where, f"part-{n}")
            if part.get("part_kind") == "tool-availability-delta":
                self.deltas += 1
                continue
            rec = self._request_part(part, here, thread, stamp, common)
            if rec is not None:
                yield rec

    def _request_part(
        self, part: dict[str, Any], where: str, thread: str, stamp: Any, common: dict[str, Any]
    ) -> ConversationMessage | None:
        kind = as_str(part.get("part_kind"))
        stamp = part.get("timestamp") or stamp
        extra: dict[str, Any] = dict(common)
        if kind == "system-prompt":
            extra["dynamic_ref"] = part.get("dynamic_ref")
            return self._record(
                [as_str(part.get("content"))], "system", where, thread, stamp, extra=extra
            )
        if kind == "user-prompt":
            return self._record(
                _user_content(part.get("content")), "user", where, thread, stamp, extra=extra
            )
        if kind in ("tool-return", "retry-prompt") and (
            kind == "tool-return" or part.get("tool_name")
        ):
            return self._tool_result(part, kind, where, thread, stamp, extra)
        if kind == "retry-prompt":
            text = _retry_text(part.get("content"))
            return self._record(
                [text], NAME, where, thread, stamp, extra=extra, role="user", tags=["system"]
            )
        if kind == "speech":
            speaker = "assistant" if part.get("speaker") == "assistant" else "user"
            return self._record(
                [as_str(part.get("transcript"))], speaker, where, thread, stamp, extra=extra
            )
        self.ctx.reject(
            where, f"not a request part Pydantic AI writes ({kind or 'no part_kind'})", part
        )
        return None

    def _tool_result(
        self, part: dict[str, Any], kind: str, where: str, thread: str, stamp: Any,
        extra: dict[str, Any],
    ) -> ConversationMessage:  # fmt: skip
        name = as_str(part.get("tool_name")) or "?"
        call = as_str(part.get("tool_call_id"))
        if kind == "retry-prompt":
            content: Any = _retry_text(part.get("content"))
            flag = " error"
        else:
            content = part.get("content")
            outcome = as_str(part.get("outcome"))
            flag = f" {outcome}" if outcome and outcome != "success" else ""
        text = content if isinstance(content, str) else dumps(content)
        block = {"type": "tool_result", "tool_use_id": call or None, "name": name,
                 "content": text, "is_error": bool(flag)}  # fmt: skip
        extra.update({"blocks": [block], "tool_call_id": call, "tool_kind": part.get("tool_kind")})
        suffix = "return" if kind == "tool-return" else "retry"
        rid = f"{file_local_id(NAME, call, self.source.name)}:{suffix}" if call else None
        chunk = whole_chunk({**block, "flag": flag.strip()})
        return self._record([chunk], "tool", where, thread, stamp, extra=extra, id=rid)

    def _response(
        self, msg: dict[str, Any], where: str, thread: str, common: dict[str, Any]
    ) -> ConversationMessage:
        chunks: list[str] = []
        blocks: list[dict[str, Any]] = []
        thinking: list[str] = []
        for part in as_list(msg["parts"]):
            block = _response_block(as_dict(part))
            if block["type"] != "thinking":
                chunks.append(whole_chunk(block))
                blocks.append(block)
            elif block["thinking"] and self.include:
                chunks.append(f"[thinking] {block['thinking']}")
            elif block["thinking"]:
                thinking.append(block["thinking"])
        rid = as_str(msg.get("provider_response_id")) or as_str(msg.get("vendor_id"))
        extra = {
            **common,
            "model": msg.get("model_name"),
            "provider": msg.get("provider_name"),
            "usage": msg.get("usage"),
            "finish_reason": msg.get("finish_reason"),
            "state": msg.get("state") if msg.get("state") != "complete" else None,
            "thinking": thinking,
            "blocks": blocks if any(b.get("type") != "text" for b in blocks) else None,
        }
        return self._record(
            chunks or [""], "assistant", where, thread, msg.get("timestamp"), extra=extra,
            id=file_local_id(NAME, rid, self.source.name) if rid else None,
        )  # fmt: skip

    def _record(
        self, chunks: list[str], speaker: str, where: str, thread: str, stamp: Any, *,
        extra: dict[str, Any], id: str | None = None, role: str | None = None,
        tags: list[str] | None = None,
    ) -> ConversationMessage:  # fmt: skip
        ts = iso_ts(stamp, self.zone)
        self.untimed += ts is None
        return message(
            chunks or [""],
            speaker=speaker,
            listeners=LISTENERS.get(speaker, []),
            timestamp=ts,
            id=id,
            source_id=where,
            format=NAME,
            thread=thread,
            role=role or speaker,
            tags=tags,
            extra=extra,
        )

    def finish(self) -> None:
        name = self.source.name
        if self.deltas:
            self.ctx.warn(
                name, f"{counted(self.deltas, 'tool-availability-delta part')} not read (no text)"
            )
        if self.untimed:
            self.ctx.warn(name, "messages without a timestamp get the epoch sentinel")


def _response_block(part: dict[str, Any]) -> dict[str, Any]:
    """A response part as a normalised block (``thinking`` kept as one, for the caller)."""
    kind = as_str(part.get("part_kind"))
    if kind in TEXT_KEYS:
        return {"type": "text", "text": as_str(part.get(TEXT_KEYS[kind]))}
    if kind in ("tool-call", "builtin-tool-call"):
        server = {"server": True} if kind == "builtin-tool-call" else {}
        return {"type": "tool_use", "id": as_str(part.get("tool_call_id")) or None,
                "name": as_str(part.get("tool_name")), **parse_arguments(_args(part.get("args"))),
                **server}  # fmt: skip
    if kind == "builtin-tool-return":
        content = part.get("content")
        return {"type": "tool_result", "tool_use_id": as_str(part.get("tool_call_id")) or None,
                "name": as_str(part.get("tool_name")) or "?", "is_error": False,
                "content": content if isinstance(content, str) else dumps(content)}  # fmt: skip
    if kind == "thinking":
        return {"type": "thinking", "thinking": as_str(part.get("content"))}
    media = _file_block(as_dict(part.get("content"))) if kind == "file" else None
    rest = {k: v for k, v in part.items() if k not in ("part_kind", "provider_details")}
    return media or {**rest, "type": kind or "unknown"}


def _user_content(content: Any) -> list[str]:
    """A user prompt's chunks: text as is, media named (``[image] URL``, ``[image
    image/png, N bytes]``), cache points dropped."""
    if isinstance(content, str):
        return [content]
    chunks: list[str] = []
    for item in as_list(content) if isinstance(content, list) else [content]:
        if isinstance(item, str):
            chunks.append(item)
            continue
        item = as_dict(item)
        kind = as_str(item.get("kind"))
        if kind in MEDIA:
            chunks.append(block_chunk({"type": MEDIA[kind], "url": as_str(item.get("url"))}))
        elif kind == "binary":
            chunks.append(block_chunk(_file_block(item) or {"type": "file"}))
        elif kind == "text-content":
            chunks.append(as_str(item.get("content")))
        elif kind != "cache-point":
            chunks.append(
                block_chunk(
                    {"type": kind or "unknown", **{k: v for k, v in item.items() if k != "kind"}}
                )
            )
    return chunks


def _file_block(content: dict[str, Any]) -> dict[str, Any] | None:
    """A ``BinaryContent`` (base64 ``data``, ``media_type``) as a normalised media block."""
    if not content:
        return None
    media = as_str(content.get("media_type"))
    kind = media.split("/", 1)[0] if media.startswith(("image/", "audio/", "video/")) else "file"
    return {"type": kind, "media_type": media or None, "data": as_str(content.get("data")) or None,
            "filename": as_str(content.get("identifier")) or None}  # fmt: skip


def _args(args: Any) -> Any:
    """A tool call's ``args``; 0.0.x wrapped them (``{"args_json": "..."}``,
    ``{"args_dict": {...}}``)."""
    if isinstance(args, dict) and len(args) == 1:
        if isinstance(args.get("args_json"), str):
            return args["args_json"]
        if isinstance(args.get("args_dict"), dict):
            return args["args_dict"]
    return args


def _retry_text(content: Any) -> str:
    """A retry prompt: its string, or pydantic's error list one error a line (``loc: msg``)."""
    if isinstance(content, str):
        return content
    lines = []
    for error in as_list(content):
        e = as_dict(error)
        loc = ".".join(as_str(x) for x in as_list(e.get("loc")))
        msg = as_str(e.get("msg")) or dumps(error)
        lines.append(f"{loc}: {msg}" if loc else msg)
    return "\n".join(lines) if lines else dumps(content)


DESCRIPTION = "Pydantic AI message history (ModelMessagesTypeAdapter JSON: request/response parts)"
EXAMPLE = (
    '[{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "Hi", '
    '"timestamp": "2025-05-01T09:00:00Z"}]}]'
)
FIELDS = Fields(
    speaker="a request part's kind (`system`, `user`, `tool`; a retry prompt without a tool "
    "`pydantic-ai`); a response `assistant`",
    listeners="`assistant`; the assistant → `user`",
    time="the part's `timestamp`, else the message's; else the epoch sentinel, with one "
    "warning a file",
    zone="the offset the source writes (UTC `Z`); " + NAIVE_IN_TZ,
    thread="`pydantic-ai:<conversation_id>`, else the file's name",
    id="`pydantic-ai:<provider_response_id>` (a response), `pydantic-ai:<tool_call_id>:return` "
    "/ `:retry` (a tool's answer), else " + CONTENT_HASH,
    scope="provider response ids and tool call ids: the world; content hashes: the thread",
    tags="`system` on Pydantic AI's own retry prompts",
    extra="`model`, `provider`, `usage`, `finish_reason`, `run_id`, `metadata`, `blocks` "
    "(tool calls and results whole), `tool_call_id`, `kind` (`instructions`); thinking in "
    "`thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
