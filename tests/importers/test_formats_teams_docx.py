"""Microsoft Teams transcripts as .docx (``convo.importers.transcripts.teams_docx``) and
the .docx reader under it (``convo.importers.docx``).

The fixture is written by ``docx_helpers`` in the shape parsers of real Teams downloads
read (found with the code search: python-docx, mammoth and zipfile converters): the
title, ``May 14, 2024, 6:02PM``, the length, ``started transcription``, then one
paragraph a turn with the speaker's avatar drawing, ``Name   M:SS``, a ``<w:br/>`` and
the text; paragraph properties carry tab stops (which are not text).
"""

from __future__ import annotations

import zipfile
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from docx_helpers import write_docx
from formats_helpers import FIXTURES, run
from hypothesis import given
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers import docx
from convo.importers.context import ImportOptions
from convo.importers.registry import registry
from convo.importers.transcripts import teams_docx

FIXTURE = FIXTURES / "teams_docx" / "garden-club.docx"
TITLE = "Garden club planning-20240514_180203-Meeting Recording"


def test_golden():
    recs, rejects, warnings = run(teams_docx.read_teams_docx, FIXTURE)
    assert not rejects and not warnings
    assert_golden("formats/teams_docx/garden-club.jsonl", recs)
    assert registry.detect(Source(FIXTURE)).name == "teams-docx"


def test_turns_events_subject_and_the_stated_date_in_tz():
    opts = ImportOptions(tz=ZoneInfo("Europe/London"))
    recs, _, _ = run(teams_docx.read_teams_docx, FIXTURE, opts)
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["tags"], r["timestamp"]) for r in recs]
    assert got == [
        (None, "Dana Whitfield started transcription", ["system"], "2024-05-14T17:02:00Z"),
        ("Dana Whitfield", "Okay, I think we are live. Welcome, everyone.", [], "2024-05-14T17:02:03Z"),
        ("Marcus Oyelaran", "Thanks Dana. Quick question about the seed order:\tis it due Friday?", [],
         "2024-05-14T17:02:11Z"),
        ("Dana Whitfield", "Yes, Friday.\nIt goes out on Saturday morning.", [], "2024-05-14T17:02:19Z"),
        ("Priya Raman", "One more thing & then I have to go.", [], "2024-05-14T18:04:03Z"),
        (None, "Dana Whitfield stopped transcription", ["system"], "2024-05-14T18:04:03Z"),
    ]  # fmt: skip
    assert {r["subject"] for r in recs} == {TITLE}
    assert [r["source_id"] for r in recs][:3] == [
        "garden-club.docx#p-5", "garden-club.docx#p-6", "garden-club.docx#p-7"
    ]  # fmt: skip
    assert recs[4]["extra"] == {"start": 3723.0}


def test_start_date_wins_over_the_header_and_keeps_ids():
    plain, _, _ = run(teams_docx.read_teams_docx, FIXTURE)
    start = datetime(2020, 1, 1, tzinfo=UTC)
    recs, _, _ = run(teams_docx.read_teams_docx, FIXTURE, ImportOptions(start_date=start))
    assert recs[1]["timestamp"] == "2020-01-01T00:00:03Z"
    assert [r["id"] for r in recs] == [r["id"] for r in plain]


def test_a_date_in_another_language_is_rejected_with_a_hint(tmp_path):
    path = write_docx(tmp_path / "t.docx", [
        ["Reunión semanal"], ["14 de mayo de 2024, 18:02"], ["41m 7s"],
        ["Ana López   0:03\nHola a todos."],
    ])  # fmt: skip
    recs, rejects, _ = run(teams_docx.read_teams_docx, path)
    assert [(r.where, r.raw) for r in rejects] == [("t.docx#p-2", "14 de mayo de 2024, 18:02")]
    assert "--start-date" in (rejects[0].hint or "")
    assert [(r["metadata"]["speaker"], r["timestamp"], r["subject"]) for r in recs] == [
        ("Ana López", "1970-01-01T00:00:03Z", "Reunión semanal")
    ]


