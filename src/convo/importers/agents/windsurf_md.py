"""Windsurf's exported Cascade conversations (``windsurf-md``): the Cascade menu's
"Download Trajectory" Markdown.

Shape (the file Windsurf writes, as users commit it to their repositories, 2025-2026;
Windsurf is closed, its conversations otherwise encrypted protobuf): ``# Cascade Chat
Conversation``, a note (``Note: _This is purely the output of the chat conversation and
does not contain any raw data, codebase snippets, etc. used to generate the output._``),
then blocks headed ``### User Input`` and ``### Planner Response``; the agent's steps are
lines in italics of their own, ``*Viewed [thermo.py](file:///...) *``, ``*Edited relevant
file*``, ``*User accepted the command `npm test`*``, ``*Grep searched codebase*``,
``*Updated todo list*``, under either heading (the steps after a user's input are the
agent's, taken before it answers).

Decisions: a ``User Input`` block's text is the ``user``'s record; a ``Planner
Response``'s the ``cascade``'s (role ``assistant``), its steps chunks of it in order; a
run of steps under a user's input is a record of the ``cascade``'s of its own. A step is
``[tool_use ACTION] rest`` (ACTION the words before its first link or code, as
``Viewed``, ``Edited relevant file``, ``User accepted the command``). A heading and a
step are known by their exact shape, inside a fenced block too (a fence left open does
not hide the rest). No times in the file: the epoch sentinel, one warning. thread
``windsurf-md:<file>``; ids content hashes; empty blocks (and ``(no content)``) counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.importers.apps.common import numbered_lines
from convo.importers.build import file_scope, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format

NAME = "windsurf-md"
_TITLE = re.compile(r"# Cascade Chat Conversation\s*")
_NOTE = re.compile(r"\s*Note: _This is purely the output of the chat conversation.*")
_TURN = re.compile(r"### (?P<who>User Input|Planner Response)\s*")
# the first words of Cascade's steps (a line in italics not starting so is text)
_VERBS = (
    "Viewed|Edited|Listed|Grep|Searched|Semantic|Read|Analyzed|Updated|User|Ran|Checked|"
    "Running|MCP|Created|Deleted|Proposed|Opened|Took|Captured|Accessed|Found|Moved|"
    "Renamed|Generated|Called|Planned|Browser|Fetched|Executed|Wrote|Modified"
)
_STEP = re.compile(r"\*(?P<act>(?:" + _VERBS + r")\b[A-Za-z ]*?)(?P<rest>(?: [`\[].*?)?)\s*\*\s*")
SPEAKERS = {"User Input": "user", "Planner Response": "cascade"}


def sniff(source: Source) -> int:
    first = source.head_text().lstrip("\ufeff\r\n ").split("\n", 1)[0]
    return 95 if _TITLE.fullmatch(first) else 0


def _step(found: re.Match[str]) -> str:
    return f"[tool_use {found['act'].strip()}] {found['rest'].strip()}".rstrip()


def _segments(lines: list[str]) -> list[tuple[bool, str]]:
    """A block's texts and steps in order: (is a step, its text)."""
    out: list[tuple[bool, list[str]]] = []
    for line in lines:
        found = _STEP.fullmatch(line)
        kind = found is not None
        if not line.strip() and out:
            out[-1][1].append(line)
            continue
        if not out or out[-1][0] != kind:
            out.append((kind, []))
        out[-1][1].append(_step(found) if found else line)
    joined = [
        (kind, piece)
        for kind, text in out
        for piece in ([x for x in text if x.strip()] if kind else ["\n".join(text).strip("\n")])
    ]
    return [
        (kind, text) for kind, text in joined if text.strip() and text.strip() != "(no content)"
    ]


class _File:
    def __init__(self, source: Source):
        self.thread = f"{NAME}:{file_scope(source.name)}"
        self.who = self.where = ""
        self.lines: list[str] = []
        self.empty = self.records = 0

    def close(self) -> Iterator[ConversationMessage]:
        if not self.who:
            return
        segments, who, self.who, self.lines = _segments(self.lines), self.who, "", []
        if not segments:
            self.empty += 1
            return
        if who == "Planner Response":
            yield self._record("cascade", [text for _, text in segments])
            return
        steps: list[str] = []  # a run of the agent's steps under a user's input
        for is_step, text in segments:
            if is_step:
                steps.append(text)
                continue
            if steps:
                yield self._record("cascade", steps)
                steps = []
            yield self._record("user", [text])
        if steps:
            yield self._record("cascade", steps)

    def _record(self, speaker: str, chunks: list[str]) -> ConversationMessage:
        self.records += 1
        return message(
            chunks,
            speaker=speaker,
            listeners=["cascade"] if speaker == "user" else ["user"],
            source_id=self.where,
            format=NAME,
            thread=self.thread,
            role="user" if speaker == "user" else "assistant",
        )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    f = _File(source)
    for number, line in numbered_lines(source, ctx.text_decoder()):
        found = _TURN.fullmatch(line)
        if found:
            yield from f.close()
            f.who, f.where = found["who"], ctx.loc(number)
        elif f.who:
            f.lines.append(line)
        elif line.strip() and not _TITLE.fullmatch(line) and not _NOTE.fullmatch(line):
            ctx.reject(
                ctx.loc(number), "text before the first ### User Input / ### Planner Response", line
            )
    yield from f.close()
    if f.empty:
        ctx.warn(source.name, f"skipped {counted(f.empty, 'empty block')}")
    if f.records:
        ctx.warn(source.name, "a Cascade export carries no times: messages get the epoch sentinel")


DESCRIPTION = (
    "Windsurf's exported Cascade conversations (Download Trajectory: # Cascade Chat Conversation)"
)
EXAMPLE = (
    "# Cascade Chat Conversation\n\n  Note: _This is purely the output of the chat conversation "
    "and does not contain any raw data, codebase snippets, etc. used to generate the output._\n\n"
    "### User Input\n\nwhy does boil() never return?\n\n### Planner Response\n\nThe loop never heats.\n"
)
FIELDS = Fields(
    speaker="`user` (`### User Input`), `cascade` (`### Planner Response`, and the steps "
    "after a user's input)",
    listeners="user ↔ cascade",
    time="none (the file has no times): the epoch sentinel, with one warning",
    zone="none",
    thread="`windsurf-md:<file>`",
    id=CONTENT_HASH,
    scope="the file",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.md",), sniff, read, EXAMPLE, fields=FIELDS),)
