"""YouTube SubViewer (SBV) transcripts: detection and reading (decisions in the package docstring).

Ids and their scope (docs/ids.md): no cue ids: the content hash of each turn, its
conversation the file's name (the meeting), hashing the cue offset
(``convo.importers.transcripts.turns``).
"""

from __future__ import annotations

from functools import partial

from convo.core.io import Source
from convo.importers.registry import Format, head_lines
from convo.importers.transcripts import FIELDS
from convo.importers.transcripts.cues import SBV_TIMING
from convo.importers.transcripts.sniffing import empty_named
from convo.importers.transcripts.turns import read_cues

PATTERNS = ("*.sbv",)


def sniff_sbv(source: Source) -> int:
    lines = head_lines(source, 1)
    if lines and SBV_TIMING.match(lines[0]):
        return 90
    return empty_named(source, PATTERNS)


read_sbv = partial(read_cues, kind="sbv")

DESCRIPTION = "YouTube SubViewer captions (.sbv)"
EXAMPLE = "0:00:01.000,0:00:04.000\nAlice: Hello, Bob."
FORMATS = (
    Format("sbv", "transcript", DESCRIPTION, PATTERNS, sniff_sbv, read_sbv, EXAMPLE, fields=FIELDS),
)
