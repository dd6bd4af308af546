"""ASS/SSA, TTML/DFXP and YouTube timedtext subtitles (``convo.importers.transcripts.ass``,
``ttml``, ``youtube``).

The fixtures reproduce the shapes of the formats' writers: Aegisub's ``.ass`` (its
``[Script Info]``, ``[Aegisub Project Garbage]``, ``[V4+ Styles]`` and ``[Events]``
sections, override blocks, karaoke, a drawing), an SSA v4 script (``Marked=0``), a TTML
document with ``ttm:agent`` speakers, a Netflix DFXP with tick times and ``[Name]``
labels, and YouTube's json3 (automatic captions with window definitions and appended
line breaks), srv3 and srv1 as yt-dlp saves them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from formats_helpers import FIXTURES, TEXT, WORD, files_taken, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.context import ImportOptions
from convo.importers.registry import registry
from convo.importers.transcripts import ass, ttml, youtube

CASES = [
    (ass.read_ass, "ass", "aegisub-episode.ass"),
    (ass.read_ass, "ass", "legacy.ssa"),
    (ttml.read_ttml, "ttml", "agents.ttml"),
    (ttml.read_ttml, "ttml", "netflix-ticks.dfxp"),
    (youtube.read_youtube, "youtube", "seed-talk.en.json3"),
    (youtube.read_youtube, "youtube", "seed-talk.en.srv3"),
    (youtube.read_youtube, "youtube", "seed-talk.en.srv1"),
]


@pytest.mark.parametrize(("read", "folder", "name"), CASES)
def test_golden_and_detection(read, folder, name):
    recs, _, _ = run(read, FIXTURES / folder / name)
    assert_golden(f"formats/{folder}/{name}.jsonl", recs)
    assert registry.detect(Source(FIXTURES / folder / name)).name == folder


def _said(recs):
    return [(r["metadata"]["speaker"], r["textChunks"][0], r["extra"]["start"]) for r in recs]


def test_ass_names_markup_drawings_and_counts():
    recs, rejects, warnings = run(ass.read_ass, FIXTURES / "ass" / "aegisub-episode.ass")
    assert _said(recs) == [
        ("Marta", "Welcome back to the garden club. Today: seed saving,\nstep by step.", 1.5),
        ("Jonas", "Thanks, Marta. Where do we start?", 7.3),
        (None, "SEED LIBRARY", 8.0),
        ("Marta", "With the tomatoes, always.", 10.0),
        ("Jonas", "Of course.", 13.48),
    ]
    assert recs[0]["extra"]["cues"] == [2, 3]  # the Comment is event 1
    assert [(r.where, r.reason) for r in rejects] == [
        ("aegisub-episode.ass:32", "unreadable Dialogue time")
    ]
    assert warnings == [
        "aegisub-episode.ass: 1 Comment (or other non-Dialogue) events skipped",
        "aegisub-episode.ass: 1 Dialogue event without text (drawings, empty signs) skipped",
    ]


def test_ssa_without_names_uses_the_prefix_style():
    recs, rejects, warnings = run(ass.read_ass, FIXTURES / "ass" / "legacy.ssa")
    assert not rejects and not warnings
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        ("Anna", "Is anyone here?"), ("Ben", "Only me, and the cat."),
        ("Anna", "Good, then we can start."),
    ]  # fmt: skip


def test_ssa_ntp_is_no_speaker():
    """``NTP`` in ``Name`` is the placeholder SSA writers (Subtitle Edit, converters)
    put on a line without an actor: no speaker, so its cues are not merged as one."""
    recs, rejects, warnings = run(ass.read_ass, FIXTURES / "ass" / "subtitle-edit-ntp.ssa")
    assert not rejects and not warnings
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [
        (None, "The ferry leaves at nine."), (None, "Bring a coat, the wind is cold."),
        ("Guide", "Tickets, please!"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "lines"),
    [
        ("{\\i1}a{\\i0} b", ["a b"]),
        ("one\\Ntwo", ["one", "two"]),
        ("soft\\nbreak\\hhere", ["soft break here"]),
        ("{\\p1}m 0 0 l 1 1{\\p0}after", ["after"]),
        ("{\\p2}m 0 0", []),
        ("{a comment}text {unclosed", ["text {unclosed"]),
    ],
)
def test_ass_text(raw, lines):
    assert ass.ass_text(raw) == lines


def test_ass_without_format_line_and_a_short_dialogue(tmp_path):
    path = tmp_path / "s.ass"
    path.write_text(
        "[Script Info]\n\n[Events]\nDialogue: 0,0:00:01.00,0:00:02.00,Default,Al,0,0,0,,Hi, all\n"
        "Dialogue: 0,0:00:03.00\n"
    )
    recs, rejects, _ = run(ass.read_ass, path)
    assert [(r["metadata"]["speaker"], r["textChunks"][0]) for r in recs] == [("Al", "Hi, all")]
    assert [(r.where, r.reason) for r in rejects] == [
        ("s.ass:5", "Dialogue line with 2 of its 10 fields")
    ]


def test_ttml_agents_times_and_bad_cues():
    recs, rejects, warnings = run(ttml.read_ttml, FIXTURES / "ttml" / "agents.ttml")
    assert _said(recs) == [
        ("Marta Kowalska", "Welcome back to the garden club. Today:\nseed saving.", 1.2),
        ("jonas", "Where do we start?", 6.5),
        ("Marta Kowalska, jonas", "Together!", 9.0),
    ]
    assert recs[1]["extra"]["end"] == 8.5  # begin + dur
    assert recs[0]["extra"]["cue_ids"] == ["c1", "c2"]
    assert [(r.where, r.reason) for r in rejects] == [
        ("agents.ttml:23", "unreadable begin time 'soon'")
    ]
    assert warnings == ["agents.ttml: 1 <p> cues without text skipped"]


def test_dfxp_ticks_and_bracket_names():
    recs, rejects, warnings = run(ttml.read_ttml, FIXTURES / "ttml" / "netflix-ticks.dfxp")
    assert not rejects and not warnings
    assert [(r["metadata"]["speaker"], r["extra"]["start"]) for r in recs] == [
        ("Anna", 1.001),
        (None, 3.503),
        (None, 5.101),
        ("Anna", 7.1),
    ]


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("00:00:01.5", 1500), ("01:02:03", 3723000), ("00:00:01:15", 1500), ("2.5s", 2500),
        ("1500ms", 1500), ("2m", 120000), ("1h", 3600000), ("30f", 1000),
        ("10000000t", 1000), ("00:61:00", None), ("soon", None), ("", None),
        ("19.764", 19764), ("1:00.998", 60998), ("3:58", 238000), ("1:61.5", None),
    ],
)  # fmt: skip
def test_ttml_time(text, ms):
    assert ttml.ttml_time(text, ttml.Rates(30.0, 10_000_000.0)) == ms


def test_ttml_time_containers_add_up(tmp_path):
    path = tmp_path / "c.ttml"
    path.write_text(
        '<tt xmlns="http://www.w3.org/ns/ttml"><body begin="10s"><div begin="5s">'
        '<p begin="1s" end="2s">late</p></div><div><p begin="1s" end="2s">early</p></div>'
        "</body></tt>"
    )
    recs, _, _ = run(ttml.read_ttml, path)
    assert [(r["textChunks"][0], r["extra"]["start"]) for r in recs] == [
        ("late", 16.0),
        ("early", 11.0),
    ]


def test_apple_music_ttml_times_are_on_the_document(tmp_path):
    """Apple Music's lyrics TTML (pysubs2's ``tests/data/ttml_example_apple.ttml``):
    bare seconds and ``M:SS.fff``, every ``<p>`` timed from the start (its ``<div>``
    repeats the first ``begin``): all its cues were rejected as unreadable."""
    path = tmp_path / "lyrics.ttml"
    path.write_text(
        '<tt xmlns="http://www.w3.org/ns/ttml" xmlns:itunes="http://music.apple.com/lyric-ttml-internal"'
        ' xmlns:ttm="http://www.w3.org/ns/ttml#metadata" itunes:timing="Word"><head><metadata>'
        '<ttm:agent type="person" xml:id="v1"><ttm:name type="full">The Band</ttm:name></ttm:agent>'
        '</metadata></head><body dur="1:30.000"><div begin="12.5" end="1:05.250">'
        '<p begin="12.5" end="14.1" ttm:agent="v1"><span begin="12.5" end="13.0">Morning</span>\n'
        '<span begin="13.0" end="14.1">light</span></p>'
        '<p begin="1:02.750" end="1:05.250" ttm:agent="v1">Evening</p></div></body></tt>'
    )
    recs, rejects, _ = run(ttml.read_ttml, path, ImportOptions(merge=False))
    assert not rejects
    assert [(r["metadata"]["speaker"], r["textChunks"][0], r["extra"]["start"]) for r in recs] == [
        ("The Band", "Morning light", 12.5),
        ("The Band", "Evening", 62.75),
    ]


@pytest.mark.parametrize("clock", ["9" * 400 + ":00", "9" * 400 + ":00:00.5"])
def test_a_clock_time_too_large_for_a_float_is_rejected(tmp_path, clock):
    """A clock time of a 400-digit hour or minute (the ``M:SS`` Apple's lyrics write,
    and the full clock) was an internal error (an int too large for a float): now an
    unreadable begin, rejected with its place, the other cues read."""
    path = tmp_path / "huge.ttml"
    path.write_text(
        '<tt xmlns="http://www.w3.org/ns/ttml"><body><div>'
        f'<p begin="{clock}" end="2s">Hello</p><p begin="1s" end="2s">ok</p></div></body></tt>'
    )
    recs, rejects, _ = run(ttml.read_ttml, path)
    assert [r["textChunks"] for r in recs] == [["ok"]]
    assert len(rejects) == 1 and "unreadable begin" in rejects[0].reason


def test_ttml_entities_are_refused(tmp_path):
    path = tmp_path / "bomb.ttml"
    path.write_text(
        '<?xml version="1.0"?><!DOCTYPE tt [<!ENTITY a "aaaaaaaaaa">]>'
        '<tt xmlns="http://www.w3.org/ns/ttml"><body><p begin="0s">&a;</p></body></tt>'
    )
    with pytest.raises(InputError, match="unsafe XML refused"):
        run(ttml.read_ttml, path)


def test_youtube_json3_skips_windows_and_line_breaks():
    recs, rejects, warnings = run(youtube.read_youtube, FIXTURES / "youtube" / "seed-talk.en.json3")
    assert [(r["textChunks"][0], r["extra"]["cues"]) for r in recs] == [
        ("welcome back to the garden club", [2]),
        ("today we talk about seed saving", [4]),
        ("[Music]", [5]),
    ]
    assert [r.reason for r in rejects] == ["event without a readable tStartMs"]
    assert not warnings


def test_youtube_srv1_unescapes_twice():
    recs, _, _ = run(youtube.read_youtube, FIXTURES / "youtube" / "seed-talk.en.srv1")
    assert recs[-1]["textChunks"][0] == "Let's begin & dig."


def test_youtube_json_without_events_is_refused(tmp_path):
    path = tmp_path / "x.json3"
    path.write_text('{"wireMagic": "pb3"}')
    with pytest.raises(InputError, match="no events array"):
        run(youtube.read_youtube, path)


MINE = {"ass", "ttml", "youtube"}


def test_no_other_file_is_read_as_these_subtitles():
    """No file of the corpus, sample_data or another format's fixtures is taken by them."""
    assert files_taken(MINE, MINE) == {}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), WORD), st.integers(0, 10**7), TEXT),
                min_size=1, max_size=8))  # fmt: skip
