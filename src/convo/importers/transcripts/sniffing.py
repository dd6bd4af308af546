"""Head checks the transcript sniffers share (the head is ``Source.head_text``: BOM removed)."""

from __future__ import annotations

from convo.core.io import Source
from convo.importers.registry import matches_pattern
from convo.importers.transcripts.cues import TIMING

SRT_PATTERNS = ("*.srt",)  # srt's names; vtt leaves a header-less file so named to it


def is_webvtt(source: Source) -> bool:
    text = source.head_text()
    return text.startswith("WEBVTT") and (len(text) == 6 or text[6] in " \t\r\n")


def first_timing(lines: list[str]) -> tuple[int, str] | None:
    for i, line in enumerate(lines[:3]):
        if "-->" in line and TIMING.match(line):
            return i, line
    return None


def empty_named(source: Source, patterns: tuple[str, ...]) -> int:
    """An empty (or blank) file named like this format: read it, to warn 'no cues'."""
    return (
        1
        if not source.head_text().strip(" \t\r\n\x00") and matches_pattern(source, patterns)
        else 0
    )
