"""Speech-to-text JSON through the command line: detection, warnings and errors as one
line each, --start-date and --speakers, and a hostile speaker label kept off the terminal."""

from __future__ import annotations

import json

from conftest import ROOT, records
from convo.cli.app import app

ASR = ROOT / "tests" / "fixtures" / "formats" / "asr"
TTY = {"CONVO_FORCE_TTY": "1", "NO_COLOR": "1"}


def run(runner, *args, env=None):
    return runner.invoke(app, list(args), env=env)


def test_ingest_piped_detects_each_engine(runner):
    for name, fmt in (
        ("whisperx.json", "whisper"),
        ("whisper-cpp.json", "whisper-cpp"),
        ("assemblyai.json", "assemblyai"),
        ("deepgram-utterances.json", "deepgram"),
        ("aws-audio-segments.json", "aws-transcribe"),
    ):
        r = run(runner, "ingest", str(ASR / name))
        assert r.exit_code == 0, r.stderr
        recs = records(r.stdout_bytes)
        assert recs and {x["format"] for x in recs} == {fmt}


def test_empty_segments_warned_in_one_line_and_exit_0(runner):
    r = run(runner, "ingest", str(ASR / "whisper-cli.json"))
    assert r.exit_code == 0
    assert (
        f"convo: warning: {ASR / 'whisper-cli.json'}: skipped segments without text: 1" in r.stderr
    )
    assert "read 3, imported 3" in r.stderr


def test_start_date_and_speakers_none(runner):
    r = run(
        runner, "ingest", str(ASR / "openai-diarized.json"),
        "--start-date", "2024-05-02T09:00:00", "--speakers", "none",
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    recs = records(r.stdout_bytes)
    assert [x["timestamp"] for x in recs] == [
        "2024-05-02T09:00:00Z", "2024-05-02T09:00:02Z", "2024-05-02T09:00:03Z",
        "2024-05-02T09:00:06Z",
    ]  # fmt: skip
    assert {x["metadata"]["speaker"] for x in recs} == {None}


def test_forced_format_on_another_file_is_one_error_line(runner, tmp_path):
    p = tmp_path / "notes.json"
    p.write_text('{"title": "not a transcript"}')
    r = run(runner, "ingest", "--from", "whisper", str(p))
    assert r.exit_code != 0
    assert r.stderr.count("\n") == 1 and "not a Whisper transcript" in r.stderr
    assert "Traceback" not in r.stderr


def test_broken_json_is_located(runner, tmp_path):
    p = tmp_path / "cut.json"
    text = (ASR / "openai-diarized.json").read_text()
    p.write_text(text[: text.index('"seg_003"')])
    r = run(runner, "ingest", str(p))
    assert r.exit_code != 0
    assert f"{p}:" in r.stderr and "not valid JSON" in r.stderr
    assert len(records(r.stdout_bytes)) == 1  # the turns before the cut are out


def test_hostile_speaker_label_does_not_reach_the_terminal(runner, tmp_path):
    p = tmp_path / "x.json"
    bad = "\x1b]0;pwned\x07SPEAKER_\x1b[2J"
    p.write_text(json.dumps({"segments": [
        {"id": 0, "seek": 0, "start": 0, "end": 1, "text": " hi \x1b[31m", "speaker": bad},
    ]}))  # fmt: skip
    store = tmp_path / "s.jsonl"
    assert run(runner, "--store", str(store), "ingest", "--save", str(p)).exit_code == 0
    r = run(runner, "--store", str(store), "show", env=TTY)
    assert r.exit_code == 0
    assert "\x1b]" not in r.stdout and "\x1b[2J" not in r.stdout and "\x07" not in r.stdout


def test_formats_lists_the_speech_formats(runner):
    r = run(runner, "formats", "--format", "csv")
    assert r.exit_code == 0, r.stderr
    for name in ("whisper", "whisper-cpp", "assemblyai", "deepgram", "aws-transcribe"):
        assert f"\n{name}," in r.stdout
