"""stats: tallies, undated messages, timeline units, stable JSON keys."""

from __future__ import annotations

import pytest

from convo.analysis.stats import compute


def rec(ts, speaker="A", tags=(), fmt="slack", text="one two three"):
    return {
        "textChunks": [text],
        "metadata": {"speaker": speaker, "listeners": []},
        "tags": list(tags),
        "timestamp": ts,
        "format": fmt,
    }


def test_tallies_per_speaker_tag_format():
    s = compute(
        [
            rec("2024-01-02T00:00:00Z", "A", ["x"]),
            rec("2024-01-01T00:00:00Z", "B", ["x", "y"], "mbox", "four"),
            rec("2024-01-05T00:00:00Z", "A", [], "mbox"),
            rec("1970-01-01T00:00:10Z", "C", [], "vtt"),
        ]
    ).to_json()
    assert list(s) == [
        "messages", "words", "first", "last", "undated", "speakers", "tags", "formats", "timeline",
    ]  # fmt: skip
    assert (s["messages"], s["words"], s["undated"]) == (4, 10, 1)
    assert (s["first"], s["last"]) == ("2024-01-01T00:00:00Z", "2024-01-05T00:00:00Z")
    assert s["speakers"][0] == {
        "name": "A",
        "messages": 2,
        "words": 6,
        "first": "2024-01-02T00:00:00Z",
        "last": "2024-01-05T00:00:00Z",
    }
    assert s["speakers"][2]["first"] is None  # only undated messages
    assert [t["name"] for t in s["tags"]] == ["x", "y"]
    assert [f["name"] for f in s["formats"]] == ["mbox", "slack", "vtt"]


@pytest.mark.parametrize(
    ("days", "unit", "first_key"),
    [(10, "day", "2024-01-01"), (200, "week", "2024-01-01"), (1000, "month", "2024-01"),
     (50 * 365, "month", "2024-01"), (60 * 365, "year", "2024")],
)  # fmt: skip
def test_timeline_unit_follows_span(days, unit, first_key):
    from datetime import date, timedelta

    end = date(2024, 1, 1) + timedelta(days=days)
    s = compute([rec("2024-01-01T12:00:00Z"), rec(f"{end.isoformat()}T00:00:00Z")])
    got_unit, buckets = s.timeline()
    assert got_unit == unit
    assert buckets[0] == (first_key, 1)
    assert buckets[-1][1] == 1
    assert sum(n for _, n in buckets) == 2
    assert all(n == 0 for _, n in buckets[1:-1])  # empty buckets kept for the axis


def test_weeks_start_on_monday():
    s = compute([rec("2024-01-03T00:00:00Z"), rec("2024-05-01T00:00:00Z")])
    unit, buckets = s.timeline()
    assert unit == "week" and buckets[0][0] == "2024-01-01"


def test_empty():
    s = compute([]).to_json()
    assert s["messages"] == 0 and s["timeline"] == {"unit": "day", "buckets": []}


def test_merge_equals_one_pass():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from convo.analysis.stats import Stats

    stamps = st.sampled_from(
        ["2024-01-02T00:00:00Z", "2023-05-01T10:00:00Z", "1970-01-01T00:00:10Z", "bad"]
    )
    records = st.lists(
        st.builds(
            rec,
            stamps,
            st.sampled_from(["A", "B", ""]),
            st.lists(st.sampled_from(["x", "y"]), max_size=2),
            st.sampled_from(["slack", "mbox"]),
            st.text(max_size=20),
        ),
        max_size=12,
    )

    @settings(max_examples=60, deadline=None)
    @given(records, records)
    def check(left, right):
        merged = compute(left)
        merged.merge(compute(right))
        assert merged.to_json() == compute(left + right).to_json()
        empty = Stats()
        empty.merge(compute(left))
        assert empty.to_json() == compute(left).to_json()

    check()
