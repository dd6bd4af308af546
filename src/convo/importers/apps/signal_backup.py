"""signalbackup-tools' text export (``--exporttxt``), read as format ``signal``: the chats
of an Android Signal backup, one file a chat named ``<chat> (_id<thread>).txt``
(github.com/bepaald/signalbackup-tools, ``signalbackup/exporttxt.cc`` and
``TXTaddReactions`` in ``signalbackup/signalbackup.h``).

Lines (the time ``%b %d, %Y %H:%M:%S``, the phone's local time, without a zone):
- ``[Mar 05, 2024 14:03:40] <Name> text``: a message; lines after it without a time
  continue its text; its reactions follow its last line, `` (Ann: 👍; Bob: ❤️)``.
- ``[...] *** <Name> sent file "IMG_1.jpg"`` (``sent file of type image/jpeg``, or no
  more): one line a file, its reactions after it when the message has no text.
- ``[...] <Name> Poll: question`` then an indented ``[N] option`` line an option, N its
  votes.
- ``[...] *** what happened``: a status message (calls, group changes, timers, safety
  numbers).

Decisions: speaker = the name in angle brackets (the owner as the backup names them);
listeners = the other of two speakers; thread = the file's name without `` (_idN)``;
times read in ``--tz``; reactions to ``extra.reactions`` (``{"actor", "reaction"}``, as
the other Signal layouts), a file to ``extra.attachments`` and an ``[attachment] name``
chunk, a poll to ``[poll] question: option (N), ...`` with ``extra.poll``; status
messages tagged ``system`` with no speaker. A line before the first message is
rejected with its line.

Ids and their scope (docs/ids.md): none in the file: the content hash, its conversation
the chat (the thread).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath
from typing import Any

from convo.core.compression import strip_compressed
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import naive_ts
from convo.importers.apps.common import SYSTEM_TAG, numbered_lines, other_party
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.registry import head_lines

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
LINE = re.compile(
    r"^\[(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d\d), (\d{4}) "
    r"(\d\d):(\d\d):(\d\d)\] (.*)$"
)
_SAID = re.compile(r"^<([^<>]+)> (.*)$", re.S)
_FILE = re.compile(r'^\*\*\* <([^<>]+)> sent file(?: "(.*)"| of type (\S+))?(.*)$')
# `` (Ann: 👍; Bob: ❤️)``: names, then emoji (no letters or digits)
_REACTIONS = re.compile(r" \(((?:[^:;()\n]+: [^\w\s;()]{1,16}(?:; |(?=\))))+)\)$")
_OPTION = re.compile(r"^\s+\[(\d+)\] (.*)$")
_CHAT_ID = re.compile(r" \(_id\d+\)$")


def sniff(source: Source) -> int:
    """Three of the head's first lines (or every one of a shorter file) are its lines,
    one a message (``<Name> `` after the time) or a file sent."""
    lines = head_lines(source, 8)
    hits = [m for m in map(LINE.match, lines) if m]
    if not hits or len(hits) < min(3, len(lines)):
        return 0
    said = any(_SAID.match(m[7]) or m[7].startswith("*** <") for m in hits)
    return 85 if said else 0


@dataclass
class _Msg:
    line: int
    when: str | None
    speaker: str | None
    text: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    system: bool = False
    options: list[tuple[str, int]] = field(default_factory=list)


def _when(m: re.Match[str], ctx: ImportContext) -> str | None:
    try:
        dt = datetime(
            int(m[3]), _MONTHS.index(m[1]) + 1, int(m[2]), int(m[4]), int(m[5]), int(m[6])
        )
    except ValueError:
        return None
    return naive_ts(dt, ctx.options.tz)


def _start(n: int, m: re.Match[str], ctx: ImportContext) -> _Msg:
    rest = m[7]
    when = _when(m, ctx)
    got = _FILE.match(rest)
    if got:
        name = got[2] if got[2] is not None else (f"of type {got[3]}" if got[3] else "")
        msg = _Msg(n, when, got[1], extra={"attachments": [{"name": got[2], "type": got[3]}]})
        msg.text = [f"[attachment] {name}".rstrip()]
        _reactions(msg, got[4])
        return msg
    said = _SAID.match(rest)
    if said is None:
        return _Msg(n, when, None, [rest.removeprefix("*** ")], system=True)
    if said[2].startswith("Poll: "):
        return _Msg(n, when, said[1], extra={"poll": {"question": said[2][6:]}})
    return _Msg(n, when, said[1], [said[2]])


def _reactions(msg: _Msg, tail: str) -> str:
    """``tail`` without the reactions it ends with, which go to ``extra.reactions``."""
    got = _REACTIONS.search(tail)
    if got is None:
        return tail
    pairs = (item.rsplit(": ", 1) for item in got[1].split("; "))
    msg.extra["reactions"] = [{"actor": a, "reaction": r} for a, r in pairs]
    return tail[: got.start()]


def _messages(source: Source, ctx: ImportContext) -> Iterator[_Msg]:
    cur: _Msg | None = None
    for n, line in numbered_lines(source, ctx.text_decoder()):
        m = LINE.match(line)
        if m:
            if cur is not None:
                yield cur
            cur = _start(n, m, ctx)
        elif cur is None:
            if line.strip():
                ctx.reject(ctx.loc(n), "text before the first signalbackup-tools line", line)
        elif "poll" in cur.extra and (opt := _OPTION.match(line)):
            cur.options.append((opt[2], int(opt[1])))
        else:
            cur.text.append(line)
    if cur is not None:
        yield cur


def _record(msg: _Msg, speakers: list[str], thread: str, ctx: ImportContext) -> ConversationMessage:
    if msg.text and "attachments" not in msg.extra:
        msg.text[-1] = _reactions(msg, msg.text[-1])
    if "poll" in msg.extra:
        msg.extra["poll"]["options"] = [{"text": t, "votes": v} for t, v in msg.options]
        choices = ", ".join(f"{t} ({v})" for t, v in msg.options)
        msg.text = [f"[poll] {msg.extra['poll']['question']}: {choices}".rstrip(": ")]
    if msg.when is None:
        ctx.warn(ctx.loc(msg.line), "a time that is no date; time left unknown")
    return message(
        "\n".join(msg.text).strip(),
        speaker=msg.speaker,
        listeners=[] if msg.system else other_party(speakers, msg.speaker),
        timestamp=msg.when,
        source_id=ctx.loc(msg.line),
        format="signal",
        thread=thread,
        tags=[SYSTEM_TAG] if msg.system else [],
        extra=msg.extra,
    )


def _speakers(source: Source, ctx: ImportContext) -> list[str]:
    """The first three distinct speakers (a first pass: a chat of two has a listener)."""
    seen: dict[str, None] = {}
    for _, line in numbered_lines(source, ctx.text_decoder()):
        m = LINE.match(line)
        got = (_FILE.match(m[7]) or _SAID.match(m[7])) if m else None
        if got:
            seen.setdefault(got[1])
            if len(seen) > 2:
                break
    return list(seen)


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    thread = _CHAT_ID.sub("", PurePath(strip_compressed(source.name)).stem) or source.name
    speakers = _speakers(source, ctx)
    for msg in _messages(source, ctx):
        yield _record(msg, speakers, thread, ctx)
