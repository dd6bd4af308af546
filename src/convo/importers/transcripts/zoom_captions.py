"""Zoom's saved captions (``zoom-cc``): ``meeting_saved_closed_caption.txt``, the file
"Save captions" writes into the meeting's folder (``Documents/Zoom/<date time topic>/``),
and the ``closed_caption.txt`` beside a recording.

The shape, as the tools that read real files describe and test it (found with the code
search: meeting-notes plugins and test data of meeting bots quoting the file): a header
line ``[Speaker Name] HH:MM:SS``, the words on the next line(s), a blank line.

Decisions:

- One message a caption paragraph; the speaker the bracketed name as written.
- Time: the header's time is the clock of the meeting (not an offset from the start of
  a recording), so it is taken on ``--start-date``'s day, in its zone (else ``--tz``),
  as the Zoom chat's (``zoomchat``); without ``--start-date``, on the epoch's day (an
  undated time). A clock that goes back by more than twelve hours has passed midnight:
  the next day. ``extra.start`` holds the seconds since that first midnight.
- Ids: the content hash of the time of day, the scope the file's name with its folder
  (every meeting's file has the same name: ``build.GENERIC_NAMES``).
- A non-blank line before the first header is rejected with its line; a header without
  words is skipped with a warning (``textturns``). Streamed line by line.
- Detection: the first non-blank line is a header, and a second is in the head or the
  head is the whole file, 80.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import local_midnight
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines
from convo.importers.transcripts.textturns import Header, headed_paragraphs

NAME = "zoom-cc"
PATTERNS = ("meeting_saved_closed_caption.txt", "closed_caption.txt", "*.txt")
HEADER = re.compile(
    r"\[(?P<name>[^\[\]]{1,120})\][ \t]+(?P<h>\d{1,2}):(?P<m>[0-5]\d):(?P<s>[0-5]\d)"
)
_DAY = 86400


def sniff_zoom_cc(source: Source) -> int:
    lines = head_lines(source, 12)
    if not lines or not HEADER.fullmatch(lines[0].strip()):
        return 0
    heads = sum(1 for x in lines if HEADER.fullmatch(x.strip()))
    whole = len(source.head) < 4096 and len(lines) < 12
    return 80 if heads >= 2 or (whole and len(lines) >= 2) else 0


class _Clock:
    """Headers read in order, their times counted from the first day's midnight."""

    def __init__(self) -> None:
        self.days = 0
        self.last = -1

    def header(self, line: str) -> Header | None:
        m = HEADER.fullmatch(line)
        if m is None:
            return None
        secs = int(m["h"]) * 3600 + int(m["m"]) * 60 + int(m["s"])
        if self.last >= 0 and secs + _DAY // 2 < self.last - self.days * _DAY:
            self.days += 1  # past midnight
        self.last = secs + self.days * _DAY
        return m["name"].strip() or None, self.last, ""


def _no_footer(line: str) -> bool:
    return False


def read_zoom_cc(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    given = ctx.options.start_date
    day = None if given is None else local_midnight(given, ctx.options.tz)
    return headed_paragraphs(
        source, ctx, NAME, _Clock().header, _no_footer, "Zoom caption", start=day
    )


DESCRIPTION = (
    "Zoom's saved captions (meeting_saved_closed_caption.txt: `[Name] HH:MM:SS`, then the words)"
)
EXAMPLE = "[Alice Smith] 14:03:25\nGood afternoon, everyone.\n\n[Bob Jones] 14:03:31\nHi Alice."
FIELDS = Fields(
    speaker="the bracketed name on the header line, as written",
    listeners="none (a transcript names no listeners)",
    time="the header's clock on `--start-date`'s day (a clock going back past midnight: "
    "the next day); without it on the epoch's day (an undated time)",
    zone="the clock is read in `--start-date`'s zone, else `--tz` (default UTC)",
    thread="none",
    id=CONTENT_HASH + ", hashing the time of day",
    scope="the file's name with its folder (the meeting's: every meeting's file has one name)",
    extra="`start` (seconds since the first day's midnight)",
)
FORMATS = (
    Format(NAME, "transcript", DESCRIPTION, PATTERNS, sniff_zoom_cc, read_zoom_cc, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
