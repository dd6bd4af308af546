"""--latest, --sort and --count without an index: bounded heap and external sort."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from convo.index.order import count, latest, sort_by_time

TIMES = st.sampled_from(["2024-01-01T00:00:00Z", "2023-01-01T00:00:00Z", "2025-05-05T05:05:05Z"])


@given(st.lists(TIMES, max_size=40), st.integers(0, 10))
def test_latest_is_the_tail_of_a_stable_sort(times, n):
    items = list(enumerate(times))
    want = sorted(items, key=lambda p: (p[1], p[0]))[max(0, len(items) - n) :] if n else []
    assert latest(items, n, key=lambda p: p[1]) == want


@given(st.lists(TIMES, max_size=40), st.booleans(), st.integers(1, 7))
def test_external_sort_matches_sorted(times, reverse, run_size):
    items = [(t, f"line {i}".encode()) for i, t in enumerate(times)]
    want = [
        p for _, p in sorted(items, key=lambda x: (x[0], int(x[1].split()[1])), reverse=reverse)
    ]
    assert list(sort_by_time(items, reverse=reverse, run_size=run_size)) == want


def test_count():
    assert count(iter(range(7))) == 7
