"""Transcripts as timed text lines (``txt-transcript``): ``[HH:MM:SS] Name: text``, the
TXT exports of meeting and transcription tools."""

from __future__ import annotations

from pathlib import Path

from conftest import records
from convo.cli.app import app

TXT = Path(__file__).resolve().parent.parent / "fixtures" / "formats" / "txt_transcript"


def test_timed_lines_speakers_offsets_and_continuations(runner):
    result = runner.invoke(app, ["ingest", str(TXT / "seed-swap.txt"), "-o", "-"])
    recs = records(result.stdout)
    assert result.exit_code == 0, result.output
    assert {r["format"] for r in recs} == {"txt-transcript"}
    assert [(r["metadata"]["speaker"], r["textChunks"][0], r["extra"]["start"]) for r in recs] == [
        ("Dana Whitfield", "Welcome, everyone, to the seed swap.", 0.0),
        ("Marcus Oyelaran", "Thanks, Dana. I brought beans:\nrunner beans and two kinds of bush beans.", 6.0),
        ("Dana Whitfield", "That is all for today.", 3723.0),
    ]  # fmt: skip
    assert "speaker line without text" in result.stderr
    assert len({r["id"] for r in recs}) == 3


def test_irc_and_discord_brackets_are_not_taken(runner, tmp_path):
    irc = tmp_path / "chan.txt"
    irc.write_text("[10:00] <alice> hi: there\n[10:01] <bob> yo\n", encoding="utf-8")
    recs = records(runner.invoke(app, ["ingest", str(irc), "-o", "-"]).stdout)
    assert {r["format"] for r in recs} == {"irc"}


def test_timed_lines_without_speakers(runner):
    """``[MM:SS] text`` (youtube-transcript-api's segments as its users write them): no
    speaker, and a colon in the words names no one once the file started without."""
    result = runner.invoke(app, ["ingest", str(TXT / "timestamped-text.txt"), "-o", "-"])
    recs = records(result.stdout)
    assert result.exit_code == 0, result.output
    assert {r["format"] for r in recs} == {"txt-transcript"}
    assert [(r["metadata"]["speaker"], r["textChunks"][0], r["extra"]["start"]) for r in recs] == [
        (None, "so today we are building a tiny house", 0.0),
        (None, "and it has to be done in thirty days", 4.0),
        (None, "step one: the floor\nwhich takes a while", 9.0),
        (None, "that is a wrap", 3725.0),
    ]  # fmt: skip


def test_times_beside_the_words_from_the_first_minute(runner, tmp_path):
    """YouTube's transcript panel pasted with each time beside its words (``0:03 general
    kenobi``, as a transcript tool's tests paste it): taken only when the file starts in
    its first minute, so a note's ``10:30 Meeting: budget`` is not."""
    paste = tmp_path / "paste.txt"
    paste.write_text("0:00 hello there\n0:03 general kenobi\n1:02:03 bye\n", encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(paste), "-o", "-"])
    recs = records(result.stdout)
    assert result.exit_code == 0, result.output
    assert [(r["metadata"]["speaker"], r["textChunks"][0], r["extra"]["start"]) for r in recs] == [
        (None, "hello there", 0.0), (None, "general kenobi", 3.0), (None, "bye", 3723.0)
    ]  # fmt: skip
    notes = tmp_path / "notes.txt"
    notes.write_text("10:30 Meeting: budget\n10:45 ann: ok\n", encoding="utf-8")
    assert runner.invoke(app, ["ingest", str(notes), "-o", "-"]).exit_code != 0


def test_a_title_block_above_the_turns_is_counted_not_rejected(runner, tmp_path):
    """A summary tool's heading above the turns (``Meeting Transcript``, ``Date: ...``,
    ``Duration: ...``, as a meeting-notes skill's example input in a public repository
    shows an export): the file was not recognised; the lines are one warning."""
    path = tmp_path / "sync.txt"
    path.write_text(
        "Meeting Transcript\nDate: January 27, 2025\nDuration: 45 minutes\n\n"
        "[00:00] Sarah: Okay, let's get started.\n\n[00:15] Mike: I'm here.\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["ingest", str(path), "-o", "-"])
    recs = records(result.stdout)
    assert result.exit_code == 0, result.output
    assert [r["metadata"]["speaker"] for r in recs] == ["Sarah", "Mike"]
    assert "3 lines of the document outside the transcript speaker turns" in result.stderr
