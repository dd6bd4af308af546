"""Matrix rooms exported by Element as plain text ("Export chat" → Plain Text), format
``matrix-txt``, records ``matrix`` (element-hq/element-web
``src/utils/exportUtils/PlainTextExport.ts``, ``formatFullDate`` in ``src/DateUtils.ts``).

Each event is ``<date> - <text>``, its text as Element shows it (``textForEvent``):
``Alice: hello`` for a message, ``* Alice waves`` for an emote, ``Alice joined the room``
and the like for other events; a reply is ``Bob: <Alice "the first line of it"> text``;
a file's text ends with `` (Media omitted)``, `` (File Attached)`` or `` (Error fetching
file)``. A message's later lines follow it without a date. The file is
``matrix - <room> - Chat Export - <time>.txt`` (``export.txt`` inside the zip written with
the files).

The date in the user's language and clock, in the browser's zone; read here in English:
- element-web before 2023 (``_t("%(weekDayName)s, %(monthName)s %(day)s %(fullYear)s
  %(time)s")``): ``Thu, Mar 7 2024 10:00:00``, 12-hour ``Thu, Mar 7 2024 1:05:00PM``;
- since (``Intl.DateTimeFormat``, weekday, month and day, year, time): en-US ``Thu, Mar
  7, 2024, 10:00:00`` (``1:05:00 PM``), en-GB ``Thu, 7 Mar 2024, 13:05:00`` (``4:58:32
  pm``).

Decisions: speaker = the name before ``: `` (a name with the words of an event before its
colon, ``Alice changed the topic to: ...``, is an event); an emote's speaker is the
longest name already seen that starts it, else its first word; other events are tagged
``system`` with no speaker; a file's line (``Bob sent an image.``) is its sender's;
listeners = the replied-to sender (when the quote names a speaker of the file, not an
MXID), else the other of two speakers; a reply's quote goes to ``extra.quote`` (``author``, ``text``), a file's note to
``extra.media``; thread = the room's name from the file's name; times read in ``--tz``.
A line before the first dated one is rejected with its line.

Ids and their scope (docs/ids.md): none in the file: the content hash, its conversation
the room (the thread).
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
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines

NAME = "matrix-txt"
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WD = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_MON = r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
_CLOCK = r"(\d{1,2}):(\d\d)(?::(\d\d))?[\s\u202f]?([AaPp][Mm])?"
# month first (element-web's own words, en-US's Intl) or day first (en-GB's Intl)
_DATED = re.compile(
    rf"^{_WD},? (?:{_MON} (\d{{1,2}}),? |(\d{{1,2}}) {_MON},? )(\d{{4}}),? {_CLOCK} - (.*)$"
)
_EVENT_WORDS = re.compile(
    r"\b(?:changed|set|made|invited|removed|upgraded|sent|ended|started|enabled|disabled|"
    r"pinned|unpinned|banned|unbanned|withdrew|rejected|accepted|created|updated|added|"
    r"has|is|was|placed|answered|declined|turned|allowed|prevented)\b"
)
_REPLY = re.compile(r'^<([^<>"]+?)(?: "(.*?)")?> (.*)$', re.S)
_MEDIA = re.compile(
    r" \((Media omitted(?: - file size limit exceeded)?|File Attached|Error fetching file)\)$"
)
_SENT = re.compile(
    r"^(.+?) sent (?:an image|a video|a sticker|an audio file|a voice message|a file)\.$"
)
_FILE_NAME = re.compile(r"^matrix - (.+) - Chat Export - .*$")


def stamp(m: re.Match[str]) -> datetime | None:
    """The naive time of a dated line's match."""
    month = _MONTHS.index((m[1] or m[4])[:3].lower()) + 1
    day, year = int(m[2] or m[3]), int(m[5])
    hour, minute, second = int(m[6]), int(m[7]), int(m[8] or 0)
    if m[9]:
        hour = hour % 12 + (12 if m[9].lower() == "pm" else 0)
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None


def sniff(source: Source) -> int:
    lines = head_lines(source, 8)
    hits = [m for m in map(_DATED.match, lines) if m]
    if not lines or not _DATED.match(lines[0]) or len(hits) < min(2, len(lines)):
        return 0
    return 85 if any(_said(m[10]) for m in hits) else 60


