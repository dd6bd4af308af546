"""Cline, Roo Code and Kilo Code tasks (``cline``): ``tasks/<task id>/api_conversation_history.json``.

Shape (cline/cline ``src/shared/messages/content.ts`` ``ClineStorageMessage``, written
by ``src/core/storage/disk.ts``; Roo Code and Kilo Code, its forks, write the same
file): a JSON array of Anthropic messages ``{role: user|assistant, content: string |
blocks}`` with Cline's own ``ts`` (epoch ms), ``id`` (the response's id),
``modelInfo`` and ``metrics``. Blocks: ``text``, ``image``, ``document``, ``tool_use``
(``id``, ``name``, ``input``), ``tool_result`` (``tool_use_id``, ``content``,
``is_error``), ``thinking``, ``redacted_thinking``. Before native tool calls the tools
were XML in the assistant's text (``<read_file>...``) and their results user text
(``[read_file for 'x'] Result:``): they are read as the text they are. The task folder
also holds ``ui_messages.json`` (``ClineMessage``: ``{ts, type: ask|say, ask|say,
text}``, the panel's copy of the same task) and ``task_metadata.json`` (files in context,
model usage): recognised, no messages read from them, one warning each; a
``ui_messages.json`` without the history beside it (as users commit it) is the task
(``convo.importers.agents.cline_ui``).

Decisions:
- One record per message. speaker = the role; a user message holding only tool results
  is the ``tool``'s (``extra.original_role`` ``user``). Listeners: user ↔ assistant, a
  tool result → assistant.
- Text: one chunk a block; ``[tool_use NAME] {input}`` and ``[tool_result NAME] output``
  (the name of the call it answers; ``error`` flagged), whole; images and documents as
  ``[image ...]``. The ``<environment_details>`` block Cline adds to each user turn (open
  files, time, mode) goes to ``extra.environment_details``, out of the text. Thinking is
  private: ``extra.thinking`` (``--include-thinking``: a ``[thinking]`` chunk).
- time = ``ts``; older tasks have none: the epoch sentinel, with one warning a file.
- thread = ``cline:<task id>``, the task's folder (Cline names it by the task's start in
  epoch ms, Roo Code by a UUID); a file elsewhere: the file's name. id = ``cline:<id>``
  when the message has a response id, else the content hash.
- ``extra``: ``model`` (``modelInfo``), ``metrics`` (tokens, cost).
- An element that is not a message with a role is rejected with its place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.blocks import block_chunk, dumps, normalise_content, result_text
from convo.importers.agents.cline_ui import read_ui
from convo.importers.agents.samples import iter_samples, sample_values
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_str, has_key, json_head
from convo.importers.registry import Format

NAME = "cline"
HISTORY = "api_conversation_history.json"
SIDE_FILES = {
    "ui_messages.json": "the task panel's copy of the task",
    "task_metadata.json": "the task's files in context and model usage",
}
LISTENERS = {"user": ["assistant"], "assistant": ["user"], "tool": ["assistant"]}
_ENVIRONMENT = re.compile(r"\A\s*<environment_details>.*</environment_details>\s*\Z", re.S)
# Cline's own time, epoch milliseconds, beside a message's role and content
_CLINE_TS = re.compile(r'"ts"\s*:\s*\d{12,14}\s*[,}]')
# A task's first message as Cline writes it: the user's ``<task>`` in a text block
_CLINE_OPENER = re.compile(
    r'\A\[\s*\{\s*"role"\s*:\s*"user"\s*,\s*"content"\s*:\s*'
    r'\[\s*\{\s*"type"\s*:\s*"text"\s*,\s*"text"\s*:\s*"<task>'
)
_CLINE_TEXT = re.compile(r"<(?:task|environment_details|feedback|answer)>|\[\w+ for '")


def _is_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("role") in ("user", "assistant")
        and ("content" in value)
    )


def _side_file(source: Source, text: str) -> str:
    """The side file's name when ``source`` is one (by its name and its keys)."""
    name = source.match_name
    if name == "ui_messages.json" and text.startswith("[") and has_key(text, "ts"):
        return (
            name if has_key(text, "say") or has_key(text, "ask") or text[1:].strip() == "]" else ""
        )
    if name == "task_metadata.json" and text.startswith("{") and has_key(text, "files_in_context"):
        return name
    return ""


def sniff(source: Source) -> int:
    text = json_head(source)
    if not text.startswith(("[", "{")):
        return 0
    if _side_file(source, text):
        return 90
    if not text.startswith("[") or not has_key(text, "role"):
        return 0
    if source.match_name == HISTORY:
        return 95
    # a task of any length: its first messages when the head is cut (a task's file is
    # often larger than the head; renamed, it is found by these, not by its name)
    sampled = sample_values(text)[:40]
    values = [v for v in sampled if isinstance(v, dict)]
    if not values:  # the first message alone is larger than the head
        cline = _CLINE_TS.search(text) is not None or _CLINE_OPENER.match(text) is not None
    else:
        good = sum(_is_message(v) for v in values)  # a stray element is rejected, not fatal
        cline = good * 5 >= len(values) * 4 and any("ts" in v for v in values)
    return 90 if cline and _CLINE_TEXT.search(text) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    side = _side_file(source, json_head(source))
    if side == "ui_messages.json" and not _beside(source, HISTORY):
        yield from read_ui(source, ctx, _Task(source, ctx).thread)
        return
    if side:
        ctx.warn(
            source.name, f"{SIDE_FILES[side]} ({side}): not read; the task is read from {HISTORY}"
        )
        return
    task = _Task(source, ctx)
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        if not _is_message(sample):
            ctx.reject(where, "not a Cline message (role user or assistant, content)", sample)
            continue
        yield task.record(sample, where)
    if task.untimed:
        ctx.warn(source.name, "messages without ts (older tasks) get the epoch sentinel")


