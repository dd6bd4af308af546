"""The text transcripts (Otter, Rev, Google Meet, Teams .docx) are read a line (a
paragraph) at a time: ten times the paragraphs, about the same traced peak. The id
counters are made small (``convo.core.counts``) so they spill at both sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
from docx_helpers import write_docx
from memory_helpers import peak_bytes

from convo.core import counts, spillmap

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


@pytest.mark.parametrize(
    ("make", "suffix"), [(_otter, ".txt"), (_rev, ".txt"), (_meet, ".txt"), (_teams, ".docx")]
)
def test_memory_is_flat_with_the_number_of_paragraphs(tmp_path, monkeypatch, make, suffix):
    monkeypatch.setattr(spillmap, "LIMIT", SMALL)
    monkeypatch.setattr(counts, "LIMIT", SMALL)
    peak_bytes(make(tmp_path / f"warm{suffix}", SMALL * 2))  # imports and caches
    small = peak_bytes(make(tmp_path / f"small{suffix}", 500))
    big = peak_bytes(make(tmp_path / f"big{suffix}", 5_000))
    assert big < small * 1.1 + 200_000, (small, big)
