"""Rev.com text transcripts (``convo.importers.transcripts.rev``).

The fixtures reproduce the shape quoted and parsed for Rev downloads with timestamps
(found with the code search): ``Speaker 1 (00:00):`` header lines, the paragraph on the
next lines, ``(HH:MM:SS)`` past the hour; and the same headers with the text on the
header line, as other tools write them.
"""

from __future__ import annotations

import pytest
from formats_helpers import FIXTURES, run
from hypothesis import given
from hypothesis import strategies as st

from conftest import ROOT, assert_golden
from convo.core.io import Source
from convo.importers.registry import registry
from convo.importers.transcripts import rev

DIR = FIXTURES / "rev"


@pytest.mark.parametrize("name", ["seed-saving.txt", "inline.txt"])
def test_golden(name):
    recs, rejects, warnings = run(rev.read_rev, DIR / name)
    assert not rejects and not warnings
    assert_golden(f"formats/rev/{name.removesuffix('.txt')}.jsonl", recs)
    assert registry.detect(Source(DIR / name)).name == "rev"


def test_paragraphs_and_offsets():
    recs, _, _ = run(rev.read_rev, DIR / "seed-saving.txt")
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["extra"]["start"]) for r in recs]
    assert got == [
        ("Speaker 1", "Welcome back to the garden club podcast. Today we talk about seed saving.", 0.0),
        ("Marcus Oyelaran", "Thanks for having me.\nIt is good to be here.", 9.0),
        ("Speaker 1", "So, where do you start?", 15.0),
        ("Marcus Oyelaran", "With the tomatoes, always.", 3723.0),
    ]  # fmt: skip


def test_a_title_line_is_rejected_and_an_empty_paragraph_warned(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("Interview.mp3\n\nSpeaker 1 (00:00):\n\nSpeaker 2 (00:04):\nhi\n")
    recs, rejects, warnings = run(rev.read_rev, path)
    assert [(r.where, r.reason) for r in rejects] == [
        ("t.txt:1", "text before the first Rev speaker line")
    ]
    assert warnings == ["t.txt:3: speaker line without text; skipped"]
    assert [r["textChunks"][0] for r in recs] == ["hi"]


@pytest.mark.parametrize(
    "path",
    ["sample_data/chat/zoom-chat.txt", "sample_data/chat/whatsapp.txt",
     "sample_data/chat/discord-text.txt", "tests/fixtures/formats/otter/garden-club.txt",
     "tests/fixtures/formats/google_meet/seed-swap-2024.txt"],
)  # fmt: skip
def test_other_text_formats_are_not_rev(path):
    assert rev.sniff_rev(Source(ROOT / path)) == 0


_WORD = st.text(st.characters(whitelist_categories=("L",)), min_size=1, max_size=8)
_NAME = st.lists(_WORD, min_size=1, max_size=3).map(" ".join)
_TEXT = st.lists(_WORD, min_size=1, max_size=6).map(" ".join)


@given(
    st.lists(st.tuples(_NAME, st.integers(0, 30 * 3600), st.lists(_TEXT, min_size=1, max_size=3)),
             min_size=1, max_size=8),
    st.booleans(),
)  # fmt: skip
def test_any_transcript_reads_back(tmp_path_factory, turns, inline):
    path = tmp_path_factory.mktemp("rev") / "t.txt"
    out = []
    for name, s, text in turns:
        h, rest = divmod(s, 3600)
        clock = (
            f"{h:02d}:{rest // 60:02d}:{rest % 60:02d}"
            if h
            else f"{rest // 60:02d}:{rest % 60:02d}"
        )
        sep = " " if inline else "\n"
        out.append(f"{name} ({clock}):{sep}" + "\n".join(text) + "\n\n")
    path.write_text("".join(out))
    recs, rejects, warnings = run(rev.read_rev, path)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["extra"]["start"], r["textChunks"][0]) for r in recs]
    assert got == [(name, float(s), "\n".join(text)) for name, s, text in turns]