def _said(rest: str) -> tuple[str, str] | None:
    """``Name: text`` as the speaker and the text; None for an event's words."""
    name, sep, text = rest.partition(": ")
    if not sep or not name.strip() or len(name) > 80 or _EVENT_WORDS.search(name):
        return None
    return name, text


@dataclass
class _Event:
    line: int
    when: datetime | None
    rest: str
    more: list[str] = field(default_factory=list)


def _events(source: Source, ctx: ImportContext) -> Iterator[_Event]:
    cur: _Event | None = None
    for n, line in numbered_lines(source, ctx.text_decoder()):
        m = _DATED.match(line)
        if m:
            if cur is not None:
                yield cur
            cur = _Event(n, stamp(m), m[10])
        elif cur is not None:
            cur.more.append(line)
        elif line.strip():
            ctx.reject(ctx.loc(n), "text before the first dated Element export line", line)
    if cur is not None:
        yield cur


def _speakers(source: Source, ctx: ImportContext) -> list[str]:
    """Every speaker of a message (a first pass: emotes, and a chat of two's listener)."""
    seen: dict[str, None] = {}
    for ev in _events(source, ImportContext(source, ctx.options)):
        got = _said(ev.rest)
        if got:
            seen.setdefault(got[0])
    return list(seen)


def _parts(ev: _Event, speakers: list[str]) -> tuple[str | None, str, list[str], dict[str, Any]]:
    """The speaker, the text, the tags and the ``extra`` of an event."""
    text = "\n".join([ev.rest, *ev.more])
    extra: dict[str, Any] = {}
    media = _MEDIA.search(text)
    if media:
        extra["media"] = media[1]
        text = text[: media.start()]
    got = _said(text)
    if got is not None:
        speaker, text = got
        reply = _REPLY.match(text)
        if reply:
            extra["quote"] = {"author": reply[1], "text": reply[2]}
            text = reply[3]
        return speaker, text, [], extra
    if text.startswith("* "):
        body = text[2:]
        name = max((s for s in speakers if body.startswith(s + " ")), key=len, default=None)
        name = name or body.partition(" ")[0]
        return name, body[len(name) :].strip(), ["action"], extra
    sent = _SENT.match(text)  # a file Element names without its words: its sender's
    if sent:
        return sent[1], text, [], extra
    return None, text, [SYSTEM_TAG], extra


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    stem = PurePath(strip_compressed(source.name)).stem
    named = _FILE_NAME.match(stem)
    thread = named[1] if named else stem or source.name
    speakers = _speakers(source, ctx)
    for ev in _events(source, ctx):
        speaker, text, tags, extra = _parts(ev, speakers)
        quoted = extra.get("quote", {}).get("author")
        # the quote names its author by display name or by MXID (``@alice:example.org``)
        known = quoted in speakers and quoted != speaker
        listeners = [quoted] if known else other_party(speakers, speaker)
        if ev.when is None:
            ctx.warn(ctx.loc(ev.line), "a date that is no day; time left unknown")
        yield message(
            text.strip() or f"[{extra.get('media', 'empty')}]",
            speaker=speaker,
            listeners=[] if SYSTEM_TAG in tags else listeners,
            timestamp=naive_ts(ev.when, ctx.options.tz) if ev.when else None,
            source_id=ctx.loc(ev.line),
            format="matrix",
            thread=thread,
            tags=tags,
            extra=extra,
        )


DESCRIPTION = "Matrix rooms exported by Element as plain text (Export chat → Plain Text)"
EXAMPLE = "Thu, Mar 7 2024 10:01:12 - Alice: hello\n"
FIELDS = Fields(
    speaker="the name before `: ` (an emote: the name after `* `; events: none)",
    listeners="the replied-to sender, else the other of two speakers",
    time="the line's date (English, the user's clock: 24- or 12-hour)",
    zone="naive: read in `--tz` (default UTC)",
    thread="the room's name in the file's name (`matrix - ROOM - Chat Export - ...`)",
    id="no message ids: " + CONTENT_HASH,
    scope="the room (the thread)",
    tags="`action` (`/me`), `system` (joins, topics, other events)",
    extra="`quote` (a reply's `author` and `text`), `media` (the file's note)",
)
FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.txt",), sniff, read, EXAMPLE, fields=FIELDS),)
