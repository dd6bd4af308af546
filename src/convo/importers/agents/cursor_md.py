"""Cursor's "Export Chat" Markdown (``cursor-md``): ``cursor_<title>.md``.

Shape (the file Cursor's chat menu exports since 1.0, as users commit it to their
repositories, 1.0.0 to 1.7.x): ``# <title>``, then ``_Exported on <date> at <time>
<zone> from Cursor (<version>)_`` (the date and time in the user's locale: ``8/21/2025 at
18:13:28 GMT+2``, ``19/10/2025 at 12:29:42 GMT+8``, ``7/8/2025 at 11:55:38 PDT``,
``2025. 6. 27. at 14시 17분 35초 GMT+9``), then turns, each a line ``---``, a blank line
and ``**User**`` or ``**Cursor**``, then the turn's Markdown (which may hold ``---``
rules of its own). Since 1.4 an answer says ``[N tools called]`` where the agent used
tools (the export names none of them).

Decisions:
- One record a turn: ``**User**`` is the ``user``'s, ``**Cursor**`` the ``assistant``'s
  (``Cursor`` in ``extra.original_role``), each the other's listener; an empty turn is
  skipped, counted. A turn line inside a fenced code block is text; the ``---`` that
  ends a turn is not part of it.
- time: the export's, every turn's (the file has no time per message): the zone the
  line names (``GMT+2``, ``UTC-5``, ``PDT``...), else ``--tz`` (warned); a day and
  month that could be either way round are read month first when written with ``/``
  (en-US, the default) and day first with ``.`` or ``-``. A file without that line, or a
  date that does not read: the epoch sentinel, warned.
- thread = ``cursor-md:<file>`` (the file's name, its folder when generic); subject = the
  title, on the first record; ``extra.cursor_version`` on the first record; ids content
  hashes. ``[N tools called]`` stays in the text, the count in ``extra.tools_called``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.importers.agents.locale_time import local_time
from convo.importers.apps.common import numbered_lines
from convo.importers.build import file_scope, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format

NAME = "cursor-md"
_EXPORTED = re.compile(
    r"_Exported on (?P<date>.+?) at (?P<time>.+?) from Cursor \((?P<version>[^)]*)\)_\s*"
)
_TURN = re.compile(r"\*\*(?P<who>User|Cursor)\*\*\s*")
_FENCE = re.compile(r"\s*(```|~~~)")
_TOOLS = re.compile(r"(?m)^\[(\d+) tools? called\]\s*$")


def sniff(source: Source) -> int:
    lines = source.head_text().lstrip("\ufeff\r\n ").splitlines()[:4]
    if not lines or not lines[0].startswith("# "):
        return 0
    return 95 if any(_EXPORTED.fullmatch(line) for line in lines[1:]) else 0


@dataclass
class _Turn:
    who: str
    where: str
    lines: list[str] = field(default_factory=list)

    def close(self) -> str:
        """The turn's text, without the ``---`` line that ends it."""
        while self.lines and not self.lines[-1].strip():
            self.lines.pop()
        if self.lines and self.lines[-1].strip() == "---":
            self.lines.pop()
        return "\n".join(self.lines).strip("\n")


class _File:
    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.source = source
        self.thread = f"{NAME}:{file_scope(source.name)}"
        self.subject: str | None = None
        self.version: str | None = None
        self.time: str | None = None
        self.turn: _Turn | None = None
        self.empty = 0
        self.first = True

    def header(self, line: str, where: str) -> None:
        exported = _EXPORTED.fullmatch(line)
        if line.startswith("# ") and self.subject is None:
            self.subject = line[2:].strip() or None
        elif exported:
            self.version = exported["version"]
            self.time, guessed = local_time(exported["date"], exported["time"], self.ctx.options.tz)
            if self.time is None:
                self.ctx.warn(where, "the export's date does not read: the epoch sentinel")
            elif guessed:
                self.ctx.warn(where, "the export's time names no zone convo knows: read in --tz")
        elif line.strip() and line.strip() != "---":
            self.ctx.reject(where, "text before the first **User** / **Cursor** turn", line)

    def close(self) -> Iterator[ConversationMessage]:
        if self.turn is None:
            return
        text, turn, self.turn = self.turn.close(), self.turn, None
        if not text.strip():
            self.empty += 1
            return
        role = "user" if turn.who == "User" else "assistant"
        tools = sum(int(n) for n in _TOOLS.findall(text))
        yield message(
            text,
            speaker=role,
            listeners=["assistant" if role == "user" else "user"],
            timestamp=self.time,
            source_id=turn.where,
            format=NAME,
            thread=self.thread,
            subject=self.subject if self.first else None,
            role=role,
            extra={"original_role": "Cursor" if role == "assistant" else None,
                   "tools_called": tools or None,
                   "cursor_version": self.version if self.first else None},
        )  # fmt: skip
        self.first = False


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    f = _File(source, ctx)
    fenced = False
    before = ""  # the last line that was not blank
    for number, line in numbered_lines(source, ctx.text_decoder()):
        found = None if fenced else _TURN.fullmatch(line)
        if found and (before.strip() == "---" or f.turn is None):  # the first: wherever
            yield from f.close()
            f.turn = _Turn(found["who"], ctx.loc(number))
        elif f.turn is None:
            f.header(line, ctx.loc(number))
        else:
            fenced = not fenced if _FENCE.match(line) else fenced
            f.turn.lines.append(line)
        before = line if line.strip() else before
    yield from f.close()
    if f.empty:
        ctx.warn(source.name, f"skipped {counted(f.empty, 'empty turn')}")
    if f.time is None and not f.first:
        ctx.warn(source.name, "no export time: turns get the epoch sentinel")


DESCRIPTION = "Cursor's Export Chat Markdown (# title, _Exported on ... from Cursor (1.x)_, **User** / **Cursor** turns)"
EXAMPLE = (
    "# Fix the kettle loop\n_Exported on 6/19/2025 at 10:12:49 GMT+2 from Cursor (1.1.3)_\n\n"
    "---\n\n**User**\n\nwhy does boil() never return?\n\n---\n\n**Cursor**\n\nThe loop never heats.\n"
)
FIELDS = Fields(
    speaker="`user` (`**User**` turns), `assistant` (`**Cursor**`)",
    listeners="user ↔ assistant",
    time="the export's time (`_Exported on <date> at <time> <zone>_`), every turn's",
    zone="the zone the line names (`GMT+2`, `PDT`), else `--tz` (warned)",
    thread="`cursor-md:<file>`",
    id=CONTENT_HASH,
    scope="the file",
    subject="the `# title`, on the first record",
    extra="`original_role` (`Cursor`), `tools_called` (`[N tools called]`), "
    "`cursor_version` (on the first record)",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.md",), sniff, read, EXAMPLE, fields=FIELDS),)
