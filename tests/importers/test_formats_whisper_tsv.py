"""Whisper's ``--output_format tsv`` (``whisper-tsv``): openai-whisper's ``WriteTSV``
(a ``start<TAB>end<TAB>text`` header, integer milliseconds, the text with tabs made
spaces), as WhisperX and stable-ts copy it."""

from __future__ import annotations

from pathlib import Path

from conftest import records
from convo.cli.app import app

TSV = Path(__file__).resolve().parent.parent / "fixtures" / "formats" / "asr" / "whisper.tsv"


def _ingest(runner, path: Path, *args: str):
    result = runner.invoke(app, ["ingest", str(path), "-o", "-", *args])
    return result, records(result.stdout)


def test_whisper_tsv_segments_in_milliseconds(runner):
    result, recs = _ingest(runner, TSV)
    assert result.exit_code == 0, result.output
    assert {r["format"] for r in recs} == {"whisper-tsv"}
    assert [r["textChunks"][0] for r in recs] == [
        "Welcome back to the garden club podcast.",
        "Today we are talking about saving seeds.",
        "First, let the pods dry on the plant.",
    ]
    assert [(r["extra"]["start"], r["extra"]["end"]) for r in recs] == [
        (0.0, 3.12), (3.12, 6.48), (6.48, 9.01),
    ]  # fmt: skip
    assert [r["source_id"].rsplit("#", 1)[1] for r in recs] == [
        "segment-1", "segment-2", "segment-4",
    ]  # fmt: skip
    assert "skipped segments without text: 1" in result.stderr
    assert len({r["id"] for r in recs}) == 3


def test_seconds_a_speaker_column_and_a_bad_line(runner, tmp_path):
    path = tmp_path / "call.tsv"
    path.write_text(
        "start\tend\tspeaker\ttext\n0.0\t2.5\tSPEAKER_00\tHi.\n"
        "2.5\t4.0\tSPEAKER_01\tHello,\tthere.\nsoon\tlater\tSPEAKER_00\tLost?\n",
        encoding="utf-8",
    )
    result, recs = _ingest(runner, path)
    assert result.exit_code == 1  # the rejected line
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        ("SPEAKER_00", "Hi."), ("SPEAKER_01", "Hello,\tthere."),
    ]  # fmt: skip
    assert recs[1]["extra"]["start"] == 2.5
    assert "call.tsv#segment-3: rejected: a line without readable times" in result.stderr


def test_a_tsv_that_is_not_whispers_is_not_read_as_it(runner, tmp_path):
    path = tmp_path / "table.tsv"
    path.write_text("name\tage\tcity\nAnn\t30\tOslo\n", encoding="utf-8")
    result, _ = _ingest(runner, path)
    assert "format not recognised" in result.output
