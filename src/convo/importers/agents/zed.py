"""Zed's saved assistant conversations (``zed``): ``~/.config/zed/conversations/<summary> -
<n>.zed.json``.

Shape (zed-industries/zed ``crates/assistant_context/src/assistant_context.rs``,
``SavedContext`` and its upgrades; written by ``AssistantContext::save``): one JSON
object ``{"id" (a UUID), "zed": "context", "version", "text", "messages", "summary",
"slash_command_output_sections", "thought_process_output_sections"}``. The whole
conversation is one text buffer, ``text``; each message says where it starts
(``start``, a UTF-8 byte offset) and runs to the next one's start. Version 0.4.0:
``messages: [{"id": {"replica_id", "value"}, "start", "metadata": {"role", "status",
"timestamp": {"replica_id", "value"}}}]``; 0.1.0-0.3.0: ``messages: [{"id": n,
"start"}]`` and ``message_metadata: {"n": {"role", "status"}}`` (0.1.0 also ``model``
and ``api_url``; ``slash_command_output_sections`` since 0.3.0, the thought sections
since 0.4.0). ``role``: ``user``, ``assistant``, ``system``; ``status``: ``"Done"``,
``"Pending"``, ``"Canceled"`` or ``{"Error": "..."}``. A slash command's output section
(``{"range": {"start", "end"}, "icon", "label", "metadata"}``) is text a ``/file``,
``/fetch``... put in the buffer; a thought section the model's reasoning.

Decisions:
- One record a message, in buffer order, its text the buffer's range with the newline
  Zed puts between messages left off; speaker the role → the other party. A message
  without metadata (Zed drops it too) is rejected with its place.
- The thought sections inside an assistant's message are private: cut out into
  ``extra.thinking`` (``--include-thinking``: kept in place, as a ``[thinking]``
  chunk).
- The slash command sections inside a message stay in its text (the model read them);
  their labels go to ``extra.sections``.
- Status: an error tagged ``error``, its message an ``[error] ...`` chunk (and
  ``extra.error``); pending or canceled in ``extra.status``.
- time: Zed records none (the ids and ``timestamp`` are Lamport clocks): no time, one
  warning a file.
- thread = ``zed:<id>`` (else the file's name without `` - <n>.zed.json``); subject =
  ``summary`` on the first record. id = ``zed:<id>:<replica>-<value>`` (before 0.4.0
  ``zed:<id>:<n>``); without a conversation id the content hash.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from convo.core.compression import strip_compressed
from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.importers.build import OwnIds, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head
from convo.importers.registry import Format

NAME = "zed"
OTHER = {"user": ["assistant"], "assistant": ["user"], "system": ["assistant"]}
_HEAD = re.compile(r'"zed"\s*:\s*"context"')
_SUFFIX = re.compile(r"(?: - \d+)?\.zed\.json\Z")


def sniff(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{") or not _HEAD.search(text):
        return 0
    return 95  # "zed": "context" is Zed's own mark


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = load_json(source)
    if not isinstance(doc, dict) or not isinstance(doc.get("text"), str):
        ctx.reject(source.name, "not a Zed conversation (an object with its text)", doc)
        return
    yield from _Conversation(source, ctx, doc).records()


def _ranges(sections: Any) -> list[tuple[int, int, dict[str, Any]]]:
    out = []
    for section in as_list(sections):
        section = as_dict(section)
        span = as_dict(section.get("range"))
        start, end = _offset(span.get("start")), _offset(span.get("end"))
        if start is not None and end is not None and start <= end:
            out.append((start, end, section))
    return out


def _offset(value: Any) -> int | None:
    """A byte offset (a non-negative integer), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


