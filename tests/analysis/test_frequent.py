"""The Misra-Gries summary: exact below capacity, within n/(k+1) above it, mergeable."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.analysis.frequent import Frequent

keys = st.lists(st.integers(0, 40), max_size=300)


def summary(items: list[int], capacity: int) -> Frequent[int]:
    f: Frequent[int] = Frequent(capacity)
    for x in items:
        f.add(x)
    return f


def test_exact_below_capacity():
    f = summary([1, 2, 2, 3, 3, 3], 5)
    assert f.exact and dict(f.items()) == {1: 1, 2: 2, 3: 3}


def test_capacity_must_be_positive():
    with pytest.raises(ValueError):
        Frequent(0)


@settings(max_examples=150, deadline=None)
@given(keys, st.integers(1, 8))
def test_counts_are_low_by_at_most_the_bound(items, capacity):
    f = summary(items, capacity)
    true = Counter(items)
    assert len(f) <= 2 * capacity
    assert f.error <= len(items) / (capacity + 1)
    for k, n in true.items():
        assert n - f.error <= f.get(k) <= n
        if n > len(items) / (capacity + 1):
            assert k in f  # heavy keys are never lost


@settings(max_examples=150, deadline=None)
@given(keys, keys, st.integers(1, 8))
def test_merge_keeps_the_bound_and_equals_one_pass_when_exact(left, right, capacity):
    a, b = summary(left, capacity), summary(right, capacity)
    a.merge(b)
    one = summary(left + right, capacity)
    true = Counter(left + right)
    assert a.total == len(left + right)
    assert a.error <= a.total / (capacity + 1)
    for k, n in true.items():
        assert n - a.error <= a.get(k) <= n
    if a.exact:
        assert dict(a.items()) == dict(one.items()) == dict(true)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.integers(0, 40), max_size=30), max_size=40), st.integers(1, 8))
def test_update_is_add_of_each_key(batches, capacity):
    """The same counts, total and error, reductions included, as one ``add`` per key."""
    batched: Frequent[int] = Frequent(capacity)
    one: Frequent[int] = Frequent(capacity)
    for keys in batches:
        batched.update(keys)
        for k in keys:
            one.add(k)
        assert (batched.counts, batched.total, batched.error) == (one.counts, one.total, one.error)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 30), min_size=1, max_size=200), st.data())
def test_kth_largest_is_heapqs(values, data):
    import heapq

    from convo.analysis.frequent import _kth_largest

    k = data.draw(st.integers(1, len(values)))
    assert _kth_largest(values, k) == heapq.nlargest(k, values)[-1]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 60), max_size=400), st.integers(1, 8))
def test_reductions_are_misra_gries(items, capacity):
    """Each reduction subtracts the (capacity + 1)-th largest count and keeps the rest
    in order: the textbook step, done in C loops."""
    import heapq

    f: Frequent[int] = Frequent(capacity)
    for x in items:
        before = dict(f.counts)
        before[x] = before.get(x, 0) + 1
        f.add(x)
        if len(before) > 2 * capacity:
            c = heapq.nlargest(capacity + 1, before.values())[-1]
            want = {k: v - c for k, v in before.items() if v > c}
            assert list(f.counts.items()) == list(want.items())
