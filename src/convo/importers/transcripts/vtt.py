"""WebVTT transcripts: detection and reading (decisions in the package docstring).

Ids and their scope (docs/ids.md): no cue ids: the content hash of each turn, its
conversation the file's name (the meeting), hashing the cue offset
(``convo.importers.transcripts.turns``).
"""

from __future__ import annotations

from functools import partial

from convo.core.io import Source
from convo.importers.registry import Format, head_lines, matches_pattern
from convo.importers.transcripts import FIELDS
from convo.importers.transcripts.sniffing import (
    SRT_PATTERNS,
    empty_named,
    first_timing,
    is_webvtt,
)
from convo.importers.transcripts.turns import read_cues

PATTERNS = ("*.vtt", "*.webvtt")


def sniff_vtt(source: Source) -> int:
    if is_webvtt(source):
        return 95
    lines = head_lines(source)
    hit = first_timing(lines)
    if hit and hit[0] <= 1 and "," not in hit[1].split("-->")[0]:
        # Cues without the WEBVTT header: an SRT file's too when it numbers no cues and
        # its first start has no ",mmm" (go-astisub's missing-sequence-in.srt); its name
        # says which.
        return 0 if matches_pattern(source, SRT_PATTERNS) else 40
    return empty_named(source, PATTERNS)


read_vtt = partial(read_cues, kind="vtt")

DESCRIPTION = "WebVTT captions/transcripts (Teams, Zoom, YouTube); <v> voices"
EXAMPLE = "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Alice>Hello, Bob.</v>"
FORMATS = (
    Format("vtt", "transcript", DESCRIPTION, PATTERNS, sniff_vtt, read_vtt, EXAMPLE, fields=FIELDS),
)
