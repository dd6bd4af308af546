"""Fathom transcripts copied or downloaded as text (``fathom``).

The shape, as readers of real Fathom transcripts parse it (found with the code search:
meeting-notes importers that tell a Fathom text by its ``VIEW RECORDING`` line and read
``M:SS - Speaker (Company)``, the words on the next lines): a title line, ``VIEW
RECORDING - 35 mins (No highlights): https://fathom.video/share/...``, then for each
turn ``0:03 - Dana Whitfield (Acme)`` and its words, indented, on the lines after it.

Decisions (``textturns.headed_paragraphs``, as ``otter``):

- One message a turn; the speaker as written (the company in parentheses kept, as
  Teams' ``(Guest)`` is). Time: the offset on ``--start-date``, else on the epoch (the
  title's date has no year); ``extra.start`` holds the offset in seconds.
- The lines before the first turn (the title, the recording's line, a ``---`` rule) are
  the document's: counted in one warning, not rejected. A turn without words is skipped
  with a warning.
- Detection: a ``VIEW RECORDING`` line and a turn line in the head, 85; or a turn line
  first and another in the head, 60.

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
from convo.importers.transcripts.textturns import (
    CLOCK,
    Header,
    clock_seconds,
    headed_paragraphs,
    never,
)

NAME = "fathom"
PATTERNS = ("*.txt", "*.md")
HEADER = re.compile(rf"(?P<time>{CLOCK})[ \t]+-[ \t]+(?P<name>\S.{{0,120}}?)")
RECORDING = re.compile(r"VIEW RECORDING\b.*", re.I)


def header(line: str) -> Header | None:
    m = HEADER.fullmatch(line.strip())
    return None if m is None else (m["name"].strip(), clock_seconds(m["time"]), "")


def sniff_fathom(source: Source) -> int:
    lines = [x.strip() for x in head_lines(source, 16)]
    heads = sum(1 for x in lines if header(x))
    if heads and any(RECORDING.fullmatch(x) for x in lines):
        return 85
    return 60 if lines and header(lines[0]) and heads >= 2 else 0


def read_fathom(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    return headed_paragraphs(source, ctx, NAME, header, never, "Fathom", document=never)


DESCRIPTION = (
    "Fathom transcript as text (`VIEW RECORDING` line, then `0:03 - Name (Company)` and the words)"
)
EXAMPLE = "Weekly sync - November 11\nVIEW RECORDING - 35 mins (No highlights): https://fathom.video/share/abc\n\n---\n\n0:03 - Dana Whitfield (Acme)\n  Welcome, everyone."
FIELDS = Fields(
    speaker="the name on the turn's line, as written (with its company)",
    listeners="none (a transcript names no listeners)",
    time="`--start-date` + the turn's offset, to the second; without it the epoch + "
    "the offset (an undated time)",
    zone="`--start-date` is read in `--tz` (default UTC); offsets have no zone",
    thread="none",
    id=CONTENT_HASH + ", hashing the offset",
    scope="the file's name (the meeting)",
    extra="`start` (the offset in seconds)",
)
FORMATS = (
    Format(NAME, "transcript", DESCRIPTION, PATTERNS, sniff_fathom, read_fathom, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
