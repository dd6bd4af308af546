"""A transcript without a start date is stored as the epoch + each cue's offset
(TypeAgent's rule), so its first cue, at 0 s, has the time that means "unknown". Its
``extra.start`` tells it apart: it is shown as ``+00:00:00`` like the cues after it,
and a message with no time at all is still shown as undated."""

from __future__ import annotations

from typer.testing import CliRunner

from convo.cli.app import app
from convo.core.fields import undated_offset
from convo.output.views.common import record_time

VTT = (
    "WEBVTT\n\n00:00:00.000 --> 00:00:04.000\n<v Alice>Hello there\n\n"
    "00:00:05.000 --> 00:00:08.000\n<v Bob>Hi Alice\n"
)


def cue(ts: str, start=None) -> dict:
    extra = {} if start is None else {"extra": {"start": start}}
    return {"timestamp": ts, "textChunks": ["x"], **extra}


def test_the_first_cue_of_an_undated_transcript_has_an_offset():
    assert undated_offset(cue("1970-01-01T00:00:00Z", 0.0)) == 0.0
    assert undated_offset(cue("1970-01-01T00:00:00Z", 0.7)) == 0.7
    assert undated_offset(cue("1970-01-01T00:00:05Z", 5.2)) == 5.2
    assert record_time(cue("1970-01-01T00:00:00Z", 0.0)) == "+00:00:00"


def test_the_sentinel_without_a_cue_stays_undated():
    assert undated_offset(cue("1970-01-01T00:00:00Z")) is None
    assert record_time(cue("1970-01-01T00:00:00Z")) == "—"
    # a start that is not this time's offset (another record's extra) does not count
    assert undated_offset(cue("1970-01-01T00:00:00Z", 42.0)) is None
    assert undated_offset(cue("1970-01-01T00:00:00Z", True)) is None


def test_known_times_have_no_offset():
    assert undated_offset(cue("2024-03-06T10:00:00Z", 0.0)) is None
    assert record_time(cue("2024-03-06T10:00:00Z", 0.0), utc=True) == "2024-03-06 10:00:00Z"
    assert undated_offset(cue("1970-01-01T00:01:05Z")) == 65.0


def test_every_view_shows_the_first_cue_at_zero(tmp_path):
    src = tmp_path / "m.vtt"
    src.write_text(VTT)
    runner = CliRunner()
    for fmt in ("text", "table", "markdown"):
        r = runner.invoke(app, ["list", "-f", fmt, "--no-merge", str(src)])
        assert r.exit_code == 0, r.output
        assert "+00:00:00" in r.stdout, (fmt, r.stdout)
        assert "+00:00:05" in r.stdout, (fmt, r.stdout)
    r = runner.invoke(app, ["show", str(src)])
    assert "+00:00:00" in r.stdout
