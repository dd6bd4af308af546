"""Cline's, Roo Code's and their forks' exported tasks (``cline-md``): the task
header's Export button, ``cline_task_<mon>-<d>-<yyyy>_<h>-<mm>-<ss>-<am|pm>.md``
(``roo_task_...``, ``kilo_code_task_...``, ``bob_task_...``).

Shape (cline/cline ``src/integrations/misc/export-markdown.ts``, ``downloadTask``; Roo
Code's copy): the task's API history, each message ``**User:**`` or ``**Assistant:**``,
a blank line, its blocks joined by line breaks, and messages apart by ``---``. A text
block as it is (the first user message ``<task>...</task>``, every user message's
``<environment_details>`` with the editor's state and ``# Current Time``; before native
tool calls the tools as XML in the answer and their results as ``[read_file for 'x']
Result:`` user text), an image ``[Image]``, a tool call ``[Tool Use: NAME]`` and its
input a ``Key: value`` line each, a result ``[NAME]`` (``[NAME (Error)]``) and its
content.

Decisions: one record a message, ``user`` ↔ ``assistant`` as the task's JSON reads them
(``cline``: text as written, the XML era's tools too); a message of ``[NAME]`` results
alone is the ``tool``'s. ``<environment_details>`` goes to ``extra.environment_details``,
out of the text; its ``# Current Time`` (``Current time in ISO 8601 UTC format: ...``,
or the locale's ``5/16/2026, 10:27:26 AM (Asia/Bangkok, UTC+7:00)``) is that message's
time and the next answers' (none yet: the epoch sentinel, warned). A heading inside a
fenced block is text. thread ``cline-md:<file>``; ids content hashes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.locale_time import local_time
from convo.importers.agents.md_turns import fenced_turns
from convo.importers.build import file_scope, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format

NAME = "cline-md"
_TURN = re.compile(r"\*\*(?P<who>User|Assistant):\*\*\s*")
# a block that closes before another opens (a block left open stays text)
_ENVIRONMENT = re.compile(
    r"\s*<environment_details>(?:(?!<environment_details>).)*?</environment_details>\s*", re.S
)
_ISO = re.compile(r"Current time in ISO 8601 UTC format: (\S+)")
_LOCAL = re.compile(
    r"# Current Time\s*\n(?:Current time[^\n]*\n)?(?P<date>[^,\n]+), (?P<time>[^\n(]+)\((?P<zone>[^)\n]*)\)"
)
_RESULT = re.compile(r"\[(?P<name>[\w.-]+)(?: \(Error\))?\](?:\n|\Z)")
_TOOL_USE = re.compile(r"(?m)^\[Tool Use: ([^\]\n]+)\]$")


def sniff(source: Source) -> int:
    text = source.head_text().lstrip("\ufeff\r\n ")
    first = text.split("\n", 1)[0]
    if not _TURN.fullmatch(first) or first.startswith("**Assistant"):
        return 0
    return (
        90 if re.search(r"(?m)^---\n+\*\*Assistant:\*\*\s*$", text) or "<task>" in text[:400] else 0
    )


def _time(details: str, ctx: ImportContext) -> str | None:
    """The ``# Current Time`` an ``<environment_details>`` block states."""
    iso = _ISO.search(details)
    if iso:
        try:
            return parse_any(iso[1], ctx.options.tz)
        except ValueError:
            return None
    found = _LOCAL.search(details)
    if found is None:
        return None
    when, _ = local_time(found["date"], f"{found['time']} {found['zone']}", ctx.options.tz)
    return when


