"""Whisper's console transcript saved as text (``whisper-txt``): whisper.cpp's stdout
(``[00:00:00.000 --> 00:00:03.120]  (speaker 0) text [SPEAKER_TURN]``) and openai-whisper's
``--verbose`` lines (``[00:00.000 --> 00:02.500]  text``)."""

from __future__ import annotations

from pathlib import Path

from conftest import records
from convo.cli.app import app

TXT = Path(__file__).resolve().parent.parent / "fixtures" / "formats" / "asr"
TXT = TXT / "whisper-cli-stdout.txt"


def _ingest(runner, path: Path, *args: str):
    result = runner.invoke(app, ["ingest", str(path), "-o", "-", *args])
    return result, records(result.stdout)


def test_whisper_cpp_stdout_with_its_speaker_estimates(runner):
    result, recs = _ingest(runner, TXT, "--no-merge")
    assert result.exit_code == 0, result.output
    assert {r["format"] for r in recs} == {"whisper-txt"}
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        ("0", "Welcome back to the garden club podcast."),
        ("0", "Today we are talking about saving seeds."),
        ("1", "First, let the pods dry on the plant."),
        (None, "Right."),
    ]
    assert recs[1]["extra"]["speaker_turn_next"] is True
    assert [r["extra"]["start"] for r in recs] == [0.0, 3.12, 6.48, 9.01]


def test_verbose_python_lines_colours_and_a_log_line(runner, tmp_path):
    path = tmp_path / "talk.txt"
    path.write_text(
        "[00:00.000 --> 00:02.500]  Hello.\n\x1b[38;5;196m[01:00:02.500 --> 01:00:05.000]"
        "  Late\x1b[0m words.\nwhisper_print_timings: total time = 99 ms\n",
        encoding="utf-8",
    )
    result, recs = _ingest(runner, path)
    assert [r["textChunks"][0] for r in recs] == ["Hello.", "Late words."]
    assert [r["extra"]["start"] for r in recs] == [0.0, 3602.5]
    assert "talk.txt#segment-3: rejected: a line that is no Whisper segment" in result.stderr
