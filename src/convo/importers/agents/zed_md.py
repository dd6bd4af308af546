"""Zed's agent threads as Markdown (``zed-md``): the agent panel's "Open Thread as
Markdown", saved by users beside their code.

Shape (zed-industries/zed ``crates/agent/src/thread.rs``, ``Thread::to_markdown``; the
agent panel since 2025 writes ``## Agent`` where the first threads wrote ``##
Assistant``): ``# <summary>``, then each message ``## User`` / ``## Assistant`` / ``##
Agent`` / ``## System``, its attached context (``<context>...</context>``), its text, its
thinking (``<think>...</think>``), its tool calls (``**Use Tool: NAME (ID)**`` and the
input as a ``json`` fence) and tool results (``**Tool Results: ID**``, `` (Error)``
inside the bold when it failed, then the output; the first threads put the results in
the next ``## User`` message, later ones after the call).

Decisions: one record a message, ``user`` ↔ ``assistant`` (``Agent`` spelled in
``extra.original_role``); a user message of tool results only is the ``tool``'s. A call
is ``[tool_use NAME] {input}``, a result ``[tool_result NAME] output`` (NAME the call's,
by its id; ``error`` flagged); the context goes to ``extra.context`` and thinking to
``extra.thinking`` (``--include-thinking``: a ``[thinking]`` chunk). A role heading is
known by its exact words wherever it stands (a fence left open does not hide the rest).
No times: the epoch sentinel, one warning. thread ``zed-md:<file>``; the summary as
subject; ids content hashes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.importers.agents.blocks import dumps, inner_json
from convo.importers.apps.common import numbered_lines
from convo.importers.build import file_scope, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format

NAME = "zed-md"
_ROLE = re.compile(r"## (?P<who>User|Assistant|Agent|System)\s*")
_USE = re.compile(
    r"\*\*Use Tool: (?P<name>.+?) \((?P<id>[^()\s]+)\)\*\*[ \t]*\n```json\n(?P<json>.*?)\n```", re.S
)
_RESULT = re.compile(r"\*\*Tool Results: (?P<id>[^*\s]+)(?P<error> \(Error\))?\*\*[ \t]*\n")
_CONTEXT = re.compile(r"<context>\n.*?\n</context>\n?", re.S)
_THINK = re.compile(r"<think>\n?(.*?)\n?</think>", re.S)
LISTENERS = {"user": ["assistant"], "tool": ["assistant"], "assistant": ["user"]}
ROLES = {"User": "user", "Assistant": "assistant", "Agent": "assistant", "System": "system"}


def sniff(source: Source) -> int:
    lines = [line for line in source.head_text().lstrip("\ufeff").splitlines() if line.strip()][:2]
    if len(lines) < 2 or not lines[0].startswith("# "):
        return 0
    return 90 if _ROLE.fullmatch(lines[1]) and lines[1].startswith("## User") else 0


class _File:
    def __init__(self, source: Source, ctx: ImportContext):
        self.include = ctx.options.include_thinking
        self.thread = f"{NAME}:{file_scope(source.name)}"
        self.subject: str | None = None
        self.tools: dict[str, str] = {}  # a call's id -> its tool's name
        self.who = self.where = ""
        self.lines: list[str] = []
        self.empty = self.records = 0

    def close(self) -> Iterator[ConversationMessage]:
        if not self.who:
            return
        text = "\n".join(self.lines).strip("\n")
        who, self.who, self.lines = self.who, "", []
        context = [c.strip() for c in _CONTEXT.findall(text)]
        thinking = [t.strip() for t in _THINK.findall(text)]
        chunks, results = self._chunks(_THINK.sub("", _CONTEXT.sub("", text)))
        if self.include:  # --include-thinking: chunks of their own, first
            chunks, thinking = [f"[thinking] {t}" for t in thinking] + chunks, []
        if not (chunks or thinking or context):
            self.empty += 1
            return
        role = "tool" if ROLES[who] == "user" and results == len(chunks) > 0 else ROLES[who]
        self.records += 1
        extra = {"context": context or None, "thinking": thinking or None,
                 "original_role": who if who == "Agent" or role == "tool" else None}  # fmt: skip
        yield self._record(chunks, role, extra)

    def _record(self, chunks: list[str], role: str, extra: dict[str, Any]) -> ConversationMessage:
        return message(
            chunks or [""],
            speaker=role,
            listeners=LISTENERS.get(role, []),
            source_id=self.where,
            format=NAME,
            thread=self.thread,
            subject=self.subject if self.records == 1 else None,
            role=role,
            extra=extra,
        )

    def _chunks(self, text: str) -> tuple[list[str], int]:
        """A message's text, calls and results as chunks in order; how many were results."""
        marks = sorted([*_USE.finditer(text), *_RESULT.finditer(text)], key=lambda m: m.start())
        chunks: list[str] = []
        results = pos = 0
        for i, found in enumerate(marks):
            if text[pos : found.start()].strip():
                chunks.append(text[pos : found.start()].strip("\n"))
            if "json" in found.groupdict():
                self.tools[found["id"]] = found["name"]
                chunks.append(f"[tool_use {found['name']}] {_input(found['json'])}")
                pos = found.end()
                continue
            end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
            label = self.tools.get(found["id"], found["id"])
            flag = " error" if found["error"] else ""
            chunks.append(f"[tool_result {label}{flag}] {text[found.end() : end].strip()}".rstrip())
            results += 1
            pos = end
        if text[pos:].strip():
            chunks.append(text[pos:].strip("\n"))
        return chunks, results


def _input(raw: str) -> str:
    try:
        return dumps(inner_json(raw))
    except ValueError:
        return raw


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    f = _File(source, ctx)
    for number, line in numbered_lines(source, ctx.text_decoder()):
        found = _ROLE.fullmatch(line)
        if found:
            yield from f.close()
            f.who, f.where = found["who"], ctx.loc(number)
        elif f.who:
            f.lines.append(line)
        elif line.startswith("# ") and f.subject is None:
            f.subject = line[2:].strip() or None
        elif line.strip():
            ctx.reject(ctx.loc(number), "text before the first ## User message", line)
    yield from f.close()
    if f.empty:
        ctx.warn(source.name, f"skipped {counted(f.empty, 'empty message')}")
    if f.records:
        ctx.warn(
            source.name, "a thread's Markdown carries no times: messages get the epoch sentinel"
        )


DESCRIPTION = (
    "Zed's agent threads as Markdown (# summary, ## User / ## Agent, **Use Tool: NAME (ID)**)"
)
EXAMPLE = (
    "# Kettle cutoff\n\n## User\n\nwhy does boil() never return?\n\n## Agent\n\n"
    "The loop never heats.\n"
)
FIELDS = Fields(
    speaker="`user` (`## User`), `assistant` (`## Assistant`, `## Agent`), `system`; a user "
    "message of tool results: `tool`",
    listeners="user ↔ assistant; a tool's results → assistant",
    time="none (the file has no times): the epoch sentinel, with one warning",
    zone="none",
    thread="`zed-md:<file>`",
    id=CONTENT_HASH,
    scope="the file",
    subject="the `# summary`, on the first record",
    extra="`context` (attached files), `thinking` unless `--include-thinking`, `original_role`",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.md",), sniff, read, EXAMPLE, fields=FIELDS),)