class _Conversation:
    def __init__(self, source: Source, ctx: ImportContext, doc: dict[str, Any]):
        self.source = source
        self.ctx = ctx
        self.doc = doc
        self.text = doc["text"].encode("utf-8", "surrogatepass")
        own = as_str(doc.get("id"))
        stem = _SUFFIX.sub("", strip_compressed(PurePath(source.name).name))
        self.scope = own or None
        self.thread = f"{NAME}:{own or stem}" if (own or stem) and not source.is_stdin else ctx.thread_of(source.name)  # fmt: skip
        self.commands = _ranges(doc.get("slash_command_output_sections"))
        self.thoughts = _ranges(doc.get("thought_process_output_sections"))
        self.own = OwnIds()

    def _messages(self) -> list[tuple[int, str, dict[str, Any], str]]:
        """(start, local id, metadata, where) of each message with its metadata, by start."""
        metadata = as_dict(self.doc.get("message_metadata"))
        out = []
        for n, item in enumerate(as_list(self.doc.get("messages"))):
            item = as_dict(item)
            where = f"{self.source.name}:messages[{n}]"
            raw_id, start = item.get("id"), _offset(item.get("start"))
            meta = item.get("metadata")
            if meta is None and isinstance(raw_id, int):
                meta = metadata.get(str(raw_id))
            meta = as_dict(meta)
            role = meta.get("role")
            if start is None or not isinstance(role, str) or role not in OTHER:
                self.ctx.reject(where, "not a Zed message (start, a role in its metadata)", item)
                continue
            local = (
                f"{as_str(raw_id.get('replica_id'))}-{as_str(raw_id.get('value'))}"
                if isinstance(raw_id, dict)
                else as_str(raw_id)
            )
            out.append((start, local, meta, where))
        out.sort(key=lambda m: m[0])
        return out

    def records(self) -> Iterator[ConversationMessage]:
        found = self._messages()
        summary = as_str(self.doc.get("summary")) or None
        for i, (start, local, meta, where) in enumerate(found):
            end = found[i + 1][0] if i + 1 < len(found) else len(self.text)
            first = i == 0
            yield self._record(start, max(start, end), local, meta, where, first, summary)
        self.own.close()
        if found:
            self.ctx.warn(self.source.name, "Zed records no times: its messages have none")
        if self.own.clashes:
            self.ctx.warn(self.source.name, self.own.warning())

    def _cut(self, start: int, end: int, role: str) -> tuple[list[str], list[str]]:
        """The message's chunks and its private thinking (the thought sections inside)."""
        include = self.ctx.options.include_thinking
        chunks: list[str] = []
        thinking: list[str] = []
        at = start
        inside = [(s, e) for s, e, _ in self.thoughts if start <= s < end] if role == "assistant" else []  # fmt: skip
        for s, e in sorted(inside):
            if s < at:
                continue
            chunks.append(self._slice(at, s))
            said = self._slice(s, min(e, end)).strip()
            if said:
                (chunks if include else thinking).append(f"[thinking] {said}" if include else said)
            at = min(e, end)
        chunks.append(self._slice(at, end))
        return [c.strip("\n") for c in chunks if c.strip()], thinking

    def _slice(self, start: int, end: int) -> str:
        return self.text[start:end].decode("utf-8", "replace")

    def _record(
        self,
        start: int,
        end: int,
        local: str,
        meta: dict[str, Any],
        where: str,
        first: bool,
        summary: str | None,
    ) -> ConversationMessage:
        role = meta["role"]
        chunks, thinking = self._cut(start, end, role)
        status = meta.get("status")
        failed = isinstance(status, dict)
        error = as_str(as_dict(status).get("Error")) if failed else None
        if failed:
            chunks.append(f"[error] {error}".rstrip())
        own = f"{NAME}:{self.scope}:{local}" if self.scope and local else None
        return message(
            chunks or [""],
            speaker=role,
            listeners=OTHER[role],
            timestamp=None,
            id=self.own.checked(own, chunks),
            source_id=where,
            format=NAME,
            thread=self.thread,
            subject=summary if first else None,
            role=role,
            tags=["error"] if failed else [],
            extra={
                "error": error,
                "status": status if isinstance(status, str) and status != "Done" else None,
                "sections": self._labels(start, end) or None,
                "thinking": thinking or None,
                **(self._first() if first else {}),
            },
        )

    def _labels(self, start: int, end: int) -> list[dict[str, Any]]:
        """The slash command sections starting in the message: label and icon."""
        return [
            {"label": as_str(s.get("label")), "icon": as_str(s.get("icon")) or None}
            for a, _, s in self.commands
            if start <= a < end
        ]

    def _first(self) -> dict[str, Any]:
        """What the first record carries of the conversation: its version and model."""
        return {"version": as_str(self.doc.get("version")) or None, "model": self.doc.get("model")}


DESCRIPTION = "Zed's saved assistant conversations (~/.config/zed/conversations/*.zed.json)"
EXAMPLE = (
    '{"id": "…", "zed": "context", "version": "0.4.0", "text": "hi\\nhello", "messages": '
    '[{"id": {"replica_id": 0, "value": 0}, "start": 0, "metadata": {"role": "user", '
    '"status": "Done", "timestamp": {"replica_id": 0, "value": 0}}}], "summary": "Greeting", '
    '"slash_command_output_sections": []}'
)
FIELDS = Fields(
    speaker="the message's role (`user`, `assistant`, `system`)",
    listeners="the other party",
    time="none: Zed records no times (its timestamps are Lamport clocks)",
    zone="no times",
    thread="`zed:<id>` (else the file's name)",
    id="`zed:<id>:<replica>-<value>` (before 0.4.0 `zed:<id>:<n>`); without a "
    "conversation id, " + CONTENT_HASH,
    scope="the conversation (its UUID)",
    subject="`summary`, on the first record",
    tags="`error` (a message whose status is an error)",
    extra="`error`, `status` (pending, canceled), `sections` (slash command outputs), "
    "`version`, `model` (0.1.0); thinking in `thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(
        NAME, "chat", DESCRIPTION, ("*.zed.json", "*.json"), sniff, read, EXAMPLE, fields=FIELDS
    ),
)