def test_text_after_stopped_transcription_is_rejected(tmp_path):
    path = write_docx(tmp_path / "t.docx", [
        ["Sync"], ["Ann Lee   0:01\nhi"], ["Ann Lee stopped transcription"], ["stray words"],
        ["Bo Chen   0:09"],
    ])  # fmt: skip
    recs, rejects, warnings = run(teams_docx.read_teams_docx, path)
    assert [(r.where, r.reason) for r in rejects] == [("t.docx#p-4", "text without a speaker line")]
    assert warnings == ["t.docx#p-5: speaker line without text; skipped"]
    assert [r["textChunks"][0] for r in recs] == ["hi", "Ann Lee stopped transcription"]


def test_a_word_document_that_is_no_transcript_is_not_detected(tmp_path):
    path = write_docx(tmp_path / "letter.docx", [["Dear Ann,"], ["The meeting is at 10:30."]])
    assert teams_docx.sniff_teams_docx(Source(path)) == 0
    zipped = tmp_path / "other.zip"
    with zipfile.ZipFile(zipped, "w") as zf:
        zf.writestr("notes.txt", "Ann   0:03\nhello\n")
    assert teams_docx.sniff_teams_docx(Source(zipped)) == 0


def test_a_damaged_document_is_one_clear_error(tmp_path):
    path = tmp_path / "t.docx"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("word/document.xml", "<w:document xmlns:w='x'><w:body><w:p><w:t>Ann")
    with pytest.raises(InputError, match="malformed XML"):
        run(teams_docx.read_teams_docx, path)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("word/other.xml", "<x/>")
    with pytest.raises(InputError, match="not a Word document"):
        run(teams_docx.read_teams_docx, path)


def test_entities_are_refused(tmp_path):
    path = tmp_path / "t.docx"
    body = ('<!DOCTYPE d [<!ENTITY x "boom">]><w:document xmlns:w="x"><w:body>'
            "<w:p><w:r><w:t>&x;</w:t></w:r></w:p></w:body></w:document>")  # fmt: skip
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("word/document.xml", body)
    with pytest.raises(InputError, match="unsafe XML refused"):
        run(teams_docx.read_teams_docx, path)


def test_paragraph_text_keeps_breaks_and_tabs_and_skips_drawings_and_tab_stops(tmp_path):
    path = write_docx(
        tmp_path / "t.docx", [["a\tb", "\nc"], [], ["d"]], avatar=True, tab_stops=True
    )
    with zipfile.ZipFile(path) as zf, zf.open("word/document.xml") as f:
        assert list(docx.paragraphs_of(f, "t")) == [(1, "a\tb\nc"), (2, ""), (3, "d")]


def test_a_text_box_is_read_once_not_again_from_its_fallback():
    """Word writes a text box twice: as DrawingML (``mc:Choice``) and as VML for older
    readers (``mc:Fallback``). Its paragraphs are read once, and a drawing's own
    DrawingML text (``a:t``, a shape's label) is no paragraph text."""
    import io

    box = (
        "<w:p><w:r><w:t>Alice Smith   0:03</w:t></w:r><w:r><w:br/></w:r><w:r><w:t>Before"
        '</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing>'
        "<wps:txbx><w:txbxContent><w:p><w:r><w:t>In the box</w:t></w:r></w:p>"
        "</w:txbxContent></wps:txbx><a:p><a:r><a:t>shape label</a:t></a:r></a:p></w:drawing>"
        "</mc:Choice><mc:Fallback><w:pict><v:textbox><w:txbxContent><w:p><w:r><w:t>In the box"
        "</w:t></w:r></w:p></w:txbxContent></v:textbox></w:pict></mc:Fallback>"
        "</mc:AlternateContent></w:r><w:r><w:t> after</w:t></w:r></w:p>"
    )
    ns = " ".join(
        f'xmlns:{k}="{v}"'
        for k, v in {
            "w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
            "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
            "wps": "http://schemas.microsoft.com/office/word/2010/wordprocessingShape",
            "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
            "v": "urn:schemas-microsoft-com:vml",
        }.items()
    )
    xml = f"<w:document {ns}><w:body>{box}</w:body></w:document>".encode()
    got = [text for _, text in docx.paragraphs_of(io.BytesIO(xml), "t")]
    assert got == ["Alice Smith   0:03\nBefore", "In the box", " after"]


_CHARS = st.characters(
    blacklist_categories=("Cs", "Cc", "Cn"), blacklist_characters="\r"
) | st.sampled_from("\n\t")
_RUN = st.text(_CHARS, max_size=12)


