"""Google Meet transcripts (``google-meet``): the Google Doc Meet writes, downloaded as .txt
or .docx (its paragraphs read by ``convo.importers.docx``, a paragraph a line).

The shape, as parsers of real transcripts read it and as users quote their documents
(found with the code search):

- the title line: ``NAME (2023-09-21 11:02 GMT-4) - Transcript`` (2021-2024),
  ``NAME - 2024/11/21 15:51 GMT - Transcript`` or ``... CEST - Transcript`` (later), or
  ``NAME - Transcript`` after a line with the date alone (``Oct 2, 2025``, the
  Gemini-era documents);
- ``Attendees``, the attendees separated by commas (``Ann's Presentation`` is a shared
  screen), ``Transcript``;
- the notice ``This editable transcript was computer generated and might contain
  errors. ...`` (at the top or the bottom);
- a time mark line ``00:05:00`` every few minutes (the first ``00:00:00`` may be
  missing), one line a speaker paragraph, ``Name: text``; blank lines and lines of a
  lone space between them;
- ``Meeting ended after 00:28:14`` or ``Transcription ended after ...`` at the end;
- in a "Notes by Gemini" document (Meet's since 2024), Gemini's notes first (the
  meeting's name, ``Summary``, ``Details``, ``Suggested next steps``), then the
  ``📖 Transcript`` tab's line and the transcript above.

Decisions:

- One message a ``Name: text`` line; the speaker is the name as written. A line without
  text after the colon says nothing and is skipped (counted in one warning).
- Time: the title's date and time, in its zone (``GMT``, ``GMT+5:30``, or a zone
  abbreviation of a small table of unambiguous ones: ``CEST``, ``EDT``, ``PST``...; another
  abbreviation is read in ``--tz`` with a warning), plus the last time mark before the line
  (a line's own moment is not written); ``--start-date`` wins over the title; without
  either, the epoch + the mark (an undated transcript, as ``vtt`` does). A date without a
  time of day (``Oct 2, 2025``) gives no start: a warning says so. ``extra.start`` holds
  the mark in seconds.
- ``subject``: the meeting's name from the title line. ``extra.attendees``: the
  attendee list, on the file's first message. The notice, the time marks, the
  ``Attendees``/``Transcript`` headings and the closing line are structure. Gemini's
  notes go whole to the first message's ``extra.notes`` (up to 64 KiB; what is past it
  is counted in a warning).
- Any other line (a heading in another language, text without a ``Name:``) is rejected
  with its line.
- Detection: the title line (the first line, or the second after a date line) ends in
  `` - Transcript``; without a date in it, ``Attendees``, a time mark or a ``Name:`` line
  must follow in the head.
- Streamed line by line (``cues.text_lines``: a BOM decides, else UTF-8 line by line,
  else the file's legacy encoding, named in a warning, or ``--encoding``); a .docx
  paragraph by paragraph, ``source_id`` ``FILE#p-N`` (N counting every paragraph).

Ids and their scope (docs/ids.md): no ids in the file: the content hash, hashing the
time mark, its conversation the file's name (the meeting).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone, tzinfo

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.importers.archives import ZIP_MAGIC
from convo.importers.context import ImportContext
from convo.importers.docx import head_paragraphs, is_docx, paragraphs
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines
from convo.importers.transcripts.cues import text_lines
from convo.importers.transcripts.textturns import TextTurns, clock_seconds

NAME = "google-meet"
PATTERNS = ("*.txt", "*.docx")
_STAMP = r"(?P<date>\d{4}[-/]\d{2}[-/]\d{2}) (?:at )?(?P<time>\d{1,2}:\d{2}) (?P<zone>[A-Za-z][\w+:-]{0,11})"
TITLE_PAREN = re.compile(rf"(?P<title>.*?) ?\({_STAMP}\) - Transcript")
TITLE_DASH = re.compile(rf"(?P<title>.*?) - {_STAMP} - Transcript")
TITLE_BARE = re.compile(r"(?P<title>.*?) ?- Transcript")
DATE_ONLY = re.compile(r"[A-Z][a-z]{2,8}\.? \d{1,2}, \d{4}")
MARK = re.compile(r"\(?(\d{1,3}:[0-5]\d:[0-5]\d)\)?")
ENDED = re.compile(r"(?:Meeting|Transcription) ended after \d{1,3}:[0-5]\d:[0-5]\d")
NOTICE = "This editable transcript was computer generated"
# ``Name: text``; a colon not followed by a space (``https://...``) names no one.
SPEAKER = re.compile(r"(?P<name>[^:\s][^:]{0,99}?):(?: (?P<text>.*))?")
_GMT = re.compile(r"(?:GMT|UTC)(?:(?P<sign>[+-])(?P<h>\d{1,2})(?::?(?P<m>\d{2}))?)?")
# Abbreviations with one meaning (``CST``, ``IST`` and ``BST`` have several: not read).
ZONES = {
    "WET": 0, "WEST": 1, "CET": 1, "CEST": 2, "EET": 2, "EEST": 3, "MSK": 3,
    "EST": -5, "EDT": -4, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
    "AKST": -9, "AKDT": -8, "HST": -10, "JST": 9, "KST": 9, "AEST": 10, "AEDT": 11,
    "ACST": 9.5, "ACDT": 10.5, "AWST": 8, "NZST": 12, "NZDT": 13,
}  # fmt: skip


def title_of(line: str) -> re.Match[str] | None:
    """The title line's parts (``title``, and ``date``, ``time``, ``zone`` when dated)."""
    line = line.strip()
    return TITLE_PAREN.fullmatch(line) or TITLE_DASH.fullmatch(line) or TITLE_BARE.fullmatch(line)


