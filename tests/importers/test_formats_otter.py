"""Otter.ai text exports (``convo.importers.transcripts.otter``).

The fixtures reproduce the layout parsers of real Otter exports read (found with the
code search): ``Name  M:SS`` header lines with two trailing spaces, the paragraph on the
next line, a blank line, the ``Transcribed by https://otter.ai`` footer; and the layout
of an export without speaker names (the offset alone on the header line).
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from formats_helpers import FIXTURES, run
from hypothesis import given
from hypothesis import strategies as st

from conftest import ROOT, assert_golden
from convo.core.io import Source
from convo.importers.context import ImportOptions
from convo.importers.registry import registry
from convo.importers.transcripts import otter

DIR = FIXTURES / "otter"


@pytest.mark.parametrize("name", ["garden-club.txt", "no-speakers.txt"])
def test_golden(name):
    recs, rejects, warnings = run(otter.read_otter, DIR / name)
    assert not rejects and not warnings
    assert_golden(f"formats/otter/{name.removesuffix('.txt')}.jsonl", recs)
    assert registry.detect(Source(DIR / name)).name == "otter"


def test_paragraphs_speakers_and_offsets():
    recs, _, _ = run(otter.read_otter, DIR / "garden-club.txt")
    got = [(r["metadata"]["speaker"], r["textChunks"], r["extra"]["start"]) for r in recs]
    assert got == [
        ("Dana Whitfield", ["Okay, I think we are recording. Welcome back to the garden club call."], 2.0),
        ("Speaker 2", ["Thanks Dana. Can everyone hear me?"], 9.0),
        ("Dana Whitfield", ["Yes, loud and clear.\nLet us start with the seed order."], 14.0),
        ("Speaker 2", ["One last thing before we stop."], 3723.0),
    ]  # fmt: skip
    assert [r["timestamp"] for r in recs][-1] == "1970-01-01T01:02:03Z"  # the epoch + offset
    assert [r["source_id"] for r in recs] == [
        "garden-club.txt:1", "garden-club.txt:4", "garden-club.txt:7", "garden-club.txt:11"
    ]  # fmt: skip
    assert all(r["metadata"]["listeners"] == [] for r in recs)


def test_start_date_moves_times_not_ids():
    plain, _, _ = run(otter.read_otter, DIR / "garden-club.txt")
    start = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
    dated, _, _ = run(otter.read_otter, DIR / "garden-club.txt", ImportOptions(start_date=start))
    assert [r["timestamp"] for r in dated][:2] == ["2024-05-01T10:00:02Z", "2024-05-01T10:00:09Z"]
    assert [r["id"] for r in dated] == [r["id"] for r in plain]
    assert len({r["id"] for r in plain}) == len(plain)


def test_text_before_the_first_header_is_rejected_and_an_empty_turn_warned(tmp_path):
    path = tmp_path / "call.txt"
    path.write_text("My notes\n\nAnn  0:01\nhello\n\nBob  0:05\n\nAnn  0:09\nbye\n")
    recs, rejects, warnings = run(otter.read_otter, path)
    assert [(r.where, r.reason, r.raw) for r in rejects] == [
        ("call.txt:1", "text before the first Otter speaker line", "My notes")
    ]
    assert warnings == ["call.txt:6: speaker line without text; skipped"]
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        ("Ann", "hello"), ("Ann", "bye")
    ]  # fmt: skip


def test_crlf_bom_and_an_empty_file(tmp_path):
    path = tmp_path / "call.txt"
    path.write_bytes(b"\xef\xbb\xbfAnn  0:01  \r\nhello\r\n\r\nBob  0:05  \r\nhi\r\n")
    recs, rejects, _ = run(otter.read_otter, path)
    assert not rejects
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        ("Ann", "hello"), ("Bob", "hi")
    ]  # fmt: skip
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    recs, _, warnings = run(otter.read_otter, empty)
    assert recs == [] and warnings == ["empty.txt: no Otter paragraphs; nothing imported"]


@pytest.mark.parametrize(
    "path",
    ["sample_data/chat/zoom-chat.txt", "sample_data/chat/whatsapp.txt",
     "sample_data/chat/discord-text.txt"],
)  # fmt: skip
def test_other_text_formats_are_not_otter(path):
    assert otter.sniff_otter(Source(ROOT / path)) == 0


def test_a_single_line_with_a_time_is_not_otter(tmp_path):
    path = tmp_path / "note.txt"
    path.write_text("Lunch  12:30\n")
    assert otter.sniff_otter(Source(path)) == 0


_WORD = st.text(st.characters(whitelist_categories=("L",)), min_size=1, max_size=8)
_NAME = st.lists(_WORD, min_size=1, max_size=3).map(" ".join)
_TEXT = st.lists(_WORD, min_size=1, max_size=6).map(" ".join)
_TURN = st.tuples(
    st.none() | _NAME, st.integers(0, 99 * 3600), st.lists(_TEXT, min_size=1, max_size=3)
)


def _clock(s: int) -> str:
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


@given(st.lists(_TURN, min_size=1, max_size=8), st.booleans())
def test_any_export_reads_back(tmp_path_factory, turns, footer):
    path = tmp_path_factory.mktemp("otter") / "t.txt"
    body = "".join(
        (f"{name}  {_clock(s)}  \n" if name else f"{_clock(s)}  \n") + "\n".join(text) + "\n\n"
        for name, s, text in turns
    )
    path.write_text(body + ("Transcribed by https://otter.ai\n" if footer else ""))
    recs, rejects, warnings = run(otter.read_otter, path)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["extra"]["start"], r["textChunks"][0]) for r in recs]
    assert got == [(name, float(s), "\n".join(text)) for name, s, text in turns]


@pytest.mark.parametrize(
    "head", ['{"start": "0:03"}\n', "  [Ann]  0:03\nhi\n", "<p>Ann  0:03</p>\n"]
)
def test_json_or_markup_is_neither_otter_nor_rev_and_the_gates_agree(tmp_path, head):
    from convo.importers.gates import Head
    from convo.importers.transcripts import rev

    path = tmp_path / "x.txt"
    path.write_text(head + "Bob  0:09\nhello\n")
    assert otter.sniff_otter(Source(path)) == 0 and rev.sniff_rev(Source(path)) == 0
    from convo.importers.registry import Registry

    fresh = Registry()
    fresh.names()  # the built-ins declared, none imported
    gates = {d.name: d for d in fresh.declared() if d.name in ("otter", "rev")}
    assert set(gates) == {"otter", "rev"}
    assert not any(d.admits(Head(Source(path))) for d in gates.values())


def test_otter_s_header_above_the_paragraphs():
    """An export with its title (``otter_header``): the title, the date line
    ``Tue, 5/14 6:02PM • 12:40`` (no year: Otter writes none for the current one),
    ``SUMMARY KEYWORDS`` and ``SPEAKERS`` with a line each; none is rejected."""
    path = DIR / "with-header.txt"
    assert registry.detect(Source(path)).name == "otter"
    recs, rejects, warnings = run(otter.read_otter, path)
    assert rejects == []
    assert warnings == [
        "with-header.txt:2: Otter's date line names no year (or no date that reads); the "
        "times are offsets from the start of the recording: give --start-date"
    ]
    assert [(r["metadata"]["speaker"], r["subject"]) for r in recs] == [
        ("Dana Whitfield", "Garden club, May call"), ("Speaker 2", "Garden club, May call")
    ]  # fmt: skip
    assert recs[0]["extra"] == {
        "start": 2.0, "date": "Tue, 5/14 6:02PM • 12:40",
        "keywords": ["seed order", "compost", "rota"], "speakers": ["Speaker 2", "Dana Whitfield"],
    }  # fmt: skip
    assert recs[1]["extra"] == {"start": 9.0} and recs[1]["timestamp"] == "1970-01-01T00:00:09Z"


def test_a_date_line_with_its_year_is_the_start(tmp_path):
    path = tmp_path / "call.txt"
    path.write_text("Sync\nThu, 12/3/2020 10:36AM • 59:48\n\nAnn  0:01\nhello\n", encoding="utf-8")
    recs, rejects, warnings = run(otter.read_otter, path, ImportOptions(tz=ZoneInfo("Europe/Oslo")))
    assert not rejects and not warnings
    assert recs[0]["timestamp"] == "2020-12-03T09:36:01Z"  # 10:36 in Oslo is 09:36 UTC
    given_start = datetime(2024, 1, 2, tzinfo=UTC)
    recs, _, warnings = run(otter.read_otter, path, ImportOptions(start_date=given_start))
    assert recs[0]["timestamp"] == "2024-01-02T00:00:01Z" and not warnings


def test_a_first_line_no_date_or_heading_follows_is_still_rejected(tmp_path):
    path = tmp_path / "call.txt"
    path.write_text("My notes\nAnn  0:01\nhello\n")
    recs, rejects, _ = run(otter.read_otter, path)
    assert [r.raw for r in rejects] == ["My notes"] and "subject" not in recs[0]


def test_youtube_s_transcript_panel_pasted_as_text():
    """YouTube's transcript panel copied (``Transcript``, ``Search in video``, each offset
    then ``4 seconds`` a screen reader says, then the caption), as a transcript tool's
    tests paste it: the offset-only layout, its panel lines and spelled offsets passed
    over."""
    path = DIR / "youtube-panel-paste.txt"
    assert registry.detect(Source(path)).name == "otter"
    recs, rejects, warnings = run(otter.read_otter, path)
    assert not rejects and not warnings
    assert [(r["textChunks"][0], r["extra"]["start"]) for r in recs] == [
        ("so today we're building a tiny house", 0.0), ("[Music]", 4.0),
        ("and it has to be done\nin thirty days", 7.0), ("that's a wrap", 3765.0),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("line", "seconds"),
    [("4 seconds", 4), ("1 minute, 2 seconds", 62), ("2 minutes", 120),
     ("1 hour, 2 minutes, 45 seconds", 3765), ("4 apples", None), ("seconds", None)],
)  # fmt: skip
def test_spelled_offsets(line, seconds):
    assert otter.spelled_seconds(line) == seconds


def test_a_spelled_line_that_is_not_the_offset_stays(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("0:04\n5 seconds\nlater\n\n0:09\nmore\n")
    recs, _, _ = run(otter.read_otter, path)
    assert recs[0]["textChunks"] == ["5 seconds\nlater"]


def test_a_date_line_with_a_month_name(tmp_path):
    path = tmp_path / "call.txt"
    path.write_text(
        "Sync\nMon, Mar 4, 2024 9:58AM • 1:02:03\n\nAnn  0:01\nhello\n", encoding="utf-8"
    )
    recs, rejects, warnings = run(otter.read_otter, path)
    assert not rejects and not warnings
    assert recs[0]["timestamp"] == "2024-03-04T09:58:01Z" and recs[0]["subject"] == "Sync"
