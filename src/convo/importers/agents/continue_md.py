"""Continue's shared sessions (``continue-md``): what its ``/share`` command (and the
history's share action) writes, ``session.md`` or ``<time>_session.md``.

Shape (continuedev/continue ``core/commands/slash/share.ts``, later
``core/util/historyUtils``' ``toMarkDown``): since mid-2024 ``### [Continue](https://
continue.dev) session transcript``, a line `` Exported: <toLocaleString()>`` (local
time, no zone), then each message ``#### _User_`` or ``#### _Assistant_`` and its text
quoted line by line (``replace(/^/gm, "> ")``: a text with CRLF line ends gets ``> ``
after each ``\\r`` too, so a pasted text's lines end in ``> `` once the ``\\r`` is gone); before,
``This is a session transcript from [Continue](https://continue.dev) on <date>, <time>.``
and ``## User`` / ``## Continue`` headings over the text as it was.

Decisions: one record a message, ``user`` ↔ ``assistant`` (``Continue`` as spelled in
``extra.original_role``); the quote marks are taken off (and the CRLF artefact, from the
lines of a message where several end with it); a heading inside a fenced block of the older layout is
text. Every record is timed at the export (read in ``--tz``; the date's order as
``locale_time`` reads it); thread ``continue-md:<file>``; ids content hashes; empty
messages counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.importers.agents.locale_time import local_time
from convo.importers.apps.common import numbered_lines
from convo.importers.build import file_scope, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, NAIVE_IN_TZ, Fields
from convo.importers.registry import Format

NAME = "continue-md"
_TITLE = re.compile(r"### \[Continue\]\(https://continue\.dev\) session transcript\s*")
_EXPORTED = re.compile(r"\s*Exported: (?P<date>[^,]+), (?P<time>.+?)\s*")
_OLD = re.compile(
    r"This is a session transcript from \[Continue\]\(https://continue\.dev\) on "
    r"(?P<date>[^,]+), (?P<time>.+?)\.?\s*"
)
_QUOTED_TURN = re.compile(r"#### _(?P<who>User|Assistant)_\s*")
_OLD_TURN = re.compile(r"## (?P<who>User|Continue)\s*")
_FENCE = re.compile(r"\s*(```|~~~)")


def sniff(source: Source) -> int:
    first = source.head_text().lstrip("\ufeff\r\n ").split("\n", 1)[0]
    return 95 if _TITLE.fullmatch(first) or _OLD.fullmatch(first) else 0


def _unquote(lines: list[str]) -> str:
    """A message's text without its quote marks (and the ``> `` a CRLF left at each end)."""
    body = [line[2:] if line.startswith("> ") else line[1:] if line.startswith(">") else line
            for line in lines]  # fmt: skip
    if sum(line.endswith("> ") for line in body) >= 2:  # a pasted CRLF text's lines
        body = [line[:-2] if line.endswith("> ") else line for line in body]
    return "\n".join(body).strip("\n")


class _File:
    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.thread = f"{NAME}:{file_scope(source.name)}"
        self.time: str | None = None
        self.quoted = True
        self.who = ""
        self.where = ""
        self.lines: list[str] = []
        self.empty = 0

    def header(self, line: str, where: str) -> None:
        found = _EXPORTED.fullmatch(line) or _OLD.fullmatch(line)
        if found is None:
            if line.strip() and not _TITLE.fullmatch(line):
                self.ctx.reject(where, "text before the first message of a shared session", line)
            return
        self.quoted = _OLD.fullmatch(line) is None
        self.time, _ = local_time(found["date"], found["time"], self.ctx.options.tz)
        if self.time is None:
            self.ctx.warn(where, "the export's date does not read: the epoch sentinel")

    def close(self) -> Iterator[ConversationMessage]:
        if not self.who:
            return
        text = _unquote(self.lines) if self.quoted else "\n".join(self.lines).strip("\n")
        who, self.who, self.lines = self.who, "", []
        if not text.strip():
            self.empty += 1
            return
        role = "user" if who == "User" else "assistant"
        yield message(
            text,
            speaker=role,
            listeners=["assistant" if role == "user" else "user"],
            timestamp=self.time,
            source_id=self.where,
            format=NAME,
            thread=self.thread,
            role=role,
            extra={"original_role": who if who == "Continue" else None},
        )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    f = _File(source, ctx)
    fenced = False
    for number, line in numbered_lines(source, ctx.text_decoder()):
        turn = _QUOTED_TURN if f.quoted else _OLD_TURN
        found = None if fenced else turn.fullmatch(line)
        if found:
            yield from f.close()
            f.who, f.where = found["who"], ctx.loc(number)
        elif not f.who:
            f.header(line, ctx.loc(number))
        else:
            fenced = not fenced if not f.quoted and _FENCE.match(line) else fenced
            f.lines.append(line)
    yield from f.close()
    if f.empty:
        ctx.warn(source.name, f"skipped {counted(f.empty, 'empty message')}")


DESCRIPTION = (
    "Continue's shared sessions (/share: ### [Continue](https://continue.dev) session transcript)"
)
EXAMPLE = (
    "### [Continue](https://continue.dev) session transcript\n Exported: 11/5/2025, 4:32:53 PM"
    "\n\n#### _User_\n\n> why does boil() never return?\n\n#### _Assistant_\n\n> The loop never heats."
)
FIELDS = Fields(
    speaker="`user` (`#### _User_`, `## User`), `assistant` (`#### _Assistant_`, `## Continue`)",
    listeners="user ↔ assistant",
    time="the export's (`Exported: <date>, <time>`), every message's",
    zone=NAIVE_IN_TZ + " (Continue writes the local time without its zone)",
    thread="`continue-md:<file>`",
    id=CONTENT_HASH,
    scope="the file",
    extra="`original_role` (`Continue`)",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.md",), sniff, read, EXAMPLE, fields=FIELDS),)
