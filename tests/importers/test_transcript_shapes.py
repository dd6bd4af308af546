"""Subtitle shapes found by reading real files against convo's output (audit round 6):
one fixture of our own per shape, under tests/fixtures/transcripts/, with goldens.

- ``webex.vtt``: Webex names each cue's speaker in its identifier (``2 "Ann Lee"
  (1262511360)``; ``1 "" (0)`` when it could not tell); the speakers were lost.
- ``blank-line-in-cue.srt``: a blank line inside a cue's text (writers that keep the
  paragraphs of a transcript); the text after it was rejected as a block without a
  timing line. Players (ffmpeg) read it as the cue's.
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


_PAREN_LINES = (
    "WEBVTT\n\n"
    "00:00:02.000 --> 00:00:05.000\n(Rosa Lind)\nShall we start with the seed order\n\n"
    "00:00:05.000 --> 00:00:08.000\n(Rosa Lind)\nfor the spring beds?\n-\n \n(Tom Reyes)\nYes, the list is ready\n\n"
    "00:00:08.000 --> 00:00:10.000\n(Tom Reyes)\n(laughs) mostly beans\n\n"
)


def test_a_name_line_in_parentheses_is_the_speaker(runner, tmp_path):
    """Google Meet's captions put ``(Name)`` on its own line before the words, and a cue
    where two speak has ``-`` and a line with a space between them: the name was text
    and the two speakers one message (danyelf/parse-vtt's readme shows the shape)."""
    path = tmp_path / "meet.vtt"
    path.write_text(_PAREN_LINES, encoding="utf-8")
    result, recs = _ingest(runner, str(path))
    assert result.exit_code == 0, result.output
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        ("Rosa Lind", ["Shall we start with the seed order for the spring beds?"]),
        ("Tom Reyes", ["Yes, the list is ready (laughs) mostly beans"]),
    ]


def test_sound_cues_in_parentheses_are_no_speakers(runner, tmp_path):
    """``(laughs)``, ``(door closes)`` lines are descriptions, never speakers."""
    path = tmp_path / "sdh.vtt"
    cues = "".join(
        f"00:00:0{i}.000 --> 00:00:0{i}.900\n({sound})\nwords {i}\n\n"
        for i, sound in enumerate(["laughs", "door closes", "laughs", "sighs"])
    )
    path.write_text("WEBVTT\n\n" + cues, encoding="utf-8")
    _, recs = _ingest(runner, str(path), "--no-merge")
    assert {r["metadata"]["speaker"] for r in recs} == {None}
    assert recs[0]["textChunks"] == ["(laughs)\nwords 0"]


@pytest.mark.parametrize(
    "sounds",
    [["Applause", "Music", "Applause", "Music"], ["MUSIC", "APPLAUSE", "MUSIC", "LAUGHTER"],
     ["Upbeat Music", "Laughter", "Crowd Cheering", "Laughter"]],
)  # fmt: skip
def test_capitalised_sound_cues_in_parentheses_are_no_speakers(runner, tmp_path, sounds):
    """Captions write sounds capitalised too (``(Applause)``, SDH's ``(MUSIC)``): they
    were taken for Google Meet's names, each cue's words given to ``Applause``."""
    path = tmp_path / "talk.vtt"
    cues = "".join(
        f"00:00:0{i}.000 --> 00:00:0{i}.900\n({sound})\nwords {i}\n\n"
        for i, sound in enumerate(sounds)
    )
    path.write_text("WEBVTT\n\n" + cues, encoding="utf-8")
    _, recs = _ingest(runner, str(path), "--no-merge")
    assert {r["metadata"]["speaker"] for r in recs} == {None}
    assert recs[0]["textChunks"] == [f"({sounds[0]})\nwords 0"]


def test_a_line_in_parentheses_alone_in_its_cue_is_no_speaker(runner, tmp_path):
    """Google Meet writes the words after the name, in the cue; a cue that is only a
    parenthesised line is a caption of its own, not the speaker of the cues after it."""
    path = tmp_path / "talk.vtt"
    texts = ["(Standing Ovation)", "Thank you all for coming", "(Standing Ovation)", "It is good"]
    cues = "".join(f"00:00:0{i}.000 --> 00:00:0{i}.900\n{text}\n\n" for i, text in enumerate(texts))
    path.write_text("WEBVTT\n\n" + cues, encoding="utf-8")
    _, recs = _ingest(runner, str(path), "--no-merge")
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        (None, [text]) for text in texts
    ]


