"""Transcripts as timed text lines (``txt-transcript``): ``[00:01:23] Name: text``.

The shape, as the plain-text transcript exports of meeting and transcription tools write
it (found with the code search: the TXT exporters of transcription apps, ``[HH:MM:SS]
Speaker: text`` a segment, and the parsers of meeting-tool exports that read it): the
offset from the start of the recording in brackets (``HH:MM:SS``, ``MM:SS``, or
``H:MM:SS``), the speaker and a colon, the words; the words may go on over the next
lines, up to the next such line.

Decisions (as ``rev``, whose reader this shares, ``textturns.headed_paragraphs``):

- One message a line (and the lines after it that are no header); the speaker as
  written. A file whose first line names no one (``[00:04] words``: timestamped text
  without speakers, as youtube-transcript-api's users write ``[MM:SS] text``) is read
  as lines without speakers throughout, a colon in the words naming no one; so is
  one whose times stand without brackets (``0:03 words``: YouTube's transcript panel
  pasted) when its first line is within the first minute. Time: the offset on ``--start-date``, else on the epoch; ``extra.start`` holds
  the offset in seconds.
- Lines before the first header (a title, ``Date: ...``, ``Duration: ...``: a summary
  tool's heading above the turns) are counted in one warning with the first's line,
  as ``fathom`` and ``md-transcript`` count a document's own lines; a header without
  words is skipped with a warning.
- Detection: the first non-blank line (after up to four short title lines, when two
  turns follow them) is a header and a second is in the head (or the head is the whole
  file), 70. IRC logs' ``[10:00] <nick> text`` has no colon after a
  name; discord-txt's ``[3/1/2024 9:15 AM] ann`` no time alone in its brackets.

Ids and their scope (docs/ids.md): no ids in the file: the content hash, hashing the
offset, its conversation the file's name (the recording).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines
from convo.importers.transcripts.cuetext import valid_name
from convo.importers.transcripts.textturns import (
    CLOCK,
    Header,
    clock_seconds,
    headed_paragraphs,
    never,
)

NAME = "txt-transcript"
PATTERNS = ("*.txt", "*.md")
HEADER = re.compile(
    rf"\[(?P<time>{CLOCK})\][ \t]+(?P<name>[^:\[\]<>]{{1,80}}?)[ \t]?:(?:[ \t]+(?P<text>.*))?"
)


# A line of a transcript without speakers: ``[01:02] words`` (not IRC's ``<nick>``,
# ``* nick`` or ``-!-`` lines).
BARE = re.compile(rf"\[(?P<time>{CLOCK})\][ \t]+(?P<text>[^<*\-\s].*)")
# The same without brackets (``0:03 general kenobi``: YouTube's transcript panel pasted
# with the time beside the words), taken only when the file's first line is within its
# first minute, so that a chat log's or a note's ``10:30 Meeting: ...`` never is.
INLINE = re.compile(rf"(?P<time>{CLOCK})[ \t]+(?P<text>[^\-\s].*)")
FIRST_MINUTE = re.compile(r"(?:0{1,2}:){0,2}0?0:[0-5]\d")


def header(line: str) -> Header | None:
    """A turn's line read (speaker, offset, words on the line), else None."""
    m = HEADER.fullmatch(line.strip())
    if m is None or not valid_name(m["name"].strip()):
        return None
    return m["name"].strip(), clock_seconds(m["time"]), (m["text"] or "").strip()


class _Lines:
    """The file's header lines, read in one style decided by the first: ``Name: text``
    lines, or lines without speakers (``[00:04] text``, the timestamped text that
    youtube-transcript-api's users and caption tools write), where a colon in the words
    names no one."""

    def __init__(self) -> None:
        self.bare: bool | None = None
        self.inline: bool | None = None  # the times without brackets (decided once)

    def __call__(self, line: str) -> Header | None:
        if self.bare is not True and (named := header(line)) is not None:
            self.bare = False
            return named
        if self.bare is False:
            return None
        m = BARE.fullmatch(line.strip())
        if m is None and (self.bare or self.inline is not False):
            m = INLINE.fullmatch(line.strip())
            if m is not None and self.inline is None:
                self.inline = FIRST_MINUTE.fullmatch(m["time"]) is not None
            m = m if self.inline else None
        if m is None:
            return None
        self.bare = True
        return None, clock_seconds(m["time"]), m["text"].strip()


TITLE_LINES = 4  # the most lines of a title block above the first turn (``Date: ...``)


def sniff_txt_transcript(source: Source) -> int:
    lines = head_lines(source, 12 + TITLE_LINES)
    lines = lines[_title_lines(lines) :][:12]
    read = _Lines()
    first = read(lines[0]) if lines else None
    if first is None:
        return 0
    if sum(1 for x in lines[1:] if read(x)) >= 1:
        return 70 if first[0] is not None else 65
    whole = len(source.head) < 4096 and len(lines) < 12
    return 55 if whole and (len(lines) >= 2 or first[2]) and first[0] is not None else 0


def _title_lines(lines: list[str]) -> int:
    """How many short lines stand above the first turn (a title, ``Date: ...``,
    ``Duration: ...``), when two turns follow them; 0 otherwise."""
    read = _Lines()
    for i, line in enumerate(lines[: TITLE_LINES + 1]):
        if read(line) is not None:
            after = _Lines()
            turns = sum(1 for x in lines[i : i + 6] if after(x) is not None)
            return i if turns >= 2 else 0
        if len(line) > 120:
            return 0
    return 0


def read_txt_transcript(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    return headed_paragraphs(source, ctx, NAME, _Lines(), never, "transcript", document=never)


DESCRIPTION = "Transcripts as timed text lines (`[00:01:23] Name: text`: meeting and transcription tools' TXT exports)"
EXAMPLE = "[00:00:00] Dana Whitfield: Welcome, everyone.\n[00:00:05] Marcus Oyelaran: Thanks."
FIELDS = Fields(
    speaker="the name after the bracketed offset, as written; none in a file of lines "
    "without names (`[00:04] words`)",
    listeners="none (a transcript names no listeners)",
    time="`--start-date` + the line's offset, to the second; without it the epoch + "
    "the offset (an undated time)",
    zone="`--start-date` is read in `--tz` (default UTC); offsets have no zone",
    thread="none",
    id=CONTENT_HASH + ", hashing the offset",
    scope="the file's name (the recording)",
    extra="`start` (the offset in seconds)",
)
FORMATS = (
    Format(NAME, "transcript", DESCRIPTION, PATTERNS, sniff_txt_transcript, read_txt_transcript,
           EXAMPLE, fields=FIELDS),
)  # fmt: skip
