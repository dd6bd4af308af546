"""Markdown transcripts (``convo.importers.transcripts.markdown_turns``).

The fixtures reproduce the shapes found in public repositories (with the code search):
an Otter.ai export kept as a Markdown note (title, ``**Date:**``/``**Source:**`` lines,
an audio tag, an AI summary, a speaker list, then ``## Transcript`` and
``**Speaker 1 (00:00):**`` paragraphs after a hard break), and speech-to-text notes
(front matter, ``# Transcription: FILE``, ``**Speaker 1 (00:00):** text``), with the
colon outside the bold and the name alone in bold as other writers put them.
"""

from __future__ import annotations

import pytest
from formats_helpers import FIXTURES, run
from hypothesis import given
from hypothesis import strategies as st

from conftest import ROOT, assert_golden
from convo.core.io import Source
from convo.importers.registry import registry
from convo.importers.transcripts import markdown_turns

DIR = FIXTURES / "md_transcript"


@pytest.mark.parametrize("name", ["garden-sync.md", "inline.md"])
def test_golden(name):
    recs, rejects, warnings = run(markdown_turns.read, DIR / name)
    assert not rejects and len(warnings) == 1
    assert_golden(f"formats/md_transcript/{name.removesuffix('.md')}.jsonl", recs)
    assert registry.detect(Source(DIR / name)).name == "md-transcript"


def test_turns_offsets_and_the_document_around_them():
    recs, _, warnings = run(markdown_turns.read, DIR / "garden-sync.md")
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["extra"]["start"]) for r in recs]
    assert got == [
        ("Speaker 1", "Welcome, everyone. First the seed swap, then the shed.", 0.0),
        ("Marcus Oyelaran", "I can bring the tomato seeds,\nand the *heritage* beans.", 9.0),
        ("Unknown Speaker", "which date", 21.0),
        ("Speaker 1", "The second Saturday of April.", 3723.0),
    ]  # fmt: skip
    # the note's 15 lines before the transcript are said, with the first one's line
    assert warnings == [
        "garden-sync.md:1: 15 lines of the document outside the Markdown transcript "
        "speaker turns (its title, notes, headings) not read as messages"
    ]


def test_a_heading_ends_the_last_turn():
    recs, _, warnings = run(markdown_turns.read, DIR / "inline.md")
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        ("Speaker 1", "The shed roof leaks again."),
        ("Speaker 2", "Then we fix it before the swap."),
        ("Ann", "I will buy the paint."),
    ]
    assert warnings[0].startswith("inline.md:1: 6 lines of the document outside")


@pytest.mark.parametrize(
    "path",
    ["sample_data/chat/zoom-chat.txt", "sample_data/chat/whatsapp.txt", "README.md",
     "docs/formats.md", "tests/fixtures/formats/rev/seed-saving.txt",
     "tests/fixtures/formats/otter/garden-club.txt"],
)  # fmt: skip
def test_other_files_are_not_markdown_transcripts(path):
    source = Source(ROOT / path)
    assert markdown_turns.sniff(source) == 0


@given(st.text(alphabet="*#()0123456789: \nAnab-\t<>", max_size=300))
def test_any_text_never_crashes(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("md") / "t.md"
    path.write_text(text, encoding="utf-8")
    recs, _, _ = run(markdown_turns.read, path)
    assert all(r["textChunks"][0] for r in recs)
