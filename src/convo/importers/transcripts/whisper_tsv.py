"""Whisper's tab-separated output (``whisper audio.mp3 --output_format tsv``).

The shape, as openai-whisper's ``WriteTSV`` writes it (``whisper/utils.py``; WhisperX,
faster-whisper's command-line front ends and stable-ts copy it): a header line
``start<TAB>end<TAB>text``, then one line a segment, its start and end in integer
milliseconds (Whisper's docstring: so no locale writes a decimal comma), its text
stripped and with tabs made spaces.

Decisions:

- One segment a line, merged into turns as Whisper's JSON is (``speech``): no speaker,
  unless the header has a ``speaker`` column (tools that add the diarization's label).
- Times: integers are milliseconds, as Whisper writes them; a file whose first segment
  writes a decimal point holds seconds (tools that print Whisper's floats), read so.
- Ids: ``FILE#segment-N``, N counting the lines after the header from 1 (blank ones
  skipped); a line without readable times is rejected with its text; one without text
  is counted in a warning.
- Detection: the first line is the header (``start``, ``end`` and ``text`` columns, tab
  separated), 90. Streamed a line at a time (``cues.text_lines``).

Ids and their scope (docs/ids.md): no ids in the file: the content hash of each turn,
hashing its offset, its conversation the file's name (the recording).
"""

from __future__ import annotations

from collections.abc import Iterator

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.registry import Format, head_lines
from convo.importers.transcripts import SPEECH_FIELDS
from convo.importers.transcripts.cues import text_lines
from convo.importers.transcripts.speech import Spoken, SpokenReader, offset_ms

NAME = "whisper-tsv"
PATTERNS = ("*.tsv",)
_NEEDED = {"start", "end", "text"}


def _columns(line: str) -> list[str] | None:
    """The header's column names, when ``line`` is Whisper's TSV header."""
    cols = [c.strip().lower() for c in line.lstrip("\ufeff").split("\t")]
    return cols if set(cols) >= _NEEDED and len(set(cols)) == len(cols) else None


def sniff_whisper_tsv(source: Source) -> int:
    lines = head_lines(source, 1)
    return 90 if lines and _columns(lines[0]) is not None else 0


class _Rows:
    """The segments of the lines after the header."""

    def __init__(self, cols: list[str]):
        self.cols = cols
        self.seconds: bool | None = None  # decided by the first segment's times

    def spoken(self, n: int, line: str) -> Spoken:
        cells = line.split("\t", len(self.cols) - 1)
        row = dict(zip(self.cols, cells, strict=False))
        start, end = row.get("start", "").strip(), row.get("end", "").strip()
        if self.seconds is None and (start or end):
            self.seconds = "." in start or "." in end
        scale = 1000 if self.seconds else 1
        first, last = offset_ms(start, scale), offset_ms(end, scale)
        if len(cells) < len(self.cols) or first is None:
            return Spoken(n, "", None, None, raw=line, problem="a line without readable times")
        speaker = (row.get("speaker") or "").strip() or None
        return Spoken(n, row.get("text", ""), first, last, speaker=speaker)


def _segments(source: Source, rows_of: list[_Rows]) -> Iterator[Spoken]:
    n = 0
    for _, line in text_lines(source):
        if not line.strip():
            continue
        if not rows_of:
            cols = _columns(line)
            if cols is not None:
                rows_of.append(_Rows(cols))
                continue
            rows_of.append(_Rows(["start", "end", "text"]))  # --from without the header
        n += 1
        yield rows_of[0].spoken(n, line)


def read_whisper_tsv(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    reader = SpokenReader(source, ctx, NAME)
    yield from reader.read(_segments(source, []))
    yield from reader.finish()


DESCRIPTION = "Whisper's tab-separated output (--output_format tsv: start, end in ms, text)"
EXAMPLE = "start\tend\ttext\n0\t2500\tHello, everyone.\n2500\t4100\tWelcome back."
FORMATS = (
    Format(NAME, "transcript", DESCRIPTION, PATTERNS, sniff_whisper_tsv, read_whisper_tsv,
           EXAMPLE, fields=SPEECH_FIELDS),
)  # fmt: skip
