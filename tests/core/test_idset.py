"""``IdSet`` and ``IdStamps``: what a growing table costs in memory."""

from __future__ import annotations

import tracemalloc

import pytest

from convo.core.idset import IdSet, IdStamps


@pytest.mark.parametrize(("cls", "arrays"), [(IdSet, 1), (IdStamps, 2)])
def test_growing_allocates_the_new_table_and_no_more(cls, arrays):
    """A table that grows allocates its doubled arrays (8 bytes a slot each) and no
    bytes object of their size beside them: a store's ids without the index are read
    into one of these, so the transient copy was a save's memory peak."""
    capacity = 1 << 16
    ids = cls(capacity)
    n = 0
    while (n + 1) * 3 <= capacity * 2:  # full up to the last id before it grows
        ids.add(f"id-{n}")
        n += 1
    tracemalloc.start()
    try:
        ids.add("the one that makes it grow")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(ids) == n + 1 and all(f"id-{i}" in ids for i in range(0, n, 997))
    new_arrays = arrays * 8 * 2 * capacity
    assert new_arrays <= peak < new_arrays * 1.1
