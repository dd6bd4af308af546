"""Pidgin's (libpurple's) plain-text chat logs (format ``pidgin``): one file a
conversation, ``~/.purple/logs/<protocol>/<account>/<buddy or room>/<date>.txt``, of IM,
XMPP, IRC and the other networks Pidgin speaks (libpurple ``log.c``, ``txt_logger_write``,
found with the code search, as are its HTML logger's same header and lines).

The file opens with ``Conversation with NAME at DATE on ACCOUNT (PROTOCOL)`` (``DATE`` as
``purple_date_format_full`` writes it: the system's ``%c``, ``Mon 04 Mar 2024 10:00:00
AM CET`` or ``Mon Mar  4 10:00:00 2024``), then a line a message: ``(10:00:05) alice:
text``, ``(10:00:09) ***alice waves`` (``/me``), ``(10:00:12) alice <AUTO-REPLY>: text``,
``(10:01:00) alice left the room.`` (an event); a message's later lines follow it
without a time. The time is ``%X`` (``10:00:05`` or ``10:00:05 AM``), the date too
(``%x %X``) when the log is a day old.

Decisions: speaker = the name before ``: `` (an event: none, tagged ``system``; an
action: the word after ``***``, tagged ``action``); listeners = the other of two
speakers; thread = the conversation's name (the buddy or the room), the account and
protocol in ``extra``; time = the clock on the header's day (a clock earlier than the one
before it is the next day), or the line's own date, read in ``--tz`` (the header's zone
name is not one convo can read reliably). A line before the header, or a header whose
date does not read, is rejected with its line (the messages keep no time).

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the thread.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import naive_ts, parse_datetime
from convo.importers.apps.common import SYSTEM_TAG, numbered_lines, other_party
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines

NAME = "pidgin"
HEADER = re.compile(r"^Conversation with (.+) at (.+?) on (.+) \(([\w-]+)\)$")
_LINE = re.compile(r"^\(((?:[\d/.-]+ )?\d{1,2}:\d\d:\d\d(?: ?[AaPp][Mm])?)\) (.*)$", re.S)
_CLOCK = re.compile(r"(\d{1,2}):(\d\d):(\d\d)(?: ?([AaPp])[Mm])?$")
_DAY = re.compile(r"^(\d{1,4})[/.-](\d{1,2})[/.-](\d{1,4}) ")
_ZONE = re.compile(r" [A-Z]{2,5}$")
# what an event's words have before a colon (``The topic for #tea is: ...``)
_EVENT = re.compile(r"\b(?:is|are|was|has|have|changed|set|topic)\b|\.$")


def sniff(source: Source) -> int:
    lines = head_lines(source, 3)
    if not lines or not HEADER.match(lines[0]):
        return 0
    return 90 if len(lines) == 1 or _LINE.match(lines[1]) else 0


@dataclass
class _Msg:
    line: int
    when: datetime | None
    rest: str
    more: list[str] = field(default_factory=list)


def _start(header: re.Match[str]) -> datetime | None:
    """The header's date as the wall clock it writes (its zone's name left out)."""
    try:
        return parse_datetime(_ZONE.sub("", header[2].strip())).replace(tzinfo=None)
    except ValueError:
        return None


def _clock(stamp: str, day: datetime | None, last: datetime | None) -> datetime | None:
    """A line's time: its own date, else its clock on the day (the next day when the
    clock went back)."""
    got = _CLOCK.search(stamp)
    if got is None:
        return None
    hour, minute, second = int(got[1]), int(got[2]), int(got[3])
    if got[4]:
        hour = hour % 12 + (12 if got[4].lower() == "p" else 0)
    dated = _DAY.match(stamp)
    if dated:  # a log a day old: the date with the clock (month first, as %x in C/en_US)
        a, b, c = (int(x) for x in dated.groups())
        year, month, dom = (a, b, c) if a > 31 else (c + (2000 if c < 100 else 0), a, b)
        try:
            return datetime(year, month, dom, hour, minute, second)
        except ValueError:
            return None
    if day is None:
        return None
    when = day.replace(hour=hour, minute=minute, second=second)
    while last is not None and when < last - timedelta(minutes=1):
        when += timedelta(days=1)
    return when


def _messages(source: Source, ctx: ImportContext, head: dict[str, str]) -> Iterator[_Msg]:
    cur: _Msg | None = None
    day: datetime | None = None
    last: datetime | None = None
    for n, line in numbered_lines(source, ctx.text_decoder()):
        header = HEADER.match(line) if not head else None
        if header:
            head.update(name=header[1], account=header[3], protocol=header[4])
            day = last = _start(header)
            if day is None:
                ctx.reject(ctx.loc(n), "a Pidgin header whose date does not read", line)
            continue
        m = _LINE.match(line)
        if m and head:
            if cur is not None:
                yield cur
            when = _clock(m[1], day, last)
            last = when or last
            cur = _Msg(n, when, m[2])
        elif cur is not None:
            cur.more.append(line)
        elif line.strip():
            ctx.reject(ctx.loc(n), "text before the first Pidgin log line", line)
    if cur is not None:
        yield cur


def _parts(rest: str) -> tuple[str | None, str, list[str], bool]:
    """The speaker, the text, the tags and whether it is an auto-reply."""
    if rest.startswith("***"):
        nick, _, text = rest[3:].partition(" ")
        return nick or None, text, ["action"], False
    name, sep, text = rest.partition(": ")
    if sep and name and len(name) <= 80 and not _EVENT.search(name):
        auto = name.endswith(" <AUTO-REPLY>")
        return name.removesuffix(" <AUTO-REPLY>"), text, [], auto
    return None, rest, [SYSTEM_TAG], False


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    head: dict[str, str] = {}
    speakers: dict[str, None] = {}
    for msg in _messages(source, ImportContext(source, ctx.options), {}):  # a first pass
        who = _parts(msg.rest)[0]
        if who:
            speakers.setdefault(who)
        if len(speakers) > 2:
            break
    for msg in _messages(source, ctx, head):
        speaker, text, tags, auto = _parts(msg.rest)
        body = "\n".join([text, *msg.more]).strip()
        yield message(
            body or "[empty]",
            speaker=speaker,
            listeners=[] if SYSTEM_TAG in tags else other_party(list(speakers), speaker),
            timestamp=naive_ts(msg.when, ctx.options.tz) if msg.when else None,
            source_id=ctx.loc(msg.line),
            format=NAME,
            thread=head.get("name") or None,
            tags=tags,
            extra={
                "account": head.get("account"),
                "protocol": head.get("protocol"),
                "auto_reply": True if auto else None,
            },
        )


DESCRIPTION = "Pidgin (libpurple) plain-text chat logs (~/.purple/logs/.../*.txt)"
EXAMPLE = (
    "Conversation with bob@example.org at Mon 04 Mar 2024 10:00:00 AM CET on "
    "alice@example.org/home (jabber)\n(10:00:05) bob@example.org: hi\n"
)
FIELDS = Fields(
    speaker="the name before `: ` (`***name` an action's; events: none)",
    listeners="the other of two speakers",
    time="the line's clock on the header's day (the next day when it goes back), or its own date",
    zone="naive: read in `--tz` (default UTC); the header's zone name is left out",
    thread="the conversation's name in the header (the buddy or the room)",
    id="no message ids: " + CONTENT_HASH,
    scope="the thread",
    tags="`action` (`/me`), `system` (events)",
    extra="`account`, `protocol`, `auto_reply`",
)
FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.txt",), sniff, read, EXAMPLE, fields=FIELDS),)
