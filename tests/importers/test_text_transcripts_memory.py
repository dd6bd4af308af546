"""The text transcripts (Otter, Rev, Google Meet, Teams .docx) are read a line (a
paragraph) at a time: ten times the paragraphs, about the same traced peak of the
reader. The id counters are made small (``convo.core.counts``) so they spill at both
sizes. The reader is measured alone: through the whole ingest the peak of a .docx
jumps by ~2 MB from one run to the next, whatever its size (measured 2026-12-04:
5.45 or 7.49 MB for the same 500 paragraphs)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from docx_helpers import write_docx

from convo.core import counts, spillmap
from convo.core.io import Source
from convo.importers.context import ImportContext
from convo.importers.transcripts import (
    bracket_turns,
    markdown_turns,
    meet,
    otter,
    rev,
    teams_docx,
    whisper_tsv,
    whisper_txt,
    zoom_captions,
)

SMALL = 64


def _otter(path: Path, n: int) -> Path:
    with path.open("w") as f:
        for i in range(n):
            f.write(f"Speaker {i % 7}  {i // 60}:{i % 60:02d}  \nparagraph {i} of the call\n\n")
    return path


def _rev(path: Path, n: int) -> Path:
    with path.open("w") as f:
        for i in range(n):
            f.write(f"Speaker {i % 7} ({i // 60:02d}:{i % 60:02d}):\nparagraph {i}\n\n")
    return path


def _md(path: Path, n: int) -> Path:
    with path.open("w") as f:
        f.write("# Call\n\n## Transcript\n\n")
        for i in range(n):
            f.write(f"**Speaker {i % 7} ({i // 60:02d}:{i % 60:02d}):**  \nparagraph {i}\n\n")
            if i % 100 == 99:
                f.write("## Part\n\nnotes\n\n")  # the document's lines, counted
    return path


def _meet(path: Path, n: int) -> Path:
    with path.open("w") as f:
        f.write("Call (2024-01-02 10:00 GMT) - Transcript\nAttendees\nA, B\nTranscript\n")
        for i in range(n):
            if i % 50 == 0:
                f.write(f"{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}\n")
            f.write(f"Speaker {i % 7}: line {i}\n")
    return path


def _teams(path: Path, n: int) -> Path:
    paras = [["Call"], ["January 2, 2024, 10:00AM"], ["1h 0m 0s"]]
    paras += [[f"Speaker {i % 7}   {i // 60}:{i % 60:02d}\nparagraph {i}"] for i in range(n)]
    return write_docx(path, paras)


def _zoom_cc(path: Path, n: int) -> Path:
    with path.open("w") as f:
        for i in range(n):
            f.write(
                f"[Speaker {i % 7}] {10 + i // 3600}:{i // 60 % 60:02d}:{i % 60:02d}\nline {i}\n\n"
            )
    return path


def _timed(path: Path, n: int) -> Path:
    with path.open("w") as f:
        for i in range(n):
            f.write(
                f"[{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}] Speaker {i % 7}: line {i}\n"
            )
    return path


def _tsv(path: Path, n: int) -> Path:
    with path.open("w") as f:
        f.write("start\tend\ttext\n")
        for i in range(n):
            f.write(f"{i * 1000}\t{i * 1000 + 900}\tsegment {i}\n")
    return path


def _cli(path: Path, n: int) -> Path:
    with path.open("w") as f:
        for i in range(n):
            t = f"{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}"
            f.write(f"[{t}.000 --> {t}.900]  (speaker {i % 2}) segment {i}\n")
    return path


def peak_bytes(read, path: Path) -> int:
    """The traced peak while ``read`` gives the records of ``path`` (none rejected)."""
    source = Source(path)
    ctx = ImportContext(source, on_reject=pytest.fail)
    tracemalloc.start()
    try:
        assert sum(1 for _ in read(source, ctx)) > 0
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    ("make", "suffix"),
    [
        (_otter, ".txt"),
        (_rev, ".txt"),
        (_md, ".md"),
        (_meet, ".txt"),
        (_teams, ".docx"),
        (_zoom_cc, ".txt"),
        (_timed, ".txt"),
        (_tsv, ".tsv"),
        (_cli, ".txt"),
    ],
)
def test_memory_is_flat_with_the_number_of_paragraphs(tmp_path, monkeypatch, make, suffix):
    read = {_otter: otter.read_otter, _rev: rev.read_rev, _md: markdown_turns.read,
            _meet: meet.read_meet, _teams: teams_docx.read_teams_docx,
            _zoom_cc: zoom_captions.read_zoom_cc, _timed: bracket_turns.read_txt_transcript,
            _tsv: whisper_tsv.read_whisper_tsv, _cli: whisper_txt.read_whisper_txt}[make]  # fmt: skip
    monkeypatch.setattr(spillmap, "LIMIT", SMALL)
    monkeypatch.setattr(counts, "LIMIT", SMALL)
    small_file = make(tmp_path / f"small{suffix}", 500)
    peak_bytes(read, small_file)  # imports, caches and one-time costs
    small = peak_bytes(read, small_file)
    big = peak_bytes(read, make(tmp_path / f"big{suffix}", 5_000))
    assert big < small * 1.1 + 200_000, (small, big)
