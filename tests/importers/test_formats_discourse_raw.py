"""A Discourse topic's raw Markdown (``/raw/TOPIC_ID``, posts_controller's
``markdown_num``: ``user | updated_at | #N``, the raw, a rule of 25 dashes), as forum
archives in public repositories keep topics (``convo.importers.forums.discourse_raw``)."""

from __future__ import annotations

from formats_helpers import FIXTURES, run
from hypothesis import given
from hypothesis import strategies as st

from convo.core.io import Source
from convo.importers.forums import discourse_raw
from convo.importers.registry import registry

PATH = FIXTURES / "discourse_raw" / "839.md"


def test_posts_speakers_replies_and_quotes():
    assert registry.detect(Source(PATH)).name == "discourse-raw"
    recs, rejects, warnings = run(discourse_raw.read_discourse_raw, PATH)
    assert not rejects
    assert warnings == ["839.md: 1 post by deleted or unknown authors (speaker null)"]
    first = recs[0]["id"]
    got = [(r["metadata"]["speaker"], r["metadata"]["listeners"], r.get("replyTo")) for r in recs]
    assert got == [
        ("reardencode", [], None), ("ajtowns", ["reardencode"], first),
        ("reardencode", ["ajtowns"], first), (None, [], first),
    ]  # fmt: skip
    assert {r["thread"] for r in recs} == {first} and recs[0]["format"] == "discourse"
    assert recs[1]["textChunks"][0].startswith("reardencode:\n\n> LNHANCE:")
    # a rule inside a post (Markdown's horizontal rule) stays its text
    assert recs[0]["textChunks"][0].endswith("CSFS})`\n\n-------------------------")
    assert [r["timestamp"] for r in recs][:2] == ["2024-04-26T18:02:11Z", "2024-04-27T06:54:29Z"]
    assert recs[1]["extra"] == {"post_number": 2, "time_source": "updated_at"}


def test_text_before_the_first_header_is_rejected(tmp_path):
    path = tmp_path / "t.md"
    path.write_text("# Title\n\nann | 2024-01-01 00:00:00 UTC | #1\n\nhi\n")
    recs, rejects, _ = run(discourse_raw.read_discourse_raw, path)
    assert [r.raw for r in rejects] == ["# Title"] and len(recs) == 1


@given(st.lists(st.text(alphabet="ab @-\n", max_size=30), min_size=1, max_size=5))
def test_any_posts_read_back(tmp_path_factory, bodies):
    path = tmp_path_factory.mktemp("raw") / "t.md"
    path.write_text("".join(
        f"u{i} | 2024-01-01 00:00:0{i} UTC | #{i + 1}\n\n{b}\n\n{discourse_raw.RULE}\n\n"
        for i, b in enumerate(bodies)
    ))  # fmt: skip
    recs, rejects, _ = run(discourse_raw.read_discourse_raw, path)
    assert not rejects
    assert [r["extra"]["post_number"] for r in recs] == [i + 1 for i in range(len(recs))]
    assert len(recs) <= len(bodies)  # a post of no text is no message