def test_webex_names_the_speaker_in_the_cue_identifier(runner, monkeypatch):
    monkeypatch.chdir(FIXTURES)
    result, recs = _ingest(runner, "transcripts/webex.vtt")
    assert result.exit_code == 0, result.output
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        (None, ["Okay, I think we are recording now."]),
        ("Rosa Lind (she/her)", ["Morning, everyone. Seeds first. Then the rota."]),
        ("Tom Reyes", ["Tom: the list is ready."]),  # the name is the identifier's, not a prefix
    ]
    assert recs[1]["extra"]["cue_ids"] == [
        '2 "Rosa Lind (she/her)" (1262511360)',
        '3 "Rosa Lind (she/her)" (1262511360)',
    ]
    assert_golden("transcript/webex.jsonl", recs)


def test_a_cue_identifier_of_other_words_names_no_one(runner, tmp_path):
    path = tmp_path / "ids.vtt"
    path.write_text(
        'WEBVTT\n\nintro "quoted"\n00:00:01.000 --> 00:00:02.000\nHello\n\n'
        '7 "Ann" (x)\n00:00:02.000 --> 00:00:03.000\nHi\n'
    )
    _, recs = _ingest(runner, str(path))
    assert [r["metadata"]["speaker"] for r in recs] == [None, None]


def test_a_blank_line_inside_an_srt_cue_continues_it(runner, monkeypatch):
    monkeypatch.chdir(FIXTURES)
    result, recs = _ingest(runner, "transcripts/blank-line-in-cue.srt", "--no-merge")
    assert result.exit_code == 0, result.output
    assert [r["textChunks"] for r in recs] == [
        ["Morning, all."],
        ["The seed order came in,\nbut two packets were damp."],
        ["42"],  # a number alone as a cue's text is still its text
        ["We send those back."],
    ]
    assert [r["extra"]["start"] for r in recs] == [1.0, 3.5, 7.5, 9.5]


def test_an_srt_speaker_on_a_line_of_its_own(runner, monkeypatch):
    """Subtitles for the deaf name a speaker on a line of its own (``MAN:``), the words on
    the next lines; a cue that holds only such a line is words, no speaker."""
    monkeypatch.chdir(FIXTURES)
    result, recs = _ingest(runner, "transcripts/speaker-own-line.srt", "--no-merge")
    assert result.exit_code == 0, result.output
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        ("MAN", "Where were you last night?"),
        ("WOMAN", "At home.\nAlone."),
        ("WOMAN", "I swear it."),  # a cue without a name: the speaker before goes on
        ("MAN", "Your car was gone."),
        ("MAN", "WARNING:"),
    ]


def test_whisperx_diarized_subtitles_name_their_speakers(runner, monkeypatch, tmp_path):
    """WhisperX writes a diarized segment's speaker as ``[SPEAKER_00]: `` before its
    text (its ``SubtitlesWriter``): the speaker, and no ``: `` left in the text; two
    cues of two speakers are enough."""
    monkeypatch.chdir(FIXTURES)
    result, recs = _ingest(runner, "transcripts/whisperx-diarized.srt")
    assert result.exit_code == 0, result.output
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        ("SPEAKER_00", "Hello, everyone."), ("SPEAKER_01", "Hi there."),
        ("SPEAKER_00", "Let us start."),
    ]  # fmt: skip
    vtt = tmp_path / "talk.vtt"
    vtt.write_text(
        "WEBVTT\n\n00:00.000 --> 00:02.500\n[SPEAKER_00]: Hello.\n\n"
        "00:02.500 --> 00:05.000\n[SPEAKER_01]: Hi.\n",
        encoding="utf-8",
    )
    _, recs = _ingest(runner, str(vtt))
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        ("SPEAKER_00", "Hello."), ("SPEAKER_01", "Hi."),
    ]  # fmt: skip
