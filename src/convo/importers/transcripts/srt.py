"""SubRip (SRT) transcripts: detection and reading (decisions in the package docstring)."""

from __future__ import annotations

from collections.abc import Iterator

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.registry import Format
from convo.importers.transcripts.sniffing import empty_named, first_timing, head_lines, is_webvtt
from convo.importers.transcripts.turns import read_cues

PATTERNS = ("*.srt",)


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


def read_srt(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    return read_cues(source, ctx, "srt")


FORMATS = (
    Format(
        name="srt",
        family="transcript",
        description="SubRip subtitles (.srt)",
        patterns=PATTERNS,
        sniff=sniff_srt,
        read=read_srt,
        example="1\n00:00:01,000 --> 00:00:04,000\nAlice: Hello, Bob.",
    ),
)
