"""Transcripts written as Markdown (``md-transcript``): ``**Speaker 1 (00:00):**`` turns.

The shape, as found in public repositories (found with the code search): an Otter.ai
export turned into a Markdown note (a ``#`` title, ``**Date:**`` and ``**Source:**
otter.ai`` lines, an AI summary and outline, a ``## Speakers`` list, then ``##
Transcript`` and one ``**Name (MM:SS):**`` line a paragraph, the text on the next
line(s) after a Markdown hard break), and speech-to-text notes that write ``#
Transcription: FILE`` and then ``**Speaker 1 (00:00):** text`` paragraphs. The header
is Rev's (``rev``: the speaker, the offset in parentheses, a colon) in bold, the colon
inside or outside the bold (``**Ann (01:02)**:``), or the name alone in bold before the
offset (``**Ann** (01:02):``).

Decisions (as ``rev``, whose header this reads, ``textturns.headed_paragraphs``):

- One message a paragraph, the speaker as written; the time is the offset on
  ``--start-date``, else on the epoch; ``extra.start`` the offset in seconds. The text
  is kept as written (Markdown emphasis and links stay).
- The document's own lines (a title, notes, the summary before the first turn; a
  ``#`` heading after one ends its paragraph, and the section under it) are not
  messages: counted in one warning with the first one's line, never dropped unsaid.
- Detection: two such headers in the head, which may open with anything a Markdown
  note holds (front matter, a title): the first turn may come after 60 KB of notes.

Ids and their scope (docs/ids.md): the content hash, hashing the offset, its
conversation the file's name (the recording), as ``rev``.
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
)

NAME = "md-transcript"
PATTERNS = ("*.md", "*.markdown", "*.txt")
_NAME = r"(?P<name>[^*\s](?:[^*]{0,78}[^*\s])?)"
_TIME = rf"\((?P<time>{CLOCK})\)"
_REST = r"(?:[ \t]+(?P<text>.*))?"
# ``**Ann (01:02):**`` and ``**Ann (01:02)**:``, then ``**Ann** (01:02):``, each with or
# without the colon; the text may follow on the line.
HEADERS = (
    re.compile(rf"\*\*{_NAME}[ \t]+{_TIME}:?\*\*:?{_REST}"),
    re.compile(rf"\*\*{_NAME}\*\*[ \t]*{_TIME}:?{_REST}"),
)
_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)|---+$|<")


def header(line: str) -> Header | None:
    """A paragraph's header line read (speaker, offset, text on the line), else None."""
    line = line.strip()
    for pattern in HEADERS:
        m = pattern.fullmatch(line)
        if m is not None:
            return m["name"], clock_seconds(m["time"]), (m["text"] or "").strip()
    return None


def _document(line: str) -> bool:
    """A line of the document, not of a turn: a heading, a rule, an HTML tag."""
    return _HEADING.match(line) is not None


def sniff(source: Source) -> int:
    lines = source.head_text().splitlines()
    found = 0
    for line in lines:
        if "**" in line and header(line) is not None:
            found += 1
            if found >= 2:
                return 80
    whole = len(source.head) < 4096
    return 60 if whole and found == 1 else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    return headed_paragraphs(
        source, ctx, NAME, header, never, "Markdown transcript", document=_document
    )


DESCRIPTION = "Markdown transcript (`**Speaker 1 (00:00):**`, then the paragraph; Otter notes)"
EXAMPLE = (
    "# Weekly sync\n\n## Transcript\n\n**Speaker 1 (00:00):**  \nGood morning, everyone.\n\n"
    "**Speaker 2 (00:12):**  \nMorning!"
)
FIELDS = Fields(
    speaker="the name in the bold header, as written (`Speaker 1` until renamed)",
    listeners="none (a transcript names no listeners)",
    time="`--start-date` + the paragraph's offset, to the second; without it the epoch + "
    "the offset (an undated time)",
    zone="`--start-date` is read in `--tz` (default UTC); offsets have no zone",
    thread="none",
    id=CONTENT_HASH + ", hashing the offset",
    scope="the file's name (the recording)",
    extra="`start` (the offset in seconds)",
)
FORMATS = (Format(NAME, "transcript", DESCRIPTION, PATTERNS, sniff, read, EXAMPLE, fields=FIELDS),)
