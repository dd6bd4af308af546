"""TranscripTonic's transcripts (``transcriptonic``): the open-source Chrome extension
that saves the captions of a Google Meet, Teams or Zoom call as a text file
(``TranscripTonic/Transcript-TITLE at DATE TIME on.txt``) when the call ends.

The shape (vivek-nexus/transcriptonic ``extension/background.js``,
``getTranscriptString`` and ``downloadTranscript``): each block of one person's
captions is a line ``Name (05/14/2024, 10:02 AM)`` (the time the block began, as the
browser's ``toLocaleString`` writes it: to the minute, in the browser's zone and its
locale's date order), then the words, then a blank line; then a rule, ``CHAT
MESSAGES``, a rule and the call's chat messages in the same layout; then the rule, the
line ``Transcript saved using TranscripTonic Chrome extension (...)`` and the rule.

Decisions:

- One message a block; the speaker the name as written (``You`` when Meet said so);
  no listeners (a transcript's). The chat messages are messages too, tagged ``chat``.
- Time: the block's date and time, read in ``--tz`` (the file's times are the
  browser's local time, naive). The date's order is the locale's: decided on the head
  of the file (a first number over 12: day first; a second one: month first); when
  the head cannot tell, month first (``en-US``), said in one warning. ``--start-date``
  is not used (the file has dates).
- The rules, ``CHAT MESSAGES`` and the closing line are structure. A line before the
  first block is rejected with its line; a block without words is skipped with a
  warning.

Ids and their scope (docs/ids.md): no ids in the file: the content hash, its
conversation the file's name (the call).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import naive_ts
from convo.importers.build import ContentIds, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, NAIVE_IN_TZ, Fields
from convo.importers.registry import Format, head_lines
from convo.importers.transcripts.cues import text_lines

NAME = "transcriptonic"
PATTERNS = ("*.txt",)
_DATE = r"(?P<a>\d{1,4})[/.\-](?P<b>\d{1,2})[/.\-](?P<c>\d{1,4})"
_CLOCK = (
    r"(?P<h>\d{1,2})[:.](?P<mi>[0-5]\d)(?:[:.](?P<s>[0-5]\d))?\s?(?P<half>[AaPp]\.?\s?[Mm]\.?)?"
)
HEADER = re.compile(rf"(?P<name>\S.*?) \({_DATE},?\s+{_CLOCK}\)")
RULE = "-" * 15
CHAT = "CHAT MESSAGES"
FOOTER = "Transcript saved using TranscripTonic"


def sniff_transcriptonic(source: Source) -> int:
    lines = [x.strip() for x in head_lines(source, 40)]
    if not lines or HEADER.fullmatch(lines[0]) is None:
        return 0
    if any(x.startswith(FOOTER) or x == CHAT for x in lines):
        return 85
    return 60 if sum(HEADER.fullmatch(x) is not None for x in lines) >= 2 else 0


def day_first(source: Source) -> bool | None:
    """Whether the file's dates put the day first, from the head (None: it cannot tell)."""
    for line in head_lines(source, 400):
        m = HEADER.fullmatch(line.strip())
        if m is None or len(m["a"]) == 4:
            continue
        if int(m["a"]) > 12:
            return True
        if int(m["b"]) > 12:
            return False
    return None


def block_time(m: re.Match[str], day_first: bool, ctx: ImportContext) -> str | None:
    """The block's time (naive, in ``--tz``) as a UTC timestamp; None when unreadable."""
    a, b, c = int(m["a"]), int(m["b"]), int(m["c"])
    if len(m["a"]) == 4:
        year, month, day = a, b, c
    else:
        year, month, day = (c, b, a) if day_first else (c, a, b)
    hour = int(m["h"])
    if m["half"]:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if m["half"][0] in "Pp" else 0)
    try:
        when = datetime(year, month, day, hour, int(m["mi"]), int(m["s"] or 0))
    except ValueError:
        return None
    return naive_ts(when, ctx.options.tz)


class _Reader:
    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.ids = ContentIds(source.name)
        order = day_first(source)
        if order is None:
            ctx.warn(source.name, "the dates do not tell day from month: read month first (en-US)")
        self.day_first = bool(order)
        self.chat = False
        self.count = 0

    def block(self, n: int, m: re.Match[str], lines: list[str]) -> Iterator[ConversationMessage]:
        where = self.ctx.loc(n)
        text = "\n".join(lines).strip("\n")
        if not text:
            self.ctx.warn(where, "a block without words; skipped")
            return
        ts = block_time(m, self.day_first, self.ctx)
        if ts is None:
            self.ctx.reject(where, "a block's date and time do not read", m.group(0))
            return
        msg = message(text, speaker=m["name"], timestamp=ts, source_id=where, format=NAME,
                      tags=["chat"] if self.chat else None)  # fmt: skip
        self.ids.assign(msg)
        self.count += 1
        yield msg


def read_transcriptonic(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    reader = _Reader(source, ctx)
    cur: tuple[int, re.Match[str]] | None = None
    lines: list[str] = []
    for n, raw in text_lines(source, ctx.text_decoder()):
        line = raw.strip()
        m = HEADER.fullmatch(line) if line else None
        if m is not None or line in (RULE, CHAT) or line.startswith(FOOTER):
            if cur is not None:
                yield from reader.block(*cur, lines)
            cur, lines = ((n, m) if m is not None else None), []
            reader.chat = reader.chat or line == CHAT
        elif cur is not None:
            lines.append(raw.rstrip())
        elif line:
            ctx.reject(ctx.loc(n), "text before the first TranscripTonic block", raw)
    if cur is not None:
        yield from reader.block(*cur, lines)
    if not reader.count:
        ctx.warn(source.name, "no TranscripTonic blocks; nothing imported")


DESCRIPTION = (
    "TranscripTonic's Meet/Teams/Zoom caption transcripts (`Name (05/14/2024, 10:02 AM)` blocks)"
)
EXAMPLE = "Dana Whitfield (05/14/2024, 10:02 AM)\nWelcome, everyone.\n\nMarcus Oyelaran (05/14/2024, 10:03 AM)\nThanks!"
FIELDS = Fields(
    speaker="the name before the block's date, as written",
    listeners="none (a transcript names no listeners)",
    time="the block's date and time (to the minute), in `--tz`; the date's order from the "
    "file's head (month first when it cannot tell, with a warning)",
    zone=NAIVE_IN_TZ,
    thread="none",
    id=CONTENT_HASH,
    scope="the file's name (the call)",
    tags="`chat` for the call's chat messages",
)
FORMATS = (
    Format(NAME, "transcript", DESCRIPTION, PATTERNS, sniff_transcriptonic,
           read_transcriptonic, EXAMPLE, fields=FIELDS),
)  # fmt: skip