@given(st.lists(st.lists(_RUN, max_size=3), min_size=1, max_size=6))
def test_any_paragraphs_read_back(tmp_path_factory, paras):
    path = write_docx(tmp_path_factory.mktemp("docx") / "t.docx", paras, avatar=True)
    with zipfile.ZipFile(path) as zf, zf.open("word/document.xml") as f:
        got = list(docx.paragraphs_of(f, "t"))
    assert got == [(i, "".join(runs)) for i, runs in enumerate(paras, 1)]


_WORD = st.text(st.characters(whitelist_categories=("L",)), min_size=1, max_size=8)
_NAME = st.lists(_WORD, min_size=1, max_size=3).map(" ".join)
_TEXT = st.lists(_WORD, min_size=1, max_size=6).map(" ".join)


@given(st.lists(st.tuples(_NAME, st.integers(0, 5 * 3600), _TEXT), min_size=1, max_size=6))
def test_any_turns_read_back(tmp_path_factory, turns):
    paras = [["Title"], ["March 3, 2025, 9:15AM"], ["1h 2m 3s"]]
    for name, s, text in turns:
        h, rest = divmod(s, 3600)
        clock = f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"
        paras.append([f"{name}   {clock}", "\n" + text])
    path = write_docx(tmp_path_factory.mktemp("teams") / "t.docx", paras)
    recs, rejects, warnings = run(teams_docx.read_teams_docx, path)
    assert not rejects and not warnings
    assert [(r["metadata"]["speaker"], r["extra"]["start"], r["textChunks"][0]) for r in recs] == [
        (name, float(s), text) for name, s, text in turns
    ]
    start = datetime(2025, 3, 3, 9, 15, tzinfo=UTC).timestamp()
    assert [datetime.fromisoformat(r["timestamp"]).timestamp() - start for r in recs] == [
        float(s) for _, s, _ in turns
    ]


def test_an_otter_docx_footer_is_no_turns_words(tmp_path):
    """An Otter .docx (read by this format: its paragraphs are Teams') ends with
    ``Transcribed by https://otter.ai``: structure, not the last speaker's words."""
    path = write_docx(tmp_path / "otter.docx", [
        ["Dana Whitfield  0:03\nWelcome, everyone."], ["Marcus Oyelaran  0:09"], ["Thanks, Dana."],
        ["Transcribed by https://otter.ai"],
    ])  # fmt: skip
    recs, rejects, _ = run(teams_docx.read_teams_docx, path)
    assert rejects == []
    assert [r["textChunks"] for r in recs] == [["Welcome, everyone."], ["Thanks, Dana."]]


def test_an_otter_docx_header_is_read_not_rejected(tmp_path):
    """Otter's .docx opens with its title, a date line (``Tue, 5/14 6:02PM • 12:40``),
    ``SUMMARY KEYWORDS`` and ``SPEAKERS`` paragraphs (``otter_header``): each was
    rejected as "a header line that is not the title, the date or the length"."""
    path = write_docx(tmp_path / "otter.docx", [
        ["Garden club, May call"], ["Tue, 5/14/2024 6:02PM • 12:40"], ["SUMMARY KEYWORDS"],
        ["seed order, compost"], ["SPEAKERS"], ["Speaker 2, Dana Whitfield"],
        ["Dana Whitfield  0:03\nWelcome, everyone."], ["Speaker 2  0:09\nThanks, Dana."],
        ["Transcribed by https://otter.ai"],
    ])  # fmt: skip
    recs, rejects, warnings = run(teams_docx.read_teams_docx, path)
    assert rejects == [] and warnings == []
    assert [r["subject"] for r in recs] == ["Garden club, May call"] * 2
    assert [r["timestamp"] for r in recs] == ["2024-05-14T18:02:03Z", "2024-05-14T18:02:09Z"]
    assert recs[0]["extra"]["keywords"] == ["seed order", "compost"]
    assert recs[0]["extra"]["speakers"] == ["Speaker 2", "Dana Whitfield"]
    undated = write_docx(tmp_path / "undated.docx", [
        ["Call"], ["Tue, 5/14 6:02PM • 12:40"], ["Ann  0:01\nhello"],
    ])  # fmt: skip
    recs, rejects, warnings = run(teams_docx.read_teams_docx, undated)
    assert rejects == [] and len(warnings) == 1 and "give --start-date" in warnings[0]
    assert recs[0]["extra"]["date"] == "Tue, 5/14 6:02PM • 12:40"
