"""SubRip (SRT) transcripts: detection and reading (decisions in the package docstring).

Ids and their scope (docs/ids.md): no cue ids: the content hash of each turn, its
conversation the file's name (the meeting), hashing the cue offset
(``convo.importers.transcripts.turns``).
"""

from __future__ import annotations

from functools import partial

from convo.core.io import Source
from convo.importers.registry import Format, head_lines
from convo.importers.transcripts import FIELDS
from convo.importers.transcripts.sniffing import (
    SRT_PATTERNS,
    empty_named,
    first_timing,
    is_webvtt,
)
from convo.importers.transcripts.turns import read_cues

PATTERNS = SRT_PATTERNS


def sniff_srt(source: Source) -> int:
    if is_webvtt(source):
        return 0
    lines = head_lines(source)
    hit = first_timing(lines)
    if not hit:
        return empty_named(source, PATTERNS)
    i, line = hit
    indexed = i == 0 or (i == 1 and lines[0].strip().isdigit())
    if "," in line.split("-->")[0]:
        return 90 if indexed else 60
    return 45 if i == 1 and lines[0].strip().isdigit() else 30


read_srt = partial(read_cues, kind="srt")

DESCRIPTION = "SubRip subtitles (.srt)"
EXAMPLE = "1\n00:00:01,000 --> 00:00:04,000\nAlice: Hello, Bob."
FORMATS = (
    Format("srt", "transcript", DESCRIPTION, PATTERNS, sniff_srt, read_srt, EXAMPLE, fields=FIELDS),
)