def zone_of(name: str) -> tzinfo | None:
    """``GMT``, ``GMT-4``, ``GMT+5:30``, ``UTC`` or an abbreviation of ``ZONES``; else None."""
    m = _GMT.fullmatch(name)
    if m:
        if not m["sign"]:
            return UTC
        minutes = int(m["h"]) * 60 + int(m["m"] or 0)
        if minutes >= 24 * 60:
            return None
        return timezone(timedelta(minutes=minutes if m["sign"] == "+" else -minutes))
    hours = ZONES.get(name.upper())
    return None if hours is None else timezone(timedelta(hours=hours))


def _head(source: Source, count: int = 12) -> list[str]:
    """The first ``count`` non-blank lines, stripped (a .docx: of its first paragraphs)."""
    if not source.head.startswith(ZIP_MAGIC):
        return [x.strip() for x in head_lines(source, count)]
    if not is_docx(source):
        return []
    paras = head_paragraphs(source, count)
    return [y for y in (x.strip() for p in paras for x in p.split("\n")) if y][:count]


TRANSCRIPT_TAB = "\U0001f4d6 Transcript"  # the "📖 Transcript" tab of a Notes by Gemini doc
NOTES_LIMIT = 1 << 16  # the most of Gemini's notes kept (characters)


def gemini_notes(lines: list[str]) -> bool:
    """Whether a document's first lines are Gemini's notes before its transcript: the
    ``📖 Transcript`` tab's line, then the transcript's title (after its date line)."""
    if TRANSCRIPT_TAB not in lines:
        return False
    after = lines[lines.index(TRANSCRIPT_TAB) + 1 :][:2]
    if after and DATE_ONLY.fullmatch(after[0]):
        after = after[1:]
    return bool(after) and title_of(after[0]) is not None


def sniff_meet(source: Source) -> int:
    lines = _head(source)
    if gemini_notes(_head(source, 80)):
        return 85
    if len(lines) > 1 and DATE_ONLY.fullmatch(lines[0]):
        lines = lines[1:]
    m = title_of(lines[0]) if lines else None
    if m is None:
        return 0
    if m.groupdict().get("date"):
        return 90
    rest = lines[1:6]
    if any(x == "Attendees" or MARK.fullmatch(x) or SPEAKER.fullmatch(x) for x in rest):
        return 80
    return 0


