"""Microsoft Teams transcripts downloaded as Word documents (``teams-docx``).

The shape ("Download as .docx" of a meeting's transcript), as parsers of real files
read it (found with the code search: converters that read the .docx with python-docx,
mammoth or zipfile, and parsers of the text copied out of it):

- a header: the meeting's title, its date and time in the downloader's locale
  (``January 12, 2026, 1:58PM``) and its length (``45m 12s``, ``2h 14m 58s``);
- ``Name started transcription`` (and ``stopped transcription``) lines;
- one paragraph a speaker turn: the name, spaces and the offset from the start of the
  meeting (``Alice Smith   0:03``, ``1:02:03``), a line break (``<w:br/>``), then what
  was said. A speaker's avatar (a drawing) leads the paragraph; it gives no text.

Paragraphs are read by ``convo.importers.docx`` (streamed; a line break is a newline).

Decisions:

- One message a speaker paragraph; the speaker is the name as written. Text that
  follows in paragraphs of its own, before the next speaker line, belongs to the turn
  (its lines joined with newlines).
- Time: the offset on the header's date and time (English month names; the time is
  naive, so it is read in ``--tz``), else on ``--start-date``, else on the epoch (an
  undated transcript, as ``vtt`` does); ``--start-date`` wins over the header.
  ``extra.start`` holds the offset in seconds.
- ``subject``: the title. The length line is recognised and not kept (the offsets say
  as much). ``started``/``stopped transcription`` lines are kept as messages tagged
  ``system``, without a speaker, at the offset of the turn before them.
- A header line that is neither the title, the date nor the length (a date in another
  language) is rejected with its paragraph, with a hint to give ``--start-date``; so is
  text after a ``stopped transcription`` line and before the next speaker line.
- ``source_id`` is ``FILE#p-N``, N counting every paragraph of the document from 1.
- Detection: a .docx (a zip holding ``word/document.xml``, read in place) whose first 40
  paragraphs hold a speaker line. Another tool's .docx of the same paragraph shape (an
  Otter .docx) is read as this format; Otter's footer paragraph ``Transcribed by
  https://otter.ai`` is structure, not the last turn's words, and its header (the
  date line ``Tue, 5/14 6:02PM • 12:40``, ``SUMMARY KEYWORDS``, ``SPEAKERS``) is read
  as ``otter_header`` says. Teams' older
  transcripts in WebVTT shape pasted into a document are not read (download the .vtt).

Ids and their scope (docs/ids.md): no ids in the file: the content hash, hashing the
offset, its conversation the file's name (the meeting).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.docx import head_paragraphs, is_docx, paragraphs
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format
from convo.importers.transcripts.otter import FOOTER, header
from convo.importers.transcripts.otter_header import OtterHeader
from convo.importers.transcripts.textturns import TextTurns, clock_seconds

NAME = "teams-docx"
PATTERNS = ("*.docx",)
HINT = "a Microsoft Teams transcript downloaded as .docx"
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")  # fmt: skip
DATE = re.compile(
    r"(?P<month>[A-Za-z]+) (?P<day>\d{1,2}), (?P<year>\d{4}),? "
    r"(?P<h>\d{1,2}):(?P<mi>[0-5]\d)(?::(?P<s>[0-5]\d))? ?(?P<half>[AaPp][Mm])?"
)
LENGTH = re.compile(r"(?=\d)(?:\d+h ?)?(?:\d+m ?)?(?:\d+s)?")
EVENT = re.compile(r".+ (?:started|stopped) transcription")
SYSTEM = "system"


def stated_date(line: str, ctx: ImportContext) -> datetime | None:
    """The meeting's start from Teams' date line (English), in ``--tz``; else None."""
    m = DATE.fullmatch(line)
    if m is None or m["month"].lower() not in MONTHS:
        return None
    hour = int(m["h"])
    if m["half"]:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if m["half"].lower() == "pm" else 0)
    try:
        return datetime(
            int(m["year"]), MONTHS.index(m["month"].lower()) + 1, int(m["day"]),
            hour, int(m["mi"]), int(m["s"] or 0), tzinfo=ctx.options.tz,
        )  # fmt: skip
    except ValueError:
        return None


def _speaker_line(line: str) -> re.Match[str] | None:
    m = header(line)
    return m if m is not None and m["name"] else None


def sniff_teams_docx(source: Source) -> int:
    if not is_docx(source):
        return 0
    for para in head_paragraphs(source, 40):
        if any(_speaker_line(x) for x in para.split("\n")):
            return 80
    return 0


class _Reader:
    def __init__(self, source: Source, ctx: ImportContext):
        self.ctx = ctx
        self.turns = TextTurns(source, ctx, NAME)
        self.title: str | None = None
        self.preamble = True
        self.dated = False
        self.offset = 0
        self.cur: tuple[str, str, int, list[str]] | None = None  # where, speaker, offset, text
        self.otter = OtterHeader(ctx, titled=False)

    def paragraph(self, n: int, text: str) -> Iterator[ConversationMessage]:
        lines = [x for x in (y.strip() for y in text.split("\n")) if x]
        if not lines:
            return
        if len(lines) == 1 and FOOTER.fullmatch(lines[0]):
            return  # an Otter .docx's "Transcribed by https://otter.ai": no words of a turn
        where = self.ctx.loc(f"p-{n}")
        if len(lines) == 1 and EVENT.fullmatch(lines[0]):
            yield from self.flush()
            yield self.turns.build(
                lines, speaker=None, offset=self.offset, where=where, subject=self.title,
                tags=[SYSTEM],
            )  # fmt: skip
            return
        m = _speaker_line(lines[0])
        if m is not None:
            yield from self.flush()
            self.preamble = False
            self.offset = clock_seconds(m["time"])
            self.cur = (where, m["name"], self.offset, lines[1:])
        elif self.preamble:
            for line in lines:
                self._header_line(line, where)
        elif self.cur is not None:
            self.cur[3].extend(lines)
        else:
            self.ctx.reject(where, "text without a speaker line", text, HINT)

    def _header_line(self, line: str, where: str) -> None:
        start = stated_date(line, self.ctx)
        if start is not None and not self.dated:
            self.dated = True
            self.turns.stated_start(start)
        elif LENGTH.fullmatch(line):
            return
        elif self.otter.take(line, where):  # an Otter .docx's date line, keywords, speakers
            if self.otter.start is not None and not self.dated:
                self.dated = True
                self.turns.stated_start(self.otter.start)
        elif self.title is None and not self.dated:
            self.title = line
        else:
            self.ctx.reject(
                where,
                "a header line that is not the title, the date or the length",
                line,
                "the date is read in English (January 12, 2026, 1:58PM); give --start-date",
            )

    def flush(self) -> Iterator[ConversationMessage]:
        if self.cur is None:
            return
        where, speaker, offset, text = self.cur
        self.cur = None
        if not text:
            self.ctx.warn(where, "speaker line without text; skipped")
            return
        yield self.turns.build(
            text, speaker=speaker, offset=offset, where=where, subject=self.title,
            extra=self.otter.first_extra(),
        )  # fmt: skip


def read_teams_docx(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    reader = _Reader(source, ctx)
    for n, text in paragraphs(source, ctx, HINT):
        yield from reader.paragraph(n, text)
    yield from reader.flush()
    if not reader.turns.count:
        ctx.warn(source.name, "no transcript paragraphs; nothing imported")


DESCRIPTION = "Microsoft Teams transcript downloaded as .docx (`Name   M:SS`, then the text)"
EXAMPLE = "Weekly sync\nJanuary 12, 2026, 1:58PM\n45m 12s\n\nAlice Smith   0:03\nHello, everyone."
FIELDS = Fields(
    speaker="the name on the paragraph's speaker line, as written",
    listeners="none (a transcript names no listeners)",
    time="the header's date and time + the paragraph's offset, to the second; "
    "`--start-date` instead when given; neither: the epoch + the offset (an undated time)",
    zone="the header's time is naive: read in `--tz` (default UTC), as `--start-date` is",
    thread="none",
    id=CONTENT_HASH + ", hashing the offset",
    scope="the file's name (the meeting)",
    subject="the meeting's title (the document's first line)",
    tags="`system` for `started`/`stopped transcription` lines",
    extra="`start` (the offset in seconds); an Otter .docx's `keywords`, `speakers` and "
    "yearless `date` on the first message",
)
FORMATS = (
    Format(NAME, "transcript", DESCRIPTION, PATTERNS, sniff_teams_docx, read_teams_docx,
           EXAMPLE, fields=FIELDS),
)  # fmt: skip
