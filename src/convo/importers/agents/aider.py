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
- ``.aider.input.history`` beside it (prompt_toolkit's ``FileHistory``: ``# <local
  time>``, then the input's lines each after a ``+``): each input a ``user`` record at its
  own time, tagged ``prompt-log`` (the chat history holds the same words as its turns),
  thread ``aider:<file>`` (with its folder); any other line is rejected with its place.
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


# ``.aider.input.history``: prompt_toolkit's ``FileHistory`` (``# <datetime.now()>``, then
# each line of the input with ``+`` before it), beside the chat history.
_INPUT_TIME = re.compile(r"# (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:\.\d+)?\s*")


def _input_history(source: Source) -> bool:
    """Whether ``source`` is an input history (a ``# <time>`` line, then a ``+`` line)."""
    first, _, rest = source.head_text().lstrip("\ufeff\r\n ").partition("\n")
    return _INPUT_TIME.fullmatch(first) is not None and rest.startswith("+")


def sniff(source: Source) -> int:
    text = source.head_text().lstrip("\ufeff\r\n ")
    return 95 if _STARTED.match(text) or _input_history(source) else 0


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
    if _input_history(source):
        yield from _inputs(source, ctx)
        return
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


def _inputs(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """``.aider.input.history``: each input typed, a ``user`` record tagged ``prompt-log``
    (the chat history holds the same words as its turns) at its own time."""
    thread = f"{NAME}:{file_scope(source.name)}"
    when: str | None = None
    lines: list[str] = []
    start = 0

    def made() -> ConversationMessage:
        return message("\n".join(lines), speaker="user", listeners=["assistant"],
                       timestamp=naive_ts(datetime.strptime(when, "%Y-%m-%d %H:%M:%S"),
                                          ctx.options.tz) if when else None,
                       source_id=ctx.loc(start), format=NAME, thread=thread, role="user",
                       tags=["prompt-log"])  # fmt: skip

    for number, line in numbered_lines(source, ctx.text_decoder()):
        stamp = _INPUT_TIME.fullmatch(line)
        if stamp:
            if lines:
                yield made()
            when, lines, start = stamp.group(1), [], number
        elif line.startswith("+"):
            start = start or number
            lines.append(line[1:])
        elif line.strip():
            ctx.reject(ctx.loc(number), "not a line of aider's input history (+text)", line)
    if lines:
        yield made()


DESCRIPTION = "aider chat history (.aider.chat.history.md) and input history (.aider.input.history)"
EXAMPLE = (
    "# aider chat started at 2024-06-03 10:00:00\n\n> Aider v0.40.0  \n\n"
    "#### fix the boil loop  \n\nThe loop never heats; call heat() in it."
)
FIELDS = Fields(
    speaker="`user` (`#### ` lines), `assistant` (the answer), `aider` (its `> ` lines)",
    listeners="user ↔ assistant; aider's lines: none",
    time="the session's start (`# aider chat started at ...`) for each of its records; an "
    "input's own time in the input history",
    zone="aider writes local times: " + NAIVE_IN_TZ,
    thread="`aider:<file>@<start>` (the file with its folder); the input history `aider:<file>`",
    id=CONTENT_HASH,
    scope="the thread: the project's folder and the session's start",
    tags="`system` on aider's own lines; `prompt-log` on the input history's inputs",
    extra="`model` (the banner's model, or the one `/model` switched to) on answers",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, (".aider.chat.history.md", "*.md", ".aider.input.history"),
           sniff, read, EXAMPLE, fields=FIELDS),
)  # fmt: skip
