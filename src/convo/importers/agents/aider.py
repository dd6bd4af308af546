"""aider chat history (``aider``): ``.aider.chat.history.md`` in a project's root.

Shape (Aider-AI/aider ``aider/io.py``, ``InputOutput``: every write goes through
``append_chat_history``): a session opens with ``# aider chat started at YYYY-MM-DD
HH:MM:SS`` (local time); what the user typed is ``#### `` lines (``user_input``; an
empty input ``#### <blank>``); aider's own output (the start-up banner, questions and
the answers given, ``Applied edit to ...``, commits, token costs, errors) is ``> ``
lines (``tool_output``, ``tool_error``, ``confirm_ask``: a blockquote); the model's
answer is the plain Markdown between them (``ai_output``). Both marked kinds of line end
with two spaces (a Markdown line break).

Decisions:
- One record per turn: the user's lines, the answer, and each run of aider's lines.
  speaker: ``user``; the answer ``assistant`` (the model named by the banner's ``Model:``
  / ``Main model:`` line in ``extra.model``, the latest: ``/model`` prints the new one);
  aider's lines ``aider`` (role system, tagged ``system``). Listeners: user ↔ assistant.
- ``/code message`` (``/ask``, ``/architect``...): aider runs the message as the next
  input, so the history has it twice (``#### /code fix it``, ``#### fix it``); the
  command line is the turn's text, once.
- A ``#### `` or ``> `` line inside an answer is the answer's (a Markdown heading or
  quote) unless it ends with aider's two spaces.
- time: the session's start for each of its records (the file has no other times; naive,
  read in ``--tz``); lines before any session header: the epoch sentinel, with one warning.
- thread = ``aider:<file>@<start>`` (the file with its folder: every project's history
  has the same name, docs/ids.md); ids: the content hash.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import naive_ts
from convo.importers.apps.common import numbered_lines
from convo.importers.build import file_scope, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, NAIVE_IN_TZ, Fields
from convo.importers.registry import Format

NAME = "aider"
_STARTED = re.compile(r"# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*")
_MODEL = re.compile(r"(?:Main model|Model): (\S+)")
# ``/code``, ``/ask``, ``/architect``... with a message: aider runs the message as the
# next input, so the history holds the command line and then the message once more.
_COMMAND = re.compile(r"/[a-z][\w-]* (\S.*)")
KINDS = {"user": ("user", "user", ["assistant"]), "aider": ("aider", "system", []),
         "assistant": ("assistant", "assistant", ["user"])}  # fmt: skip


def sniff(source: Source) -> int:
    text = source.head_text().lstrip("\ufeff\r\n ")
    if _STARTED.match(text):
        return 95
    return 0


class _Turns:
    """The session and the turn being gathered: its kind, lines and first line."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.file = file_scope(source.name)
        self.started: str | None = None
        self.thread = f"{NAME}:{self.file}"
        self.model: str | None = None
        self.kind = ""
        self.lines: list[str] = []
        self.first = 0
        self.untimed = 0

    def start(self, when: str) -> None:
        self.thread = f"{NAME}:{self.file}@{when}"
        self.model = None
        try:
            parsed = datetime.strptime(when, "%Y-%m-%d %H:%M:%S")
        except ValueError:
            self.started = None
            return
        self.started = naive_ts(parsed, self.ctx.options.tz)

    def add(self, kind: str, line: str, number: int) -> Iterator[ConversationMessage]:
        if kind != self.kind:
            yield from self.flush()
            self.kind, self.first = kind, number
        self.lines.append(line)

    def flush(self) -> Iterator[ConversationMessage]:
        text = "\n".join(self.lines).strip("\n")
        kind, self.lines = self.kind, []
        self.kind = ""
        if not text.strip():
            return
        if kind == "aider" and (found := _MODEL.search(text)):
            self.model = found.group(1)  # the banner's, or the one ``/model`` switched to
        if kind == "user":
            text = _without_echo(text)
        speaker, role, listeners = KINDS[kind]
        self.untimed += self.started is None
        yield message(
            text,
            speaker=speaker,
            listeners=listeners,
            timestamp=self.started,
            source_id=self.ctx.loc(self.first),
            format=NAME,
            thread=self.thread,
            role=role,
            tags=["system"] if kind == "aider" else None,
            extra={"model": self.model} if kind == "assistant" else None,
        )


def _without_echo(text: str) -> str:
    """A ``/code message`` turn without the message aider wrote again after it."""
    lines = text.split("\n")
    half = len(lines) // 2
    m = _COMMAND.fullmatch(lines[0])
    if m and len(lines) % 2 == 0 and [m[1], *lines[1:half]] == lines[half:]:
        return "\n".join(lines[:half])
    return text


def _kind(line: str, current: str) -> tuple[str, str]:
    """(the kind of turn a line belongs to, its text without aider's marks)."""
    marked = line.endswith("  ")
    if line.startswith("#### ") and (marked or current != "assistant"):
        text = line[5:].rstrip()
        return "user", "" if text == "<blank>" else text
    if line.startswith(">") and (marked or current != "assistant"):
        return "aider", line[2:].rstrip() if line.startswith("> ") else line[1:].rstrip()
    return "assistant", line


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    turns = _Turns(source, ctx)
    for number, line in numbered_lines(source, ctx.text_decoder()):
        started = _STARTED.fullmatch(line)
        if started:
            yield from turns.flush()
            turns.start(started.group(1))
            continue
        if not line.strip() and turns.kind != "assistant":
            continue  # the blank lines between aider's blocks
        kind, text = _kind(line, turns.kind)
        yield from turns.add(kind, text, number)
    yield from turns.flush()
    if turns.untimed:
        ctx.warn(source.name, "lines before any session header get the epoch sentinel")


DESCRIPTION = "aider chat history (.aider.chat.history.md)"
EXAMPLE = (
    "# aider chat started at 2024-06-03 10:00:00\n\n> Aider v0.40.0  \n\n"
    "#### fix the boil loop  \n\nThe loop never heats; call heat() in it."
)
FIELDS = Fields(
    speaker="`user` (`#### ` lines), `assistant` (the answer), `aider` (its `> ` lines)",
    listeners="user ↔ assistant; aider's lines: none",
    time="the session's start (`# aider chat started at ...`) for each of its records",
    zone="aider writes local times: " + NAIVE_IN_TZ,
    thread="`aider:<file>@<start>` (the file with its folder)",
    id=CONTENT_HASH,
    scope="the thread: the project's folder and the session's start",
    tags="`system` on aider's own lines",
    extra="`model` (the banner's model, or the one `/model` switched to) on answers",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, (".aider.chat.history.md", "*.md"), sniff, read, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
