"""Vercel AI SDK UI messages (``vercel-ai``): ``{id, role, parts: [...]}``.

Shape (vercel/ai ``packages/ai/src/ui/ui-messages.ts``, AI SDK 5 ``UIMessage``; and the
AI SDK 4 ``Message`` of ``packages/ui-utils``): ``role`` system / user / assistant;
``parts``: ``text`` (``text``, ``state``), ``reasoning`` (``text``; v4 ``reasoning`` +
``details``), ``tool-NAME`` (``toolCallId``, ``state`` input-streaming / input-available
/ output-available / output-error, ``input``, ``output``, ``errorText``),
``dynamic-tool`` (+ ``toolName``), v4 ``tool-invocation`` (``toolInvocation: {state,
toolCallId, toolName, args, result}``), ``source-url`` / ``source-document`` (v4
``source``), ``file`` (``mediaType``/``mimeType``, ``url``/``data``, ``filename``),
``step-start``, ``data-NAME``; v4 adds ``content``, ``createdAt`` and
``experimental_attachments``. A JSON array of messages (streamed), a chat object
``{"id", "messages": [...]}`` (as apps persist it), JSONL, or one message.

Decisions:
- speaker = role; listeners user ↔ assistant; id = ``vercel-ai:<id>`` (the SDK's
  ids are 16-character nanoids; a shorter one, unique only in its file, is
  ``vercel-ai:<file>:<id>``: docs/ids.md); timestamp = v4 ``createdAt`` or ``metadata.createdAt`` when present, else the epoch sentinel with one
  warning a source; thread = the chat ``id`` (else the file, ``FILE#line-N`` per JSONL
  chat).
- Chunks in part order: text as is; a tool part ``[tool_use NAME] {input}`` and, when it
  has one, its result ``[tool_result NAME] ...`` (``NAME error`` with ``errorText``);
  files ``[image URL]`` / ``[file NAME]`` (data URLs shortened); attachments likewise.
  Without text parts, v4 ``content`` is the text. ``step-start`` is structure (dropped);
  sources go to ``extra.sources``, ``data-*`` parts to ``extra.data``, message
  ``metadata`` to ``extra.metadata``; tool parts are kept whole in ``extra.tools``.
- Reasoning is private: ``extra.thinking``, never the text (``[thinking]`` chunks with
  ``ImportOptions.include_thinking``, ``--include-thinking``).
- Anything that is not a message with ``role`` and ``parts`` is rejected with its
  location.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import tzinfo
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.blocks import block_chunk, dumps
from convo.importers.agents.samples import iter_samples, messages_of, sample_values, sub
from convo.importers.build import ContentIds, file_local_id, message
from convo.importers.context import ImportContext
from convo.importers.fields import NAIVE_IN_TZ, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

NAME = "vercel-ai"
ROLES = ("system", "user", "assistant")
OTHER = {"user": ["assistant"], "assistant": ["user"]}
MARKERS = ("text", "reasoning", "step-start", "tool-invocation", "dynamic-tool", "file")


def _is_message(obj: Any) -> bool:
    if not isinstance(obj, dict) or obj.get("role") not in ROLES:
        return False
    parts = obj.get("parts")
    return (
        isinstance(parts, list)
        and bool(parts)
        and all(isinstance(p, dict) and isinstance(p.get("type"), str) for p in parts)
    )


def sniff(source: Source) -> int:
    text = json_head_with(source, '"parts"')
    if not text:
        return 0
    msgs = [m for v in sample_values(text) for m in messages_of(v)][:60]
    good = [m for m in msgs if _is_message(m)]
    if not good or len(good) * 2 < len(msgs):
        return 0
    kinds = {p["type"] for m in good for p in m["parts"]}
    ui = any(k in MARKERS or k.startswith(("tool-", "data-", "source")) for k in kinds)
    return 88 if ui else 0


def _is_v4_text(msg: Any) -> bool:
    """An AI SDK 4 message with ``content`` and no parts."""
    return isinstance(msg, dict) and msg.get("role") in ROLES and "content" in msg


def _chat_of(sample: Any, loc: str, where: str, name: str) -> tuple[bool, str]:
    """(whether the sample holds several messages, the thread of its messages)."""
    chat = isinstance(sample, dict) and isinstance(sample.get("messages"), list)
    nested = chat or isinstance(sample, list)
    thread = as_str(sample.get("id")) if chat else ""
    return nested, thread or (where if nested and loc.startswith("line-") else name)


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """Read; reasoning goes to extra, or to ``[thinking]`` chunks with
    ``ctx.options.include_thinking``."""
    include_thinking = ctx.options.include_thinking
    ids = ContentIds(source.name)
    untimed = 0
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        nested, thread = _chat_of(sample, loc, where, source.name)
        thread = ctx.thread_of(thread)
        for k, msg in enumerate(messages_of(sample), 1):
            here = sub(ctx, where, f"msg-{k}") if nested else where
            if not _is_message(msg) and not _is_v4_text(msg):
                ctx.reject(here, "not an AI SDK UI message (role and parts)", msg)
                continue
            rec = _record(msg, here, (thread, source.name), include_thinking, ctx.options.tz)
            ids.assign_local(rec)  # a short chat id is unique only in its file
            untimed += rec.timestamp is None
            yield rec
    if untimed:
        ctx.warn(source.name, "UI messages without createdAt get the epoch sentinel")


def _record(
    msg: dict[str, Any], loc: str, where: tuple[str, str], include: bool, zone: tzinfo
) -> ConversationMessage:
    """A UI message; ``where`` = its chat (the thread) and the source's name."""
    thread, source_name = where
    role = as_str(msg["role"])
    acc = _Parts(include)
    for part in as_list(msg.get("parts")):
        acc.add(as_dict(part))
    if not acc.has_text and isinstance(msg.get("content"), str):
        acc.chunks.insert(0, msg["content"])
    for att in as_list(msg.get("experimental_attachments")):
        a = as_dict(att)
        acc.chunks.append(
            _file_chunk(as_str(a.get("contentType")), as_str(a.get("url")), as_str(a.get("name")))
        )
    meta = as_dict(msg.get("metadata"))
    mid = as_str(msg.get("id"))
    return message(
        acc.chunks,
        speaker=role,
        listeners=OTHER.get(role, []),
        timestamp=iso_ts(msg.get("createdAt"), zone) or iso_ts(meta.get("createdAt"), zone),
        id=file_local_id(NAME, mid, source_name) if mid else None,
        source_id=loc,
        format=NAME,
        thread=thread,
        role=role,
        extra={
            "thinking": acc.thinking,
            "tools": acc.tools,
            "sources": acc.sources,
            "data": acc.data,
            "metadata": meta,
            "annotations": as_list(msg.get("annotations")),
        },
    )