def _beside(source: Source, name: str) -> bool:
    """Whether the file ``name`` is in ``source``'s folder (standard input: taken as so)."""
    return source.path is None or source.is_stdin or (source.path.parent / name).exists()


class _Task:
    """One task's thread, the names of its tool calls, and its untimed count."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        folder = source.path.absolute().parent.name if source.path and not source.is_stdin else ""
        named = source.match_name in (HISTORY, "ui_messages.json") and folder
        self.thread = f"{NAME}:{folder}" if named else ctx.thread_of(source.name)
        self.tools: dict[str, str] = {}  # tool_use id -> name (a task's calls)
        self.untimed = 0

    def record(self, msg: dict[str, Any], where: str) -> ConversationMessage:
        role = as_str(msg["role"])
        blocks = normalise_content(msg.get("content"))
        results = bool(blocks) and all(b.get("type") == "tool_result" for b in blocks)
        speaker = "tool" if role == "user" and results else role
        chunks, extra = self._chunks(blocks)
        extra.update({
            "original_role": role if speaker != role else None,
            "model": msg.get("modelInfo"),
            "metrics": msg.get("metrics"),
        })  # fmt: skip
        ts = _time(msg.get("ts"), self.ctx)
        self.untimed += ts is None
        rid = as_str(msg.get("id"))
        return message(
            chunks or [""],
            speaker=speaker,
            listeners=LISTENERS.get(speaker, []),
            timestamp=ts,
            id=f"{NAME}:{rid}" if rid else None,
            source_id=where,
            format=NAME,
            thread=self.thread,
            role=speaker,
            extra=extra,
        )

    def _chunks(self, blocks: list[dict[str, Any]]) -> tuple[list[str], dict[str, Any]]:
        include = self.ctx.options.include_thinking
        chunks: list[str] = []
        thinking: list[str] = []
        environment: list[str] = []
        for b in blocks:
            kind = b.get("type")
            text = as_str(b.get("text"))
            if kind == "text" and _ENVIRONMENT.match(text):
                environment.append(text.strip())
            elif kind in ("thinking", "redacted_thinking"):
                said = as_str(b.get("thinking")) or "[redacted]"
                (chunks if include else thinking).append(f"[thinking] {said}" if include else said)
            elif kind == "tool_use":
                self.tools[as_str(b.get("id"))] = as_str(b.get("name"))
                chunks.append(f"[tool_use {as_str(b.get('name'))}] {dumps(b.get('input'))}")
            elif kind == "tool_result":
                chunks.append(self._result(b))
            else:
                chunks.append(block_chunk(b))
        return chunks, {"thinking": thinking, "environment_details": environment}

    def _result(self, b: dict[str, Any]) -> str:
        call = as_str(b.get("tool_use_id"))
        label = self.tools.get(call) or call or "?"
        flag = " error" if b.get("is_error") else ""
        return f"[tool_result {label}{flag}] {result_text(b.get('content'))}"


def _time(value: Any, ctx: ImportContext) -> str | None:
    try:
        return parse_any(value, ctx.options.tz) if isinstance(value, int | float) else None
    except ValueError:
        return None


DESCRIPTION = "Cline, Roo Code and Kilo Code tasks (tasks/<id>/api_conversation_history.json)"
EXAMPLE = (
    '[{"role": "user", "content": [{"type": "text", "text": "<task>\\nFix the test\\n</task>"}], '
    '"ts": 1717405200000}]'
)
FIELDS = Fields(
    speaker="the role; a user message holding only tool results: `tool`",
    listeners="user ↔ assistant; a tool result → assistant",
    time="`ts` (epoch milliseconds); older tasks have none: the epoch sentinel, with one "
    "warning a file",
    zone="epoch milliseconds: UTC",
    thread="`cline:<task id>` (the task's folder); a file elsewhere: the file's name",
    id="`cline:<id>` (the response's id), else " + CONTENT_HASH,
    scope="the response ids are the provider's, unique everywhere; content hashes: the task",
    extra="`environment_details` (the block Cline adds to each user turn), `model` "
    "(`modelInfo`), `metrics`, `original_role`; thinking in `thinking` unless "
    "`--include-thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, (HISTORY, "ui_messages.json", "task_metadata.json", "*.json"),
           sniff, read, EXAMPLE, fields=FIELDS),
)  # fmt: skip
