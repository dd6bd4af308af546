"""Rev.com text transcripts (``rev``): ``Speaker 1 (00:00):`` paragraphs.

The shape, as transcripts downloaded from Rev with timestamps are quoted and parsed
(found with the code search: transcript viewers and speaker-renaming tools that match
``Speaker 1 (00:00):`` at a line's start):

- a paragraph's header line: the speaker (``Speaker 1`` until renamed, or the name
  given), the offset from the start of the recording in parentheses (``MM:SS``, or
  ``HH:MM:SS`` past the hour) and a colon;
- the paragraph on the next line(s), then a blank line; some tools that write the same
  shape put the text on the header line itself (``Speaker 1 (00:12): text``), which is
  read too.

Decisions (as ``otter``, whose reader this shares, ``textturns.headed_paragraphs``):

- One message a paragraph; the speaker as written. Time: the offset on
  ``--start-date``, else on the epoch (Rev's text names no date); ``extra.start`` holds
  the offset in seconds.
- A non-blank line before the first header is rejected with its line (a title line a
  user added); a header without text is skipped with a warning.
- Detection: the first non-blank line is a header and a second header is in the head
  (or the head is the whole file).
- Rev's other layouts (no timestamps, a timestamp every N seconds inside the text) name
  no speaker turns by their offset and are not read.

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
from convo.importers.registry import Format
from convo.importers.transcripts.textturns import (
    CLOCK,
    Header,
    clock_seconds,
    headed_paragraphs,
    never,
    sniff_headed,
)

NAME = "rev"
PATTERNS = ("*.txt",)
HEADER = re.compile(rf"(?P<name>\S.*?) \((?P<time>{CLOCK})\):(?:[ \t]+(?P<text>.*))?")


def header(line: str) -> Header | None:
    """A paragraph's header line read (speaker, offset, text on the line), else None."""
    m = HEADER.fullmatch(line.strip())
    if m is None:
        return None
    return m["name"], clock_seconds(m["time"]), (m["text"] or "").strip()


def sniff_rev(source: Source) -> int:
    # not JSON nor markup (the gate in ``transcripts`` says the same)
    return sniff_headed(source, header, 80, 60, refuse="{[<")


def read_rev(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    return headed_paragraphs(source, ctx, NAME, header, never, "Rev")


DESCRIPTION = "Rev.com text transcript (`Speaker 1 (00:00):`, then the paragraph)"
EXAMPLE = "Speaker 1 (00:00):\nGood morning, everyone.\n\nSpeaker 2 (00:12):\nMorning!"
FIELDS = Fields(
    speaker="the name on the paragraph's header line, as written (`Speaker 1` until renamed)",
    listeners="none (a transcript names no listeners)",
    time="`--start-date` + the paragraph's offset, to the second; without it the epoch + "
    "the offset (an undated time)",
    zone="`--start-date` is read in `--tz` (default UTC); offsets have no zone",
    thread="none",
    id=CONTENT_HASH + ", hashing the offset",
    scope="the file's name (the recording)",
    extra="`start` (the offset in seconds)",
)
FORMATS = (
    Format(NAME, "transcript", DESCRIPTION, PATTERNS, sniff_rev, read_rev, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
