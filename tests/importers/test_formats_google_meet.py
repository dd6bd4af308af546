"""Google Meet transcripts (``convo.importers.transcripts.meet``).

The fixtures reproduce the three layouts parsers of real Meet documents read (found
with the code search): the 2023 title ``NAME (2023-09-21 18:02 GMT-4) - Transcript``
with ``Attendees``/``Transcript`` headings, a BOM and CRLF; the later ``NAME -
2024/11/21 15:51 CET - Transcript`` with the notice at the end; and the Gemini-era
document whose first line is the date alone, with lines of a lone space and
``Transcription ended after``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from formats_helpers import FIXTURES, run
from hypothesis import given
from hypothesis import strategies as st

from conftest import ROOT, assert_golden
from convo.core.io import Source
from convo.importers.context import ImportOptions
from convo.importers.registry import registry
from convo.importers.transcripts import meet

DIR = FIXTURES / "google_meet"
FILES = ["garden-club-2023.txt", "seed-swap-2024.txt", "compost-workshop-2025.txt"]


@pytest.mark.parametrize("name", FILES)
def test_golden(name):
    recs, _, _ = run(meet.read_meet, DIR / name)
    assert_golden(f"formats/google_meet/{name.removesuffix('.txt')}.jsonl", recs)
    assert registry.detect(Source(DIR / name)).name == "google-meet"


def test_dated_title_attendees_and_marks():
    recs, rejects, warnings = run(meet.read_meet, DIR / "garden-club-2023.txt")
    assert not rejects
    assert warnings == ["garden-club-2023.txt: 1 speaker line without text skipped"]
    got = [(r["metadata"]["speaker"], r["timestamp"], r["extra"]["start"]) for r in recs]
    assert got == [
        ("Dana Whitfield", "2023-09-21T22:02:00Z", 0.0),
        ("Marcus Oyelaran", "2023-09-21T22:02:00Z", 0.0),
        ("Dana Whitfield", "2023-09-21T22:02:00Z", 0.0),
        ("Priya Raman", "2023-09-21T22:07:00Z", 300.0),
        ("Dana Whitfield", "2023-09-21T22:07:00Z", 300.0),
    ]
    assert recs[1]["textChunks"] == ["Thanks Dana. Quick question: is the seed order due Friday?"]
    assert recs[0]["extra"]["attendees"] == [
        "Dana Whitfield", "Marcus Oyelaran", "Priya Raman", "Priya Raman's Presentation"
    ]  # fmt: skip
    assert all("attendees" not in r["extra"] for r in recs[1:])
    assert {r["subject"] for r in recs} == {"garden-club"}
    assert len({r["id"] for r in recs}) == len(recs)


def test_a_zone_abbreviation_is_read():
    recs, rejects, warnings = run(meet.read_meet, DIR / "seed-swap-2024.txt")
    assert not rejects and not warnings
    assert [r["timestamp"] for r in recs] == [
        "2024-11-21T14:51:00Z", "2024-11-21T14:51:00Z", "2024-11-21T14:56:00Z"
    ]  # fmt: skip


def test_a_date_without_a_time_warns_and_a_stray_line_is_rejected():
    recs, rejects, warnings = run(meet.read_meet, DIR / "compost-workshop-2025.txt")
    assert [(r.where, r.reason, r.raw) for r in rejects] == [
        ("compost-workshop-2025.txt:13", "not a Google Meet transcript line", "[music]")
    ]
    assert warnings == [
        "compost-workshop-2025.txt:1: the transcript's date has no time of day; times are "
        "offsets on the epoch (give --start-date)"
    ]
    assert [r["timestamp"] for r in recs][-1] == "1970-01-01T00:01:26Z"
    assert recs[0]["subject"] == "Compost workshop"


def test_start_date_wins_and_keeps_ids():
    plain, _, _ = run(meet.read_meet, DIR / "garden-club-2023.txt")
    start = datetime(2023, 9, 22, 8, 0, tzinfo=UTC)
    recs, _, _ = run(meet.read_meet, DIR / "garden-club-2023.txt", ImportOptions(start_date=start))
    assert recs[3]["timestamp"] == "2023-09-22T08:05:00Z"
    assert [r["id"] for r in recs] == [r["id"] for r in plain]


@pytest.mark.parametrize(
    ("name", "offset"),
    [("GMT", 0), ("UTC", 0), ("GMT-4", -240), ("GMT+5:30", 330), ("GMT+0530", 330),
     ("CEST", 120), ("pdt", -420), ("ACST", 570)],
)  # fmt: skip
def test_zones(name, offset):
    assert meet.zone_of(name) == timezone(timedelta(minutes=offset))


@pytest.mark.parametrize("name", ["IST", "CST", "BST", "GMT+25", "XYZT"])
def test_ambiguous_or_unknown_zones_are_not_read(name):
    assert meet.zone_of(name) is None


def test_an_unknown_zone_is_read_in_tz_with_a_warning(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("Sync (2024-01-05 09:00 IST) - Transcript\nAnn: hi\n")
    recs, _, warnings = run(meet.read_meet, path, ImportOptions(tz=ZoneInfo("Asia/Kolkata")))
    assert warnings == ["t.txt:1: the title's time zone is not one convo reads; read in --tz"]
    assert recs[0]["timestamp"] == "2024-01-05T03:30:00Z"


def test_a_title_without_a_date_needs_transcript_lines_to_be_detected(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("Budget - Transcript\nAttendees\nAnn, Bo\nTranscript\nAnn: hi\n")
    assert meet.sniff_meet(Source(path)) == 80
    path.write_text("Release notes - Transcript\nWe shipped the thing.\n")
    assert meet.sniff_meet(Source(path)) == 0


@pytest.mark.parametrize(
    "path",
    ["sample_data/chat/zoom-chat.txt", "sample_data/chat/whatsapp.txt",
     "sample_data/chat/discord-text.txt", "sample_data/transcripts/standup.vtt"],
)  # fmt: skip
def test_other_text_formats_are_not_meet(path):
    assert meet.sniff_meet(Source(ROOT / path)) == 0


_WORD = st.text(st.characters(whitelist_categories=("L",)), min_size=1, max_size=8)
_NAME = st.lists(_WORD, min_size=1, max_size=3).map(" ".join)
_TEXT = st.lists(_WORD, min_size=1, max_size=6).map(" ".join)
_LINE = st.tuples(_NAME, _TEXT)


@given(st.lists(st.lists(_LINE, min_size=1, max_size=4), min_size=1, max_size=4))
def test_any_transcript_reads_back(tmp_path_factory, sections):
    path = tmp_path_factory.mktemp("meet") / "t.txt"
    body = ["Call (2024-02-03 10:00 GMT+1) - Transcript", "Attendees", "A, B", "Transcript"]
    want = []
    for i, lines in enumerate(sections):
        body += [f"00:{5 * i:02d}:00", " "]
        body += [f"{name}: {text}" for name, text in lines]
        want += [(name, text, f"2024-02-03T09:{5 * i:02d}:00Z") for name, text in lines]
    path.write_text("\n".join(body) + "\nMeeting ended after 00:30:00\n")
    recs, rejects, warnings = run(meet.read_meet, path)
    assert not rejects and not warnings
    assert [(r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"]) for r in recs] == want


def test_a_url_line_names_no_speaker(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text(
        "Call - Transcript\nAnn: see https://example.com/x\nhttps://example.com/y\nBo:\n"
    )
    recs, rejects, warnings = run(meet.read_meet, path)
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        ("Ann", "see https://example.com/x")
    ]
    assert [r.where for r in rejects] == ["t.txt:3"]
    assert warnings == ["t.txt: 1 speaker line without text skipped"]


@pytest.mark.parametrize("name", FILES)
def test_the_document_as_docx_gives_what_the_txt_gives(tmp_path, name):
    """Google Docs writes a paragraph for each line of the .txt download."""
    from docx_helpers import write_docx

    text = (DIR / name).read_text(encoding="utf-8-sig")
    path = write_docx(tmp_path / f"{name[:-4]}.docx", [[x] for x in text.splitlines()])
    assert registry.detect(Source(path)).name == "google-meet"
    from_txt, rejects_txt, warnings_txt = run(meet.read_meet, DIR / name)
    from_docx, rejects_docx, warnings_docx = run(meet.read_meet, path)

    def same(recs):
        return [{k: v for k, v in r.items() if k not in ("source_id", "id")} for r in recs]

    assert same(from_docx) == same(from_txt)
    assert [r["source_id"].rpartition("#")[2] for r in from_docx][:1] == [
        "p-" + from_txt[0]["source_id"].rpartition(":")[2]
    ]
    assert len(rejects_docx) == len(rejects_txt)
    assert len(warnings_docx) == len(warnings_txt)


def test_a_notes_by_gemini_document_keeps_its_notes_and_reads_its_transcript(tmp_path):
    """A "Notes by Gemini" doc (what Meet writes since 2024: the notes tab, then the
    ``📖 Transcript`` tab) downloaded whole was "format not recognised"."""
    from docx_helpers import write_docx

    path = DIR / "notes-by-gemini-2025.txt"
    assert registry.detect(Source(path)).name == "google-meet"
    recs, rejects, warnings = run(meet.read_meet, path)
    assert not rejects
    assert [w for w in warnings if "no time of day" not in w] == []
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        ("Alice Smith", "Shall we start?"), ("Bob Jones", "Yes."), ("Alice Smith", "Next item.")
    ]  # fmt: skip
    notes = recs[0]["extra"]["notes"]
    assert (
        notes.startswith("📝 Notes\nMar 5, 2025\nWeekly sync") and "Suggested next steps" in notes
    )
    assert "notes" not in recs[1]["extra"] and recs[0]["subject"] == "Weekly sync"
    docx = write_docx(tmp_path / "notes.docx", [[x] for x in path.read_text().splitlines()])
    assert registry.detect(Source(docx)).name == "google-meet"
    from_docx, _, _ = run(meet.read_meet, docx)
    assert [r["textChunks"] for r in from_docx] == [r["textChunks"] for r in recs]


def test_notes_without_a_transcript_tab_are_not_meet(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("📝 Notes\nMar 5, 2025\nWeekly sync\n\nSummary\nWe met.\n")
    assert meet.sniff_meet(Source(path)) == 0
