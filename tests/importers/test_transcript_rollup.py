"""Roll-up captions without a ``Kind:`` header or karaoke timestamps: YouTube's automatic
captions converted to SubRip (yt-dlp ``--convert-subs srt``, FFmpeg) keep each roll's
50 ms freeze cue, which repeats the line before it (``turns._RollUp.freezes``)."""

from __future__ import annotations

from pathlib import Path

from formats_helpers import run

from convo.importers.transcripts import srt

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"


def test_converted_auto_captions_are_read_once():
    recs, rejects, warnings = run(srt.read_srt, FIXTURE / "youtube-auto-converted.srt")
    assert not rejects and not warnings
    assert [r["textChunks"][0] for r in recs] == [
        "hello there everyone", "welcome to the show", "today we talk about mail"
    ]  # fmt: skip
    assert [r["extra"]["cues"] for r in recs] == [[1], [3], [5]]


def test_a_repeated_line_or_a_short_cue_alone_is_not_a_roll(tmp_path):
    path = tmp_path / "film.srt"
    path.write_text(
        "1\n00:00:00,000 --> 00:00:02,500\nNo.\n\n2\n00:00:02,500 --> 00:00:04,000\nNo.\n\n"
        "3\n00:00:04,000 --> 00:00:04,030\nBang\n\n4\n00:00:05,000 --> 00:00:06,000\nBang\nagain\n"
    )
    recs, _, _ = run(srt.read_srt, path)
    assert [r["textChunks"][0] for r in recs] == ["No.", "No.", "Bang", "Bang\nagain"]
