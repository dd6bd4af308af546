"""Subtitle shapes found by reading real files against convo's output (audit round 6):
one fixture of our own per shape, under tests/fixtures/transcripts/, with goldens.

- ``unnumbered-cues.srt``: SRT cues without index numbers whose first start has no
  ``,mmm`` (go-astisub's ``testdata/missing-sequence-in.srt``); was read as header-less
  WebVTT (``format: vtt`` and a "no WEBVTT header" warning) although named ``.srt``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import assert_golden, records
from convo.cli.app import app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
UNNUMBERED = FIXTURES / "transcripts" / "unnumbered-cues.srt"


def _ingest(runner, path: str, *args: str, stdin: bytes | None = None):
    result = runner.invoke(app, ["ingest", path, "-o", "-", *args], input=stdin)
    return result, records(result.stdout)


def test_unnumbered_srt_is_srt(runner, monkeypatch):
    monkeypatch.chdir(FIXTURES)
    result, recs = _ingest(runner, "transcripts/unnumbered-cues.srt")
    assert result.exit_code == 0, result.output
    assert "WEBVTT" not in result.stderr
    assert [r["format"] for r in recs] == ["srt"] * 3
    assert [r["extra"]["start"] for r in recs] == [1.0, 4.0, 7.0]
    assert_golden("transcript/unnumbered-cues.jsonl", recs)


@pytest.mark.parametrize(("name", "fmt"), [("cues.vtt", "vtt"), ("cues.txt", "vtt")])
def test_header_less_cues_named_otherwise_stay_vtt(runner, tmp_path, name, fmt):
    path = tmp_path / name
    path.write_bytes(UNNUMBERED.read_bytes())
    _, recs = _ingest(runner, str(path))
    assert {r["format"] for r in recs} == {fmt}


def test_header_less_cues_on_stdin_stay_vtt(runner):
    _, recs = _ingest(runner, "-", stdin=UNNUMBERED.read_bytes())
    assert {r["format"] for r in recs} == {"vtt"}
