"""Transcript importers: WebVTT, SRT and SBV."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import ROOT, assert_golden, records
from convo.core.errors import ConvoError, StrictAbort
from convo.core.io import Source
from convo.importers.context import ImportOptions
from convo.importers.registry import registry
from convo.pipeline.ingest import Ingest

SAMPLES = ROOT / "sample_data" / "transcripts"


def run(path: Path | str, **opts):
    """Import one file; (records, rejections, warnings)."""
    rejects: list = []
    warnings: list = []
    ing = Ingest(ImportOptions(**opts), on_reject=rejects.append, on_warning=warnings.append)
    recs = [m.serialize() for m in ing.messages([path])]
    return recs, rejects, warnings


def vtt(tmp_path, body: str | bytes, name: str = "t.vtt", **opts):
    p = tmp_path / name
    if isinstance(body, str):
        body = body.encode()
    p.write_bytes(body)
    return run(p, **opts)


def turns(recs) -> list[tuple[str | None, str]]:
    return [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs]


# ---------------------------------------------------------------- golden samples


@pytest.mark.parametrize("name", ["standup.vtt", "retro.vtt", "interview.srt", "lecture.sbv"])
def test_golden_samples(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    recs, rejects, warnings = run(f"sample_data/transcripts/{name}")
    assert not rejects and not warnings
    assert_golden(f"transcript/{Path(name).stem}.jsonl", recs)


def test_golden_styles_and_regions_browsers_play(monkeypatch):
    """A STYLE sheet holding blank lines (each ends the block, so the sheet's rest is a
    block of its own), the 2013-2016 drafts' ``Region:`` header lines (in the header and
    in a block of their own) and REGION blocks: browsers drop those blocks and play the
    file, so it imports without a rejection, the cues numbered from 1 as webvtt-py reads
    them."""
    import webvtt

    monkeypatch.chdir(ROOT)
    name = "tests/fixtures/transcripts/style-regions.vtt"
    recs, rejects, warnings = run(name)
    assert not rejects and not warnings
    assert_golden("transcript/style-regions.jsonl", recs)
    assert [r["textChunks"][0] for r in recs] == [c.text for c in webvtt.read(name)]


def test_text_before_the_first_cue_that_is_no_header_is_still_rejected(tmp_path):
    """Only style sheet rests (after STYLE) and old header lines are dropped: other text
    before the first cue may be a cue that lost its timing line, and after the first cue
    a ``Region:`` block is text like any other."""
    body = (
        "WEBVTT\n\nSTYLE\n::cue { color: red; }\n\nAnn: we start\n\n"
        "00:00:01.000 --> 00:00:02.000\nhi\n\nRegion: id=x\n"
    )
    recs, rejects, _ = vtt(tmp_path, body)
    assert [r["textChunks"][0] for r in recs] == ["hi"]
    assert [(r.where.rsplit(":", 1)[1], r.raw) for r in rejects] == [
        ("6", "Ann: we start"),
        ("11", "Region: id=x"),
    ]


def test_a_comment_holding_cue_text_is_said(tmp_path):
    """A NOTE block runs to the next blank line, so a cue's text after a NOTE line without
    the blank (a copy of the header pasted into a cue) is a comment: players show none of
    it and convo reads none of it, but says so with its line (found by
    test_export_mutations_property.py). A comment of prose alone is no news."""
    body = (
        "WEBVTT\n\nNOTE recorded in the team room\nby Ann\n\n"
        "00:00:01.000 --> 00:00:02.000\n<v Ann>hi</v>\n\n"
        "NOTE lost its blank line\n<v Carol>the changelog is ready</v>\n\n"
        "00:00:03.000 --> 00:00:04.000\n<v Bob>bye</v>\n"
    )
    recs, rejects, warnings = vtt(tmp_path, body)
    assert turns(recs) == [("Ann", "hi"), ("Bob", "bye")] and not rejects
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{tmp_path / 't.vtt'}:10: a NOTE comment holds cue text")
    assert "'<v Carol>the changelog is ready</v>'" in warnings[0]


def test_golden_standup_no_merge_with_start_date(monkeypatch):
    monkeypatch.chdir(ROOT)
    start = datetime(2024, 3, 6, 9, 0, tzinfo=UTC)
    recs, _, _ = run("sample_data/transcripts/standup.vtt", merge=False, start_date=start)
    assert_golden("transcript/standup-no-merge.jsonl", recs)


def test_standup_speakers_and_merging():
    recs, _, _ = run(SAMPLES / "standup.vtt")
    assert {r["metadata"]["speaker"] for r in recs} == {"Alice Smith", "Bob Jones", "Carol Diaz"}
    assert all(r["metadata"]["listeners"] == [] for r in recs)
    first = recs[0]
    # Two cues of Alice merged, joined with a space as TypeAgent joins them: one chunk.
    assert first["textChunks"] == [
        "Good morning, everyone. Let's start with the auth refactor. "
        "Bob, where are we with the token migration?"
    ]
    assert first["extra"] == {"start": 1.0, "end": 8.25, "cues": [1, 2], "cue_ids": ["1", "2"]}
    assert first["source_id"].endswith("standup.vtt#cue-1")
    assert first["timestamp"] == "1970-01-01T00:00:01Z"
    assert first["format"] == "vtt"


# ---------------------------------------------------------------- voices


def test_every_voice_span_of_a_cue(tmp_path):
    recs, _, _ = vtt(
        tmp_path,
        "WEBVTT\n\n00:01.000 --> 00:03.000\n<v Ann>Hi.</v> <v Ben>Hello!</v><v Cy>Hey</v>\n",
    )
    assert turns(recs) == [("Ann", "Hi."), ("Ben", "Hello!"), ("Cy", "Hey")]
    assert {r["source_id"].rsplit("#", 1)[1] for r in recs} == {"cue-1"}


def test_voice_class_multiline_and_missing_close(tmp_path):
    body = (
        "WEBVTT\n\n"
        "00:00:01.000 --> 00:00:02.000\n<v.loud.x Mary Ann>Stop\nright there</v>\n\n"
        "00:00:02.000 --> 00:00:03.000\n<v Mary Ann>no closing tag\n\n"
        "00:00:03.000 --> 00:00:04.000\n<V   Joe  Bloggs >Upper-case tag, odd spaces\n"
    )
    recs, _, _ = vtt(tmp_path, body)
    assert turns(recs) == [
        ("Mary Ann", "Stop\nright there no closing tag"),
        ("Joe Bloggs", "Upper-case tag, odd spaces"),
    ]


def test_text_outside_voices_has_no_speaker(tmp_path):
    recs, _, _ = vtt(tmp_path, "WEBVTT\n\n00:01.000 --> 00:02.000\na<v.d e>b</v>c\n")
    assert turns(recs) == [(None, "a"), ("e", "b"), (None, "c")]


def test_voice_mode_ignores_prefixes(tmp_path):
    body = "WEBVTT\n\n00:01.000 --> 00:02.000\nAnn: hi\n\n00:02.000 --> 00:03.000\nAnn: again\n"
    recs, _, _ = vtt(tmp_path, body, speakers="voice")
    assert turns(recs) == [(None, "Ann: hi"), (None, "Ann: again")]
    recs, _, _ = vtt(tmp_path, body)
    assert turns(recs) == [("Ann", "hi again")]


def test_prefix_mode_ignores_voices_and_none_mode_keeps_text(tmp_path):
    body = "WEBVTT\n\n00:01.000 --> 00:02.000\n<v Ann>Bob: hi</v>\n"
    recs, _, _ = vtt(tmp_path, body, speakers="prefix")
    assert turns(recs) == [("Bob", "hi")]
    recs, _, _ = vtt(tmp_path, body, speakers="none")
    assert turns(recs) == [(None, "Bob: hi")]


# ---------------------------------------------------------------- prefixes


def _cues(*texts: str) -> str:
    out = ["WEBVTT", ""]
    for i, t in enumerate(texts):
        out += [f"00:00:{i:02d}.000 --> 00:00:{i + 1:02d}.000", t, ""]
    return "\n".join(out)


def test_zoom_prefix_and_continuation(tmp_path):
    body = _cues("Ann Lee: hello", "Bo: hi there", "and more from Bo", "Ann Lee: bye")
    recs, _, _ = vtt(tmp_path, body)
    assert turns(recs) == [
        ("Ann Lee", "hello"),
        ("Bo", "hi there and more from Bo"),
        ("Ann Lee", "bye"),
    ]


def test_never_times_or_urls_as_speakers(tmp_path):
    body = _cues(
        "10:30 Meeting: starts now",
        "see https://example.com: the docs",
        "Note: nothing here",
        "Agenda: one item",
    )
    recs, _, _ = vtt(tmp_path, body)
    assert all(r["metadata"]["speaker"] is None for r in recs)
    recs, _, _ = vtt(tmp_path, _cues("Ann: at 10:30 Meeting: go", "Ann: http://x.org: yes"))
    assert turns(recs) == [("Ann", "at 10:30 Meeting: go http://x.org: yes")]


def test_inconsistent_prefixes_are_text(tmp_path):
    body = _cues("Warning: hot", "plain line", "another plain line", "and one more", "end")
    recs, _, _ = vtt(tmp_path, body)
    assert all(r["metadata"]["speaker"] is None for r in recs)
    assert recs[0]["textChunks"] == ["Warning: hot"]


def test_bracket_broadcast_and_dash_styles(tmp_path):
    recs, _, _ = vtt(
        tmp_path, _cues("[Alba] <i>En 1928,</i>", "[ríe]", "sin etiqueta", "[Alba] otra vez")
    )
    assert turns(recs) == [
        ("Alba", "En 1928,"),
        (None, "[ríe]"),
        (None, "sin etiqueta"),
        ("Alba", "otra vez"),
    ]
    recs, _, _ = vtt(
        tmp_path, _cues(">> ANCHOR: Good evening.", "Tonight's news.", ">> REPORTER: Thanks.")
    )
    assert turns(recs) == [("ANCHOR", "Good evening. Tonight's news."), ("REPORTER", "Thanks.")]
    recs, _, _ = vtt(tmp_path, _cues("- Ann: Tea?\n- Bob: Please.", "- Ann: Milk?"))
    assert turns(recs) == [("Ann", "Tea?"), ("Bob", "Please."), ("Ann", "Milk?")]


def test_zoom_sample_continuation_in_retro():
    recs, _, _ = run(SAMPLES / "retro.vtt")
    assert [r["metadata"]["speaker"] for r in recs] == [
        "Dana Lee", "Ed Park", "Dana Lee", "Fay Moss (Guest)", "Ed Park", "Dana Lee",
    ]  # fmt: skip
    assert recs[1]["extra"]["cues"] == [2, 3]
    assert "Meeting: room B" in recs[3]["textChunks"][0]


# ---------------------------------------------------------------- text


def test_tags_entities_ruby_and_karaoke(tmp_path):
    body = _cues(
        "a<c.x.y>b</c><i>c</i>&amp;&lt;d&gt; &nbsp;e",
        "<ruby>漢<rt>kan</rt></ruby>字",
        "That's <00:00:21.000><c.colorE5E5E5>amore</c>",
        "<b>&copy; 2024</b>  tabs\tand   spaces ",
    )
    recs, _, _ = vtt(tmp_path, body, merge=False)
    assert [r["textChunks"][0] for r in recs] == [
        "abc&<d> e",
        "漢字",
        "That's amore",
        "© 2024 tabs and spaces",
    ]


def test_youtube_rolling_captions_read_once(tmp_path):
    body = (
        "WEBVTT\nKind: captions\nLanguage: en\n\n"
        "00:00:00.000 --> 00:00:01.829 align:start position:0%\n \n"
        "my<00:00:00.160><c> career</c><00:00:00.480><c> in</c>\n\n"
        "00:00:01.829 --> 00:00:01.839 align:start position:0%\nmy career in\n \n\n"
        "00:00:01.839 --> 00:00:04.550 align:start position:0%\nmy career in\n"
        "side<00:00:02.240><c> projects</c>\n\n"
        "00:00:04.550 --> 00:00:04.560 align:start position:0%\nside projects\n \n"
    )
    recs, _, warnings = vtt(tmp_path, body)
    assert [r["textChunks"][0] for r in recs] == ["my career in", "side projects"]
    assert not warnings


def test_repeated_lines_kept_without_rolling_markers(tmp_path):
    recs, _, _ = vtt(tmp_path, _cues("Yes.", "Yes."))
    assert [r["textChunks"][0] for r in recs] == ["Yes.", "Yes."]


def test_srt_markup(tmp_path):
    body = (
        '1\n00:00:01,000 --> 00:00:02,000\n{\\an8}<font color="red">Red</font> <b>bold</b> a < b\n'
    )
    recs, _, _ = vtt(tmp_path, body, name="x.srt")
    assert recs[0]["textChunks"] == ["Red bold a < b"]
    assert recs[0]["format"] == "srt"


# ---------------------------------------------------------------- merging and time


def test_no_merge_keeps_cues(tmp_path):
    body = _cues("<v A>one", "<v A>two", "<v B>three")
    recs, _, _ = vtt(tmp_path, body, merge=False)
    assert turns(recs) == [("A", "one"), ("A", "two"), ("B", "three")]
    assert [r["extra"]["cues"] for r in recs] == [[1], [2], [3]]


def test_speakerless_cues_are_not_merged(tmp_path):
    recs, _, _ = vtt(tmp_path, _cues("one", "two"))
    assert len(recs) == 2


def test_merge_is_capped(tmp_path, monkeypatch):
    from convo.importers.transcripts import merging as transcript

    monkeypatch.setattr(transcript, "MAX_MERGED_CHARS", 10)
    recs, _, _ = vtt(tmp_path, _cues("<v A>aaaa", "<v A>bbbb", "<v A>cccc"))
    assert [r["textChunks"][0] for r in recs] == ["aaaa bbbb", "cccc"]


def test_start_date_plus_offset(tmp_path):
    body = "WEBVTT\n\n01:02:03.900 --> 01:02:05.000\n<v A>late\n"
    start = datetime(2024, 3, 6, 9, 0, tzinfo=UTC)
    recs, _, _ = vtt(tmp_path, body, start_date=start)
    assert recs[0]["timestamp"] == "2024-03-06T10:02:03Z"
    assert recs[0]["extra"]["start"] == 3723.9
    recs, _, _ = vtt(tmp_path, body)
    assert recs[0]["timestamp"] == "1970-01-01T01:02:03Z"


def test_ids_hash_the_offset_whatever_the_start_date(tmp_path):
    body = _cues("<v A>one", "<v B>two") + "\n\n99999:00:00.000 --> 99999:00:01.000\n<v A>late\n"
    plain, _, _ = vtt(tmp_path, body)
    dated, _, _ = vtt(tmp_path, body, start_date=datetime(2024, 3, 6, 9, 0, tzinfo=UTC))
    late, _, warnings = vtt(tmp_path, body, start_date=datetime(9999, 12, 31, tzinfo=UTC))
    assert [r["timestamp"] for r in plain] == [
        "1970-01-01T00:00:00Z", "1970-01-01T00:00:01Z", "1981-05-29T15:00:00Z"
    ]  # fmt: skip
    assert [r["id"] for r in plain] == [r["id"] for r in dated] == [r["id"] for r in late]
    assert late[2]["timestamp"] == "1970-01-01T00:00:00Z" and any("9999" in w for w in warnings)


def test_cli_start_date_in_zone_gives_utc(tmp_path, runner):
    from convo.cli.app import app

    p = tmp_path / "meeting.vtt"
    p.write_text("WEBVTT\n\n00:02:30.500 --> 00:02:33.000\n<v Bob>JWT it is.</v>\n")
    result = runner.invoke(
        app,
        ["ingest", str(p), "--start-date", "2024-03-06 10:00", "--tz", "Europe/Berlin", "-o", "-"],
    )
    assert result.exit_code == 0, result.output
    (rec,) = records(result.stdout)
    assert rec["timestamp"] == "2024-03-06T09:02:30Z"  # 10:00 CET is 09:00 UTC
    assert rec["metadata"] == {"speaker": "Bob", "listeners": []}
    summer = runner.invoke(
        app,
        ["ingest", str(p), "--start-date", "2024-07-01 10:00", "--tz", "Europe/Berlin", "-o", "-"],
    )
    assert records(summer.stdout)[0]["timestamp"] == "2024-07-01T08:02:30Z"  # CEST


def test_cli_no_merge_and_speakers_flags(tmp_path, runner):
    from convo.cli.app import app

    p = tmp_path / "m.vtt"
    p.write_text(_cues("Ann: one", "Ann: two"))
    out = runner.invoke(app, ["ingest", str(p), "--no-merge", "-o", "-"])
    assert [r["textChunks"][0] for r in records(out.stdout)] == ["one", "two"]
    out = runner.invoke(app, ["ingest", str(p), "--speakers", "none", "-o", "-"])
    assert [r["metadata"]["speaker"] for r in records(out.stdout)] == [None, None]


# ---------------------------------------------------------------- encodings and layout


def test_bom_crlf_missing_hours_and_teams_times(tmp_path):
    body = "\ufeffWEBVTT\r\n\r\n0:0:0.0 --> 0:0:0.570\r\n<v Yuri>There you go.</v>\r\n\r\n"
    body += "01:02.5 --> 01:03.000\r\n<v Ann>Hi</v>\r\n"
    recs, rejects, _ = vtt(tmp_path, body)
    assert not rejects
    assert turns(recs) == [("Yuri", "There you go."), ("Ann", "Hi")]
    assert recs[1]["extra"]["start"] == 62.5


def test_utf16_and_cp1252(tmp_path):
    text = "1\r\n00:00:01,000 --> 00:00:02,000\r\nÉVÉNEMENTS à la télé\r\n"
    for enc, name in (("utf-16", "a.srt"), ("cp1252", "b.srt")):
        recs, _, _ = vtt(tmp_path, text.encode(enc), name=name)
        assert recs[0]["textChunks"] == ["ÉVÉNEMENTS à la télé"], enc


def test_old_mac_line_ends(tmp_path):
    recs, _, _ = vtt(tmp_path, b"WEBVTT\r\r00:01.000 --> 00:02.000\rhello\r")
    assert recs[0]["textChunks"] == ["hello"]


@pytest.mark.parametrize("body", ["", "WEBVTT\n", "WEBVTT\n\n", "\ufeffWEBVTT\n\nNOTE only\n"])
def test_empty_and_header_only_warn(tmp_path, body):
    recs, rejects, warnings = vtt(tmp_path, body)
    assert recs == [] and rejects == []
    assert any("nothing imported" in w for w in warnings)


def test_cue_without_text_warns(tmp_path):
    recs, _, warnings = vtt(tmp_path, _cues("one", "", "three").replace("\n\n\n", "\n\n"))
    assert [r["textChunks"][0] for r in recs] == ["one", "three"]
    recs, _, warnings = vtt(tmp_path, "WEBVTT\n\n00:01.000 --> 00:02.000\n<i> </i>\n")
    assert recs == [] and any("has no text" in w for w in warnings)


def test_missing_header_reads_with_warning(tmp_path):
    recs, _, warnings = vtt(tmp_path, "00:01.000 --> 00:02.000\nhello\n")
    assert recs[0]["textChunks"] == ["hello"]
    assert any("no WEBVTT header" in w for w in warnings)


# ---------------------------------------------------------------- malformed input


def test_malformed_cue_rejected_with_line_rest_imports(tmp_path):
    body = (
        "WEBVTT\n\n00:00:00.500 --> 00:00:07.000\none\n\n"
        "00:00:07.000 --> 00:00:1d.890\ntwo\n\n"
        "three without timing\n\n"
        "00:00:11.890 --> 00:00:16.320\nfour\n"
    )
    recs, rejects, _ = vtt(tmp_path, body)
    assert [r["textChunks"][0] for r in recs] == ["one", "four"]
    assert [r.where.rsplit(":", 1)[1] for r in rejects] == ["6", "9"]
    assert "unreadable cue timing" in rejects[0].reason
    assert rejects[0].raw.endswith("two")
    assert recs[1]["source_id"].endswith("#cue-4")  # malformed cues keep their numbers


def test_strict_aborts(tmp_path):
    p = tmp_path / "bad.vtt"
    p.write_text("WEBVTT\n\n00:00:00.500 --> xx\none\n")
    with pytest.raises(StrictAbort) as e:
        run(p, strict=True)
    assert e.value.where.endswith("bad.vtt:3")


def test_cli_rejects_exit_1_and_strict_writes_nothing(tmp_path, runner):
    from convo.cli.app import app

    p = tmp_path / "bad.vtt"
    p.write_text("WEBVTT\n\n00:01.000 --> 00:02.000\nok\n\n00:02.000 --> zz\nbad\n")
    out = runner.invoke(app, ["ingest", str(p), "-o", "-"])
    assert out.exit_code == 1
    assert len(records(out.stdout)) == 1
    assert "bad.vtt:6" in out.stderr
    out = runner.invoke(app, ["ingest", str(p), "--strict", "-o", str(tmp_path / "o.jsonl")])
    assert out.exit_code == 1
    assert "Traceback" not in out.output


def test_srt_glued_cues_and_no_milliseconds(tmp_path):
    body = "1\n00:00:01 --> 00:00:02\nfirst\n2\n00:00:03,000 --> 00:00:04.500\nsecond\n"
    recs, rejects, _ = vtt(tmp_path, body, name="g.srt")
    assert not rejects
    assert [r["textChunks"][0] for r in recs] == ["first", "second"]
    assert recs[1]["extra"] == {"start": 3.0, "end": 4.5, "cues": [2], "cue_ids": ["2"]}


# ---------------------------------------------------------------- detection


def _sniffed(tmp_path, body: str, name: str = "input") -> str:
    p = tmp_path / name
    p.write_text(body)
    return registry.detect(Source(p)).name


def test_detection_by_content(tmp_path):
    assert _sniffed(tmp_path, "WEBVTT\n\n00:01.000 --> 00:02.000\nx\n") == "vtt"
    assert _sniffed(tmp_path, "1\n00:00:01,000 --> 00:00:02,000\nx\n") == "srt"
    assert _sniffed(tmp_path, "\n0:00:01.000,0:00:02.000\nx\n") == "sbv"
    assert _sniffed(tmp_path, "00:01.000 --> 00:02.000\nx\n") == "vtt"
    # An .srt name does not turn a WebVTT file into SRT.
    assert _sniffed(tmp_path, "WEBVTT\n\n00:01.000 --> 00:02.000\nx\n", "a.srt") == "vtt"


def test_does_not_claim_other_text(tmp_path):
    from convo.importers.transcripts.sbv import sniff_sbv
    from convo.importers.transcripts.srt import sniff_srt
    from convo.importers.transcripts.vtt import sniff_vtt

    for body in (
        '{"textChunks": ["a --> b"]}\n',
        "From alice@example.com Mon Jan  1 00:00:00 2024\nSubject: x --> y\n",
        "12/01/2024, 10:30 - Alice: hi --> there\n",
        "WEBVTTX is not a header\n",
        "",
    ):
        p = tmp_path / "x.txt"
        p.write_text(body)
        src = Source(p)
        assert (sniff_vtt(src), sniff_srt(src), sniff_sbv(src)) == (0, 0, 0), body


def test_stdin_by_content(runner):
    from convo.cli.app import app

    out = runner.invoke(
        app,
        ["ingest", "-", "-o", "-"],
        input="1\n00:00:01,000 --> 00:00:02,000\nAnn: hi\n\n2\n00:00:02,000 --> 00:00:03,000\nAnn: yo\n",
    )
    assert out.exit_code == 0, out.output
    (rec,) = records(out.stdout)
    assert rec["format"] == "srt" and rec["source_id"] == "stdin#cue-1"
    assert rec["metadata"]["speaker"] == "Ann"


# ---------------------------------------------------------------- agreement and hostile input


@pytest.mark.parametrize("name", ["standup.vtt", "retro.vtt"])
def test_cue_times_agree_with_webvtt_py(name):
    import webvtt

    ours, _, _ = run(SAMPLES / name, merge=False, speakers="none")
    ref = [c for c in webvtt.read(str(SAMPLES / name)) if c.text.strip()]
    ours_starts = sorted({r["extra"]["start"] for r in ours})
    assert ours_starts == sorted({c.start_in_seconds + int(c.start[-3:]) / 1000 for c in ref})


_pieces = st.sampled_from(
    [
        "WEBVTT\n", "\n", "00:00:01.000 --> 00:00:02.000\n", "0:0:1.5 --> 0:0:2\n", "-->\n",
        "<v Ann>", "</v>", "<v.x>", "Ann: hi\n", "[Bo] yo\n", ">> X: y\n", "&amp;", "&", "<",
        "<rt>", "</ruby>", "NOTE x\n", "1\n", "00:00:01,000 --> 00:00:02,000\n", "\r\n",
        "0:00:01.000,0:00:02.000\n", "<00:00:01.500>", "text ", "\ufeff", "\t \n",
    ]
)  # fmt: skip


@given(st.lists(_pieces, max_size=30), st.sampled_from(["t.vtt", "t.srt", "t.sbv"]))
def test_property_hostile_input_never_crashes(tmp_path_factory, parts, name):
    p = tmp_path_factory.mktemp("h") / name
    p.write_text("".join(parts), encoding="utf-8")
    fmt = name.rsplit(".", 1)[1]
    try:
        ing = Ingest(ImportOptions(), format_name=fmt, on_reject=lambda r: None)
        msgs = list(ing.messages([p]))
    except ConvoError:
        return
    for m in msgs:
        assert m.text_chunks and all(c.strip() for c in m.text_chunks)
        assert m.timestamp and m.timestamp.endswith("Z")
        assert m.source_id and "#cue-" in m.source_id


@pytest.mark.parametrize("chunk", [1, 2, 7, 64])
def test_small_read_chunks_give_the_same_lines(tmp_path, monkeypatch, chunk):
    from convo.importers.transcripts import cues as transcript_cues

    mixed = "WEBVTT\r\n\r\n00:01.000 --> 00:02.000\r\n<v Zoë>café\r\n\r\n".encode()
    mixed += b"00:02.000 --> 00:03.000\rold mac\r\r00:03.000 --> 00:04.000\ncp1252 \xe9t\xe9\n"
    p = tmp_path / "m.vtt"
    p.write_bytes(mixed)
    expected, _, _ = run(p)
    monkeypatch.setattr(transcript_cues, "CHUNK", chunk)
    assert run(p)[0] == expected
    assert [r["textChunks"][0] for r in expected] == ["café", "old mac", "cp1252 été"]
    for name in ("interview.srt", "standup.vtt"):
        monkeypatch.setattr(transcript_cues, "CHUNK", 1 << 20)
        whole, _, _ = run(SAMPLES / name)
        monkeypatch.setattr(transcript_cues, "CHUNK", chunk)
        assert run(SAMPLES / name)[0] == whole


def test_gzipped_input(tmp_path):
    import gzip

    p = tmp_path / "meeting.vtt.gz"
    p.write_bytes(gzip.compress((SAMPLES / "standup.vtt").read_bytes()))
    recs, _, _ = run(p)
    plain, _, _ = run(SAMPLES / "standup.vtt")
    assert turns(recs) == turns(plain)


def test_runaway_block_is_rejected(tmp_path, monkeypatch):
    from convo.importers.transcripts import cues as transcript_cues

    monkeypatch.setattr(transcript_cues, "MAX_BLOCK_LINES", 3)
    body = _cues("a\nb\nc\nd\ne", "fine")
    recs, rejects, _ = vtt(tmp_path, body)
    assert [r["textChunks"][0] for r in recs] == ["fine"]
    assert rejects[0].where.endswith(":3") and "longer than 3" in rejects[0].reason


@pytest.mark.parametrize(
    ("name", "body"),
    [
        (
            "t.srt",
            "1\n00:00:01,000 --> 00:00:02,000\na\nb\nc\nd\n\n2\n00:00:03,000 --> 00:00:04,000\nfine\n",
        ),
        ("t.sbv", "0:00:01.000,0:00:02.000\na\nb\nc\nd\n\n0:00:03.000,0:00:04.000\nfine\n"),
    ],
)
def test_runaway_srt_and_sbv_blocks_are_rejected(tmp_path, monkeypatch, name, body):
    from convo.importers.transcripts import cues as transcript_cues

    monkeypatch.setattr(transcript_cues, "MAX_BLOCK_LINES", 3)
    recs, rejects, _ = vtt(tmp_path, body, name=name)
    assert [r["textChunks"][0] for r in recs] == ["fine"]
    assert [(r.where.rsplit(":", 1)[1], "longer than 3" in r.reason) for r in rejects] == [
        ("1", True)
    ]


def test_srt_cues_without_blank_lines_between_them(tmp_path):
    body = "1\n00:00:01,000 --> 00:00:02,000\none\n2\n00:00:03,000 --> 00:00:04,000\ntwo\n"
    recs, rejects, _ = vtt(tmp_path, body, name="t.srt", merge=False)
    assert not rejects
    assert [(r["textChunks"][0], r["extra"].get("cue_ids")) for r in recs] == [
        ("one", ["1"]),
        ("two", ["2"]),
    ]


def test_timing_lines_read_by_the_lenient_pattern():
    """The common line, SRT's comma, settings after the end time, unpadded Teams fields."""
    from convo.importers.transcripts.cues import parse_timing

    assert parse_timing("00:01:02.345 --> 01:00:00,000 align:start") == (62345, 3600000)
    assert parse_timing("00:00:01,000 --> 00:00:02,500") == (1000, 2500)
    assert parse_timing("0:4:6.80 --> 0:4:7.5") == (246080, 247005)
    assert parse_timing("00:60:00.000 --> 01:00:00.000") is None


def test_sbv_br_token_is_a_line_break(tmp_path):
    """Issue 36 §4: YouTube's SBV writes a line break inside a caption as ``[br]``."""
    body = (
        "0:00:01.000,0:00:04.000\nAlice: Hello, Bob.[br]How are you?\n\n"
        "0:00:05.000,0:00:06.000\nBob: Fine [BR] thanks\n\n"
        "0:00:07.000,0:00:08.000\nSee [brackets] and [b]old[/b]\n"
    )
    recs, rejects, warnings = vtt(tmp_path, body, "t.sbv")
    assert not rejects and not warnings
    assert turns(recs) == [
        ("Alice", "Hello, Bob.\nHow are you?"),
        ("Bob", "Fine\nthanks See [brackets] and [b]old[/b]"),  # merged: one speaker
    ]
    assert not any("[br]" in r["textChunks"][0].lower() for r in recs)
