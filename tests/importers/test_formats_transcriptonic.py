"""TranscripTonic's caption transcripts (``convo.importers.transcripts.transcriptonic``):
vivek-nexus/transcriptonic ``extension/background.js``'s ``Name (date, time)`` blocks,
the call's chat after ``CHAT MESSAGES``, the closing line."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from formats_helpers import FIXTURES, run
from hypothesis import given
from hypothesis import strategies as st

from convo.core.io import Source
from convo.importers.context import ImportOptions
from convo.importers.registry import registry
from convo.importers.transcripts import transcriptonic

PATH = FIXTURES / "transcriptonic" / "garden-club.txt"


def test_blocks_chat_and_times():
    assert registry.detect(Source(PATH)).name == "transcriptonic"
    recs, rejects, warnings = run(transcriptonic.read_transcriptonic, PATH)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["timestamp"], r["tags"]) for r in recs]
    assert got == [
        ("Dana Whitfield", "2024-05-14T18:02:00Z", []), ("You", "2024-05-14T18:03:00Z", []),
        ("Marcus Oyelaran", "2024-05-14T18:03:00Z", []),
        ("Dana Whitfield", "2024-05-14T18:05:00Z", ["chat"]),
    ]  # fmt: skip
    assert recs[2]["textChunks"] == ["Loud and clear.\nLet us start with the seed order."]
    oslo, _, _ = run(
        transcriptonic.read_transcriptonic, PATH, ImportOptions(tz=ZoneInfo("Europe/Oslo"))
    )
    assert oslo[0]["timestamp"] == "2024-05-14T16:02:00Z"


def test_day_first_dates_and_an_undecided_order(tmp_path):
    gb = tmp_path / "gb.txt"
    gb.write_text("Ann (14/05/2024, 06:02 PM)\nhello\n\nBob (14/05/2024, 06:03 PM)\nhi\n")
    recs, _, warnings = run(transcriptonic.read_transcriptonic, gb)
    assert [r["timestamp"] for r in recs] == ["2024-05-14T18:02:00Z", "2024-05-14T18:03:00Z"]
    assert not warnings
    early = tmp_path / "early.txt"
    early.write_text("Ann (05/04/2024, 09:00 AM)\nhello\n\nBob (05/04/2024, 09:01 AM)\nhi\n")
    recs, _, warnings = run(transcriptonic.read_transcriptonic, early)
    assert recs[0]["timestamp"] == "2024-05-04T09:00:00Z" and "month first" in warnings[0]


def test_text_before_the_first_block_is_rejected(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("notes\nAnn (05/14/2024, 06:02 PM)\nhello\n\nBob (05/14/2024, 06:03 PM)\nhi\n")
    recs, rejects, _ = run(transcriptonic.read_transcriptonic, path)
    assert [r.raw for r in rejects] == ["notes"] and len(recs) == 2


@given(st.lists(st.text(alphabet="ab ()\n", max_size=20), min_size=1, max_size=5))
def test_any_blocks_read_back(tmp_path_factory, bodies):
    path = tmp_path_factory.mktemp("tt") / "t.txt"
    path.write_text(
        "".join(f"P{i} (05/14/2024, 06:0{i} PM)\n{b}\n\n" for i, b in enumerate(bodies))
    )
    recs, rejects, _ = run(transcriptonic.read_transcriptonic, path)
    assert not rejects
    assert all(r["metadata"]["speaker"].startswith("P") for r in recs)
