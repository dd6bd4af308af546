"""Otter.ai text exports (``otter``): "Export text" with speaker names and timestamps.

The shape, as Otter writes it and as parsers of real exports read it (found with the
code search: evaluation tools that score against Otter references, podcast
transcript formatters, tests with Otter fixtures):

- a paragraph's header line, the speaker's name, two or more spaces and the offset
  from the start of the recording, ``M:SS`` or ``H:MM:SS`` (``Sidney  55:21``,
  ``Speaker 1  1:02:03``), often with two trailing spaces (a Markdown line break);
- with speaker names left out of the export, the offset alone (``0:15``);
- the paragraph on the next line(s), then a blank line;
- optionally the footer ``Transcribed by https://otter.ai``;
- the same offset-only layout is what YouTube's transcript panel gives pasted as text
  (``Transcript``, ``Search in video``, then each offset, the words a screen reader
  says for it, ``4 seconds``, and the caption): read alike, the panel's lines and the
  spelled offsets (equal to the offset above them) passed over as structure;
- above the first paragraph, in an export with its title (the .docx, and text
  exports with it), Otter's header: the title, a date line (``Tue, 5/14 6:02PM •
  12:40``), ``SUMMARY KEYWORDS`` and ``SPEAKERS`` with a line each
  (``otter_header``: the title as subject, the date as the start when it has a year).

Decisions:

- One message a paragraph (Otter's "merge same-speaker segments" option is the
  exporter's choice; the file's paragraphs are kept as they are). The speaker is the
  name as written (``Speaker 1`` too); the offset-only layout has no speaker.
- Time: the offset on ``--start-date``, else on the epoch (Otter's text names no date),
  as ``vtt`` does; ``extra.start`` holds the offset in seconds (``textturns``). The
  export says nothing of where a paragraph ends.
- A paragraph's lines are joined with newlines, each without its surrounding spaces.
- The footer is structure (skipped). A non-blank line before the first header is
  rejected with its line; a header without text is skipped with a warning.
- Detection: the first non-blank line (after Otter's header) is a header, and a second header or the footer is
  in the head (a file of one paragraph: its header and text are the whole head).
  Zoom chat (``HH:MM:SS<TAB>Name:<TAB>text``), WhatsApp and IRC lines never end with a
  bare offset.
- Streamed line by line (``cues.text_lines``: a BOM decides, else UTF-8 line by line,
  else the file's legacy encoding, named in a warning, or ``--encoding``).

Ids and their scope (docs/ids.md): no ids in the file: the content hash, hashing the
offset, its conversation the file's name (the meeting).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines
from convo.importers.transcripts.otter_header import OtterHeader, is_date
from convo.importers.transcripts.textturns import CLOCK, Header, clock_seconds, headed_paragraphs

NAME = "otter"
PATTERNS = ("*.txt",)
HEADER = re.compile(rf"(?:(?P<name>\S.*?)[ \t]{{2,}})?(?P<time>{CLOCK})")
FOOTER = re.compile(r"transcribed by\s+https?://otter\.ai/?", re.I)


def header(line: str) -> re.Match[str] | None:
    """The header of a paragraph (``Name  M:SS``, or ``M:SS`` alone), else None."""
    return HEADER.fullmatch(line.strip())


def sniff_otter(source: Source) -> int:
    lines = head_lines(source, 18)
    if lines and lines[0].lstrip()[:1] in ("{", "[", "<"):
        return 0  # JSON or markup (the gate in ``transcripts`` says the same)
    lines = _after_header(lines[2:] if lines[:2] == list(PANEL) else lines)
    if not lines or not header(lines[0]):
        return 0
    heads = sum(1 for x in lines if header(x))
    if any(FOOTER.fullmatch(x.strip()) for x in lines):
        return 85
    if heads >= 2:
        return 80
    whole = len(source.head) < 4096 and len(lines) < 12
    return 60 if whole and len(lines) >= 2 else 0


def _after_header(lines: list[str]) -> list[str]:
    """``lines`` from the first after Otter's header (``otter_header``: a title, the date
    line, the keywords and speakers), when a date line is among the first two."""
    if not any(is_date(x) for x in lines[:2]):
        return lines
    for i, line in enumerate(lines):
        if header(line):
            return lines[i:]
    return []


def _header(line: str) -> Header | None:
    m = header(line)
    return None if m is None else (m["name"], clock_seconds(m["time"]), "")


# YouTube's transcript panel pasted as text: the same offset-only layout, under the
# panel's own lines, each offset followed by the words a screen reader says for it.
PANEL = ("Transcript", "Search in video")
_SPELLED = re.compile(
    r"(?=\d)(?:(?P<h>\d+) hours?)?(?:,? ?(?P<m>\d+) minutes?)?(?:,? ?(?P<s>\d+) seconds?)?"
)


def spelled_seconds(line: str) -> int | None:
    """``4 seconds``, ``1 minute, 2 seconds``, ``1 hour, 2 minutes, 45 seconds`` in
    seconds; None for any other line."""
    m = _SPELLED.fullmatch(line)
    if m is None or not (m["h"] or m["m"] or m["s"]):
        return None
    return int(m["h"] or 0) * 3600 + int(m["m"] or 0) * 60 + int(m["s"] or 0)


class _Lines:
    """The header lines and the structure lines (the footer; a pasted YouTube panel's
    own lines before the first offset, and the spelled offset after one)."""

    def __init__(self) -> None:
        self.started = False
        self.offset: int | None = None  # an offset-only header's, for the next line

    def header(self, line: str) -> Header | None:
        got = _header(line)
        if got is not None:
            self.started = True
            self.offset = got[1] if got[0] is None else None
        return got

    def skip(self, line: str) -> bool:
        offset, self.offset = self.offset, None
        if FOOTER.fullmatch(line) is not None or (not self.started and line in PANEL):
            return True
        return offset is not None and spelled_seconds(line) == offset


def read_otter(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    lines = _Lines()
    return headed_paragraphs(
        source, ctx, NAME, lines.header, lines.skip, "Otter", preamble=OtterHeader(ctx)
    )


DESCRIPTION = "Otter.ai text export (`Name  M:SS` lines, then the paragraph)"
EXAMPLE = "Alice Smith  0:03\nGood morning, everyone.\n\nBob Jones  0:09\nMorning!"
FIELDS = Fields(
    speaker="the name on the paragraph's header line, as written; none when the export "
    "left names out",
    listeners="none (a transcript names no listeners)",
    time="`--start-date` + the paragraph's offset, to the second; else the start Otter's "
    "date line states when it has a year; else the epoch + the offset (an undated time)",
    zone="`--start-date` is read in `--tz` (default UTC); offsets have no zone",
    thread="none",
    id=CONTENT_HASH + ", hashing the offset",
    scope="the file's name (the recording)",
    subject="the title above Otter's date line, when the export has one",
    extra="`start` (the offset in seconds); on the first message Otter's `keywords` and "
    "`speakers` lists and a `date` line without a year",
)
FORMATS = (
    Format(NAME, "transcript", DESCRIPTION, PATTERNS, sniff_otter, read_otter, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