class _Parts:
    """Chunks and extras from one message's parts."""

    def __init__(self, include: bool):
        self.include = include
        self.chunks: list[str] = []
        self.thinking: list[str] = []
        self.tools: list[dict[str, Any]] = []
        self.sources: list[dict[str, Any]] = []
        self.data: list[dict[str, Any]] = []
        self.has_text = False

    def add(self, part: dict[str, Any]) -> None:
        kind = as_str(part.get("type"))
        if kind == "text":
            self.has_text = True
            self.chunks.append(as_str(part.get("text")))
        elif kind == "reasoning":
            self._reasoning(part)
        elif kind.startswith("tool-") or kind == "dynamic-tool":
            self._tool(part, kind)
        elif kind.startswith("source"):
            self.sources.append(as_dict(part.get("source")) or part)
        elif kind == "file":
            mime = as_str(part.get("mediaType")) or as_str(part.get("mimeType"))
            url = as_str(part.get("url")) or as_str(part.get("data"))
            self.chunks.append(_file_chunk(mime, url, as_str(part.get("filename"))))
        elif kind.startswith("data-"):
            self.data.append(part)
        elif kind != "step-start":
            self.chunks.append(block_chunk(part))

    def _reasoning(self, part: dict[str, Any]) -> None:
        text = as_str(part.get("text")) or as_str(part.get("reasoning"))
        if not text:
            details = [as_str(as_dict(d).get("text")) for d in as_list(part.get("details"))]
            text = "\n".join(d for d in details if d)
        if not text:
            return
        if self.include:
            self.chunks.append(f"[thinking] {text}")
        else:
            self.thinking.append(text)

    def _tool(self, part: dict[str, Any], kind: str) -> None:
        inv = as_dict(part.get("toolInvocation")) or part
        name = as_str(inv.get("toolName")) or (
            kind[len("tool-") :] if kind.startswith("tool-") else ""
        )
        call_input = inv.get("input", inv.get("args"))
        self.tools.append(part)
        self.chunks.append(
            block_chunk({"type": "tool_use", "name": name, "input": call_input or {}})
        )
        label = name or as_str(inv.get("toolCallId"))
        if as_str(inv.get("errorText")):
            self.chunks.append(f"[tool_result {label} error] {inv['errorText']}")
        elif "output" in inv or "result" in inv:
            out = inv.get("output", inv.get("result"))
            self.chunks.append(
                f"[tool_result {label}] {out if isinstance(out, str) else dumps(out)}"
            )


def _file_chunk(mime: str, url: str, name: str) -> str:
    ref = url if not url.startswith("data:") else (name or f"{mime} data")
    kind = "image" if mime.startswith("image/") else "file"
    if kind == "image" and ref:
        return f"[image] {ref}"
    return f"[file {name or ref}]".replace(" ]", "]")


DESCRIPTION = "Vercel AI SDK UI messages (role, parts: text, reasoning, tool-*, file)"
EXAMPLE = '[{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "Hi"}]}]'
FIELDS = Fields(
    speaker="the role",
    listeners="user ↔ assistant",
    time="v4 `createdAt` or `metadata.createdAt`; else the epoch sentinel, with one "
    "warning a source",
    zone="the offset the source writes (UTC `Z`); " + NAIVE_IN_TZ,
    thread="the chat's `id`, else the file's name without its folder (`FILE#line-N` "
    "per JSONL chat; a generic name with its folder, docs/ids.md)",
    id="`vercel-ai:<id>`; a short one (under 16 characters) `vercel-ai:<file>:<id>`",
    scope="the SDK's 16-character nanoids: the world; shorter ones: the file (its name)",
    extra="`tools` (tool parts whole), `sources`, `data` (`data-*` parts), `metadata`; "
    "reasoning in `thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
