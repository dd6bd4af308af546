"""Zoom chat layouts (``convo.importers.apps.zoom``, issue 36 §3).

The fixtures reproduce the layouts Zoom has saved, as parsers of real
``meeting_saved_chat.txt`` files read them: Zoom 4 / early 5's one-line layout
(``HH:MM:SS<TAB> From  Name : text``, ``From  A  to  B(Privately) : text``) and later
Zoom 5's two-line layout (``HH:MM:SS From A to Everyone:`` then the tab-indented text,
``to B (Direct Message):``); the current tab layout is ``sample_data/chat/zoom-chat.txt``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from formats_helpers import run
from hypothesis import given
from hypothesis import strategies as st

from conftest import ROOT
from convo.core.io import Source
from convo.importers.apps import zoom
from convo.importers.registry import registry

DIR = Path(__file__).resolve().parents[1] / "fixtures" / "formats" / "zoom"


def people(recs):
    return [
        (
            r["metadata"]["speaker"],
            r["metadata"]["listeners"],
            r["textChunks"][0],
            (r.get("extra") or {}).get("private"),
        )
        for r in recs
    ]


def test_one_line_layout():
    recs, rejects, warnings = run(zoom.read_zoom, DIR / "zoom4-one-line.txt")
    assert not rejects and not warnings
    assert people(recs) == [
        ("Alice Smith", [], "Hello everyone", None),
        ("Bob Jones", ["Alice Smith"], "are you there?", True),
        ("Alice Smith", [], "see the agenda: https://example.com", None),
    ]


def test_two_line_layout():
    recs, rejects, warnings = run(zoom.read_zoom, DIR / "zoom5-two-line.txt")
    assert not rejects and not warnings
    assert people(recs) == [
        ("Alice Smith", [], "Hello all", None),
        ("Bob Jones", ["Alice Smith"], "quick question\nsecond line", True),
        ("Carol Diaz", [], "Thanks!", None),
    ]
    assert recs[1]["timestamp"] == "1970-01-01T10:02:11Z"


@pytest.mark.parametrize("name", ["zoom4-one-line.txt", "zoom5-two-line.txt"])
def test_every_layout_is_detected(name):
    assert registry.detect(Source(DIR / name)).name == "zoomchat"


def test_tab_layout_keeps_a_name_that_starts_with_from(tmp_path):
    path = tmp_path / "meeting_saved_chat.txt"
    path.write_text("00:01:05\tFrom Mars:\thello\n00:01:09\tAlice:\thi\n")
    recs, _, _ = run(zoom.read_zoom, path)
    assert [r["metadata"]["speaker"] for r in recs] == ["From Mars", "Alice"]
    assert registry.detect(Source(ROOT / "sample_data/chat/zoom-chat.txt")).name == "zoomchat"


def test_a_space_after_the_time_without_from_is_not_zoom(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("00:00:05 Alice: hello\n00:00:09 Bob: hi\n")
    assert zoom.sniff_zoom(Source(path)) == 0


_NAME = st.text(st.characters(whitelist_categories=("L",)), min_size=1, max_size=12)


@given(_NAME, _NAME, st.booleans(), st.sampled_from(["one", "two"]))
def test_from_layouts_never_keep_from_in_the_speaker(a, b, private, layout):
    to = f"{b}(Privately)" if private else "Everyone"
    if layout == "one":
        line = f"09:31:14\t From  {a}  to  {to} : hi"
    else:
        line = f"09:31:14 From {a} to {to}:"
    got = zoom.chat_line(line)
    assert got is not None
    assert got.name == a and not got.name.startswith("From ")
    assert got.to == (b if private else "") and got.private is private


def test_reactions_and_replies_answer_the_message_they_quote():
    """Zoom 5.13+ writes a reaction as ``Reacted to "<first 20 characters>..." with 👍``
    and a reply as ``Replying to "..."`` then its text (as real meeting chats quoted in
    public notes show): the reaction was a message to no one, the reply kept the quote
    line as its text. Now both reply to the newest message the quote starts and speak
    to its sender; a quote of nothing in the file answers nothing."""
    recs, rejects, warnings = run(zoom.read_zoom, DIR / "zoom5-reactions.txt")
    assert not rejects and not warnings
    rule, value, reaction, gc, reaction2, reply, lost = recs
    assert reaction["tags"] == ["reaction"] and reaction["replyTo"] == value["id"]
    assert reaction["metadata"]["listeners"] == ["Owen Hart"]
    assert reaction["extra"]["reaction"] == {"emoji": "👍", "to": '"This value defines ...'}
    assert reaction2["replyTo"] == gc["id"] and reaction2["metadata"]["listeners"] == ["Riya Das"]
    assert reply["textChunks"] == ["then keep MAY for now"]
    assert reply["replyTo"] == rule["id"] and reply["metadata"]["listeners"] == ["Riya Das"]
    assert reply["extra"]["replying_to"] == "If we return the err..."
    assert "replyTo" not in lost and lost["metadata"]["listeners"] == []


def test_start_date_is_the_day_of_tz_not_of_utc(runner, tmp_path):
    """``--start-date 2024-05-14 --tz Europe/Oslo``: the chat's clock is Oslo's on the
    14th (it was read on the UTC day of Oslo's midnight, the 13th, and as UTC)."""
    from conftest import records
    from convo.cli.app import app

    path = tmp_path / "meeting_saved_chat.txt"
    path.write_text("14:03:25\tAlice Smith:\thi\n", encoding="utf-8")
    args = ["ingest", str(path), "-o", "-", "--start-date", "2024-05-14"]
    oslo = records(runner.invoke(app, [*args, "--tz", "Europe/Oslo"]).stdout)
    utc = records(runner.invoke(app, args).stdout)
    assert [r["timestamp"] for r in oslo] == ["2024-05-14T12:03:25Z"]
    assert [r["timestamp"] for r in utc] == ["2024-05-14T14:03:25Z"]


CC = DIR.parent / "zoom_cc" / "meeting_saved_closed_caption.txt"


def test_saved_captions_speakers_clock_and_midnight(runner):
    """Zoom's ``meeting_saved_closed_caption.txt`` (``[Name] HH:MM:SS``, then the words):
    the clock on ``--start-date``'s day in ``--tz``; past midnight the next day; a
    header without words is warned."""
    from conftest import records
    from convo.cli.app import app

    args = ["ingest", str(CC), "-o", "-", "--start-date", "2024-12-31", "--tz", "Europe/Oslo"]
    result = runner.invoke(app, args)
    recs = records(result.stdout)
    assert result.exit_code == 0, result.output
    assert {r["format"] for r in recs} == {"zoom-cc"}
    assert [(r["metadata"]["speaker"], r["textChunks"][0], r["timestamp"]) for r in recs] == [
        ("Dana Whitfield", "Welcome, everyone, to the late seed swap.", "2024-12-31T22:58:40Z"),
        ("Marcus Oyelaran", "Thanks, Dana.\nI brought the bean seeds.", "2024-12-31T22:59:12Z"),
        ("Dana Whitfield", "Happy new day, then.", "2024-12-31T23:00:05Z"),
    ]
    assert "speaker line without text" in result.stderr
    assert len({r["id"] for r in recs}) == 3
    assert registry.detect(Source(CC)).name == "zoom-cc"