class _Reader:
    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.turns = TextTurns(source, ctx, NAME)
        self.state = "title"  # title -> (attendees) -> body
        self.title: str | None = None
        self.attendees: list[str] = []
        self.mark = 0
        self.empty = 0
        self.day_line: str | None = None  # where the date stands alone (no time of day)
        self.notes: list[str] = []  # Gemini's notes before the transcript
        self.notes_size = 0
        self.notes_left = 0  # their lines past NOTES_LIMIT, not kept

    def line(self, where: str, raw: str) -> Iterator[ConversationMessage]:
        line = raw.strip()
        if not line or line.startswith(NOTICE):
            return
        if self.state == "notes":
            self._note(line)
            return
        if self.state != "body" and self._head(where, line):
            return
        self.state = "body"
        mark = MARK.fullmatch(line)
        if mark:
            self.mark = clock_seconds(mark[1])
        elif not ENDED.fullmatch(line):
            yield from self._speaker(where, line, raw)

    def _note(self, line: str) -> None:
        """A line of Gemini's notes (a Notes by Gemini doc's first tab), kept for the first
        message's ``extra.notes``; the transcript's tab line ends them."""
        if line == TRANSCRIPT_TAB:
            self.state = "title"
        elif self.notes_size < NOTES_LIMIT:
            self.notes.append(line)
            self.notes_size += len(line) + 1
        else:
            self.notes_left += 1

    def _head(self, where: str, line: str) -> bool:
        """Whether ``line`` is part of the header (title, date, attendees, headings)."""
        if self.state == "title":
            self.state = "head"
            if DATE_ONLY.fullmatch(line) and self.day_line is None:
                self.day_line = where
                self.state = "title"
                return True
            m = title_of(line)
            if m is not None:
                self._title(m, where)
                return True
        if line == "Transcript":
            self.state = "body"
            return True
        if self.state == "attendees":
            self.attendees += [x.strip() for x in line.split(",") if x.strip()]
            self.state = "head"  # one line (a paragraph of the document)
            return True
        if line == "Attendees" and self.state == "head":
            self.state = "attendees"
            return True
        return False

    def _speaker(self, where: str, line: str, raw: str) -> Iterator[ConversationMessage]:
        m = SPEAKER.fullmatch(line)
        if m is None:
            self.ctx.reject(where, "not a Google Meet transcript line", raw)
            return
        text = (m["text"] or "").strip()
        if not text:
            self.empty += 1
            return
        extra = self._first_extra() if not self.turns.count else None
        yield self.turns.build(
            [text], speaker=m["name"].strip(), offset=self.mark, where=where,
            subject=self.title, extra=extra,
        )  # fmt: skip

    def _first_extra(self) -> dict[str, object]:
        extra: dict[str, object] = {"attendees": self.attendees}
        if self.notes:
            extra["notes"] = "\n".join(self.notes)
        return extra

    def _title(self, m: re.Match[str], where: str) -> None:
        self.title = m["title"].strip() or None
        parts = m.groupdict()
        if not parts.get("date"):
            if self.day_line is not None and self.ctx.options.start_date is None:
                self.ctx.warn(
                    self.day_line,
                    "the transcript's date has no time of day; times are offsets on the "
                    "epoch (give --start-date)",
                )
            return
        zone = zone_of(parts["zone"])
        if zone is None:
            zone = self.ctx.options.tz
            self.ctx.warn(where, "the title's time zone is not one convo reads; read in --tz")
        try:
            y, mo, d = (int(x) for x in re.split(r"[-/]", parts["date"]))
            h, mi = (int(x) for x in parts["time"].split(":"))
            self.turns.stated_start(datetime(y, mo, d, h, mi, tzinfo=zone))
        except ValueError:
            self.ctx.warn(where, "the title's date is not a date; times are offsets")


def read_meet(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    reader = _Reader(source, ctx)
    if gemini_notes(_head(source, 80)):
        reader.state = "notes"
    if source.head.startswith(ZIP_MAGIC):  # the document downloaded as .docx
        for n, para in paragraphs(source, ctx, "a Google Meet transcript (.txt or .docx)"):
            where = ctx.loc(f"p-{n}")
            for raw in para.split("\n"):
                yield from reader.line(where, raw)
    else:
        for n, raw in text_lines(source, ctx.text_decoder()):
            yield from reader.line(ctx.loc(n), raw)
    if reader.empty:
        ctx.warn(source.name, f"{counted(reader.empty, 'speaker line')} without text skipped")
    if reader.notes_left:
        ctx.warn(source.name, f"Gemini's notes past {NOTES_LIMIT} characters not kept "
                 f"({counted(reader.notes_left, 'line')})")  # fmt: skip
    if not reader.turns.count:
        ctx.warn(source.name, "no transcript lines; nothing imported")


DESCRIPTION = (
    "Google Meet transcript (the Google Doc as .txt or .docx: `Name: text` lines, time marks)"
)
EXAMPLE = (
    "Garden club (2024-05-14 18:02 GMT+1) - Transcript\nAttendees\nDana Whitfield, Marcus Oyelaran"
    "\nTranscript\n00:00:00\n\nDana Whitfield: Welcome, everyone."
)
FIELDS = Fields(
    speaker="the name before the line's colon, as written",
    listeners="none (a transcript names no listeners)",
    time="the title's date and time + the last time mark before the line, to the second; "
    "`--start-date` instead when given; neither: the epoch + the mark (an undated time)",
    zone="the title's zone (`GMT+2`, `CEST`...); an abbreviation convo does not know: `--tz`",
    thread="none",
    id=CONTENT_HASH + ", hashing the time mark",
    scope="the file's name (the meeting)",
    subject="the meeting's name from the title line",
    extra="`start` (the time mark in seconds), `attendees` and a Notes by Gemini doc's "
    "`notes` (on the first message)",
)
FORMATS = (
    Format(NAME, "transcript", DESCRIPTION, PATTERNS, sniff_meet, read_meet, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
