"""The header Otter.ai writes above the paragraphs of an export (.docx, .pdf, and .txt
with its title): the conversation's title, a date line, then Otter's keywords and the
speakers, each under a capitalised heading.

    Weekly sync
    Tue, 5/14 6:02PM • 12:40

    SUMMARY KEYWORDS
    launch, budget, timeline

    SPEAKERS
    Speaker 1, Jane Doe

    Jane Doe  0:00
    ...

The date line is the weekday, the month and day (``M/D``; ``M/D/YYYY`` for another
year; or ``Mar 4, 2024``), the time the recording started (12-hour clock) and, after a
bullet, its length.

Decisions:

- The title is every message's ``subject`` (as Teams' title); the keywords and the
  speakers go to the first message's ``extra`` (``keywords``, ``speakers``: lists).
- The date line with a year is the recording's start (read in ``--tz``;
  ``--start-date`` wins). Without one (Otter writes none for the current year) no
  year is guessed, not from the weekday either: the offsets stay on the epoch (or
  ``--start-date``), the line is kept in the first message's ``extra.date`` and one
  warning says to give ``--start-date``. The length is not kept (the offsets say as
  much).
- Only before the first paragraph; the title only as the first line, and only when a
  date line or a heading follows it (else it is rejected as text before the first
  speaker line, as it was).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from convo.importers.context import ImportContext

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DATE = re.compile(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? (?:(?P<month>\d{1,2})/(?P<day>\d{1,2})"
    r"(?:/(?P<year>\d{4}|\d{2}))?|(?P<mname>[A-Z][a-z]{2})[a-z]*\.? (?P<mday>\d{1,2})"
    r"(?:, (?P<myear>\d{4}))?),? (?P<h>\d{1,2}):(?P<mi>[0-5]\d) ?(?P<half>[AaPp][Mm])"
    r"(?: *[•·|-] *(?:\d{1,3}:)?\d{1,2}:[0-5]\d)?"
)
SECTIONS = {"SUMMARY KEYWORDS": "keywords", "KEYWORDS": "keywords", "SPEAKERS": "speakers"}


def is_date(line: str) -> bool:
    return DATE.fullmatch(line.strip()) is not None


class OtterHeader:
    """Reads the header lines, one at a time (``take``), before the first paragraph."""

    def __init__(self, ctx: ImportContext, *, titled: bool = True):
        self.ctx = ctx
        self.titled = titled  # the first line may be the title (not in Teams' reader)
        self._title_at = ""
        self.title: str | None = None
        self.start: datetime | None = None
        self.lines = 0  # header lines taken
        self._section: str | None = None
        self._dated = False
        self._extra: dict[str, Any] = {}
        self._given = False

    def take(self, line: str, where: str) -> bool:
        """Whether ``line`` (stripped, not blank; found at ``where``) is a header line."""
        if self._section is not None:
            self._extra[self._section] = [x.strip() for x in line.split(",") if x.strip()]
            self._section = None
        elif line in SECTIONS:
            self._section = SECTIONS[line]
        elif not self._dated and DATE.fullmatch(line):
            self._dated = True
            self._date(line, where)
        elif self.lines == 0 and self.titled:
            self.title, self._title_at = line, where
        else:
            return False
        self.lines += 1
        return True

    def settle(self) -> None:
        """At the first paragraph: a first line that no date line or heading followed is
        no title but text before the first speaker line (rejected, as without a header)."""
        if self.title is not None and self.lines == 1:
            self.ctx.reject(self._title_at, "text before the first Otter speaker line", self.title)
            self.title = None

    def _date(self, line: str, where: str) -> None:
        start = _start(line, self.ctx)
        if start is not None:
            self.start = start
            return
        self._extra["date"] = line
        if self.ctx.options.start_date is None:
            self.ctx.warn(
                where,
                "Otter's date line names no year (or no date that reads); the times are "
                "offsets from the start of the recording: give --start-date",
            )

    def first_extra(self) -> dict[str, Any] | None:
        """What the header says for the first message's ``extra`` (once; then None)."""
        if self._given or not self._extra:
            return None
        self._given = True
        return self._extra


def _start(line: str, ctx: ImportContext) -> datetime | None:
    """The recording's start from a date line with its year (``Thu, 12/3/2020
    10:36AM``, ``Mon, Mar 4, 2024 9:58AM``), in ``--tz``; None without a year."""
    m = DATE.fullmatch(line)
    if m is None:
        return None
    year_text = m["year"] or m["myear"]
    hour = int(m["h"])
    if not year_text or not 1 <= hour <= 12:
        return None
    year = int(year_text) + (2000 if len(year_text) == 2 else 0)
    hour = hour % 12 + (12 if m["half"].lower() == "pm" else 0)
    if m["mname"]:
        name = m["mname"].lower()
        month, day = (MONTHS.index(name) + 1 if name in MONTHS else 0), int(m["mday"])
    else:
        month, day = int(m["month"]), int(m["day"])
    try:
        return datetime(year, month, day, hour, int(m["mi"]), tzinfo=ctx.options.tz)
    except ValueError:
        return None