def test_any_ass_script_reads_back(tmp_path_factory, events):
    path = tmp_path_factory.mktemp("ass") / "s.ass"
    out = ["[Script Info]", "ScriptType: v4.00+", "", "[Events]",
           "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text"]  # fmt: skip

    def clock(cs: int) -> str:
        s, c = divmod(cs, 100)
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}.{c:02d}"

    for name, cs, text in events:
        out.append(f"Dialogue: 0,{clock(cs)},{clock(cs + 100)},Default,{name or ''},0,0,0,,{text}")
    path.write_text("\n".join(out) + "\n")
    recs, rejects, _ = run(ass.read_ass, path, options=_NO_MERGE)
    assert not rejects
    assert [(r["metadata"]["speaker"], r["extra"]["start"], r["textChunks"][0]) for r in recs] == [
        (name, cs / 100, text) for name, cs, text in events
    ]


def _no_merge():
    from convo.importers.context import ImportOptions

    return ImportOptions(merge=False, speakers="voice")


_NO_MERGE = _no_merge()


@settings(max_examples=60, deadline=None)
@given(
    st.binary(max_size=400),
    st.sampled_from(
        [
            "[Script Info]\n[Events]\n",
            '<tt xmlns="http://www.w3.org/ns/ttml">',
            '{"wireMagic":"pb3","events":[',
        ]
    ),
)
def test_hostile_input_never_crashes(tmp_path_factory, noise, head):
    base = tmp_path_factory.mktemp("hostile")
    for read, name in (
        (ass.read_ass, "h.ass"),
        (ttml.read_ttml, "h.ttml"),
        (youtube.read_youtube, "h.json3"),
    ):
        path = base / name
        path.write_bytes(head.encode() + noise)
        try:
            recs, _, _ = run(read, path)
        except InputError:
            continue
        for r in recs:
            assert r["textChunks"] and isinstance(r["textChunks"][0], str)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 10**8), st.integers(0, 10**5), TEXT), min_size=1, max_size=8)
)
def test_any_json3_reads_back(tmp_path_factory, events):
    path = tmp_path_factory.mktemp("yt") / "v.json3"
    doc = {"wireMagic": "pb3", "events": [
        {"tStartMs": t, "dDurationMs": d, "segs": [{"utf8": w} for w in text.split(" ")]}
        for t, d, text in events
    ]}  # fmt: skip
    Path(path).write_text(json.dumps(doc))
    recs, rejects, warnings = run(youtube.read_youtube, path, options=_NO_MERGE)
    assert not rejects and not warnings
    assert [(r["extra"]["start"], r["textChunks"][0]) for r in recs] == [
        (t / 1000, text.replace(" ", "")) for t, _, text in events
    ]