class _File:
    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.thread = f"{NAME}:{file_scope(source.name)}"
        self.time: str | None = None
        self.who = self.where = ""
        self.lines: list[str] = []
        self.tools: set[str] = set()  # the tools the task called: their results' heads
        self.empty = self.untimed = 0

    def close(self) -> Iterator[ConversationMessage]:
        if not self.who:
            return
        while self.lines and self.lines[-1].strip() in ("", "---"):
            self.lines.pop()
        text = "\n".join(self.lines).strip("\n")
        who, self.who, self.lines = self.who, "", []
        details = [d.strip() for d in _ENVIRONMENT.findall(text)]
        text = _ENVIRONMENT.sub("\n\n", text).strip()
        for block in details:
            self.time = _time(block, self.ctx) or self.time
        if not text:
            self.empty += 1
            return
        role, chunks = self._said("user" if who == "User" else "assistant", text)
        self.untimed += self.time is None
        yield message(
            chunks,
            speaker=role,
            listeners=["assistant"] if role != "assistant" else ["user"],
            timestamp=self.time,
            source_id=self.where,
            format=NAME,
            thread=self.thread,
            role=role,
            extra={"environment_details": details or None,
                   "original_role": "user" if role == "tool" else None},
        )  # fmt: skip

    def _said(self, role: str, text: str) -> tuple[str, list[str]]:
        """(the message's role, its chunks): calls labelled, results cut and labelled (a
        user message of results alone is the tool's)."""
        self.tools.update(_TOOL_USE.findall(text))
        parts = _parts(text, self.tools) if role == "user" else [text]
        if len(parts) == 1 and parts[0] is text:
            return role, [_TOOL_USE.sub(lambda m: f"[tool_use {m[1]}]", text)]
        chunks = [_RESULT.sub(_label, p, count=1) if _RESULT.match(p) else p for p in parts]
        return ("tool" if all(_RESULT.match(p) for p in parts) else role), chunks


def _label(found: re.Match[str]) -> str:
    """``[NAME]`` / ``[NAME (Error)]`` as the chunk label ``[tool_result NAME( error)] ``."""
    head = found[0].strip()[1:-1]
    name, error = (head[: -len(" (Error)")], " error") if head.endswith(" (Error)") else (head, "")
    return f"[tool_result {name}{error}] "


def _parts(text: str, tools: set[str]) -> list[str]:
    """A user message cut where a tool's result starts (a ``[NAME]`` line of a tool the
    task called): the text before the first, then each result; ``[text]`` when none."""
    starts = [
        m.start() for m in _RESULT.finditer(text)
        if (m.start() == 0 or text[m.start() - 1] == "\n") and m["name"] in tools
    ]  # fmt: skip
    if not starts:
        return [text]
    cuts = [0, *starts] if starts[0] else starts
    ends = [*cuts[1:], len(text)]
    return [text[a:b].strip("\n") for a, b in zip(cuts, ends, strict=True) if text[a:b].strip()]


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    f = _File(source, ctx)
    yield from fenced_turns(source, ctx, f, _TURN, "text before the first **User:** message")
    if f.empty:
        ctx.warn(source.name, f"skipped {counted(f.empty, 'empty message')}")
    if f.untimed:
        ctx.warn(source.name, "messages before the first # Current Time get the epoch sentinel")


DESCRIPTION = "Cline's, Roo Code's and Kilo Code's exported tasks (cline_task_*.md: **User:** / **Assistant:**)"
EXAMPLE = (
    "**User:**\n\n<task>\nFix the boil loop\n</task>\n\n---\n\n**Assistant:**\n\n"
    "The loop never heats; call heat() in it.\n"
)
FIELDS = Fields(
    speaker="`user` (`**User:**`), `assistant` (`**Assistant:**`); a message of `[NAME]` "
    "results alone: `tool`",
    listeners="user ↔ assistant; a tool's results → assistant",
    time="the `# Current Time` of the message's `<environment_details>`, else the latest "
    "before it; none yet: the epoch sentinel, warned",
    zone="ISO UTC, or the offset the line names",
    thread="`cline-md:<file>`",
    id=CONTENT_HASH,
    scope="the file",
    extra="`environment_details` (out of the text), `original_role` (`user` for a tool's results)",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("cline_task_*.md", "roo_task_*.md", "*.md"), sniff, read,
           EXAMPLE, fields=FIELDS),
)  # fmt: skip
