"""``core.counts.Counts``: the counts of a plain dict, in bounded memory."""

from __future__ import annotations

import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core import counts as counts_module
from convo.core.counts import Counts
from convo.core.record import content_id
from convo.importers.build import ContentIds, message


def _plain(keys: list[str]) -> list[int]:
    seen: dict[str, int] = {}
    out = []
    for key in keys:
        out.append(seen.get(key, 0))
        seen[key] = out[-1] + 1
    return out


@settings(max_examples=60, deadline=None)
@given(
    keys=st.lists(st.sampled_from([f"h:{i:024x}" for i in range(40)] + ["x", ""]), max_size=300),
    limit=st.integers(1, 8),
)
def test_property_counts_equal_a_plain_dict_whatever_the_limit(keys, limit):
    counts = Counts(limit)
    try:
        assert [counts.next(k) for k in keys] == _plain(keys)
        assert len(counts.recent) <= limit
    finally:
        counts.close()


def test_small_inputs_stay_in_memory():
    counts = Counts(100)
    assert [counts.next(k) for k in "abcab"] == [0, 0, 0, 1, 1]
    assert not counts.spilled


def test_spilled_counts_carry_on_and_repeats_far_apart_are_counted():
    counts = Counts(4)
    keys = [f"k{i}" for i in range(50)]
    assert [counts.next(k) for k in keys] == [0] * 50
    assert counts.spilled and len(counts.recent) <= 4
    assert counts.next("k0") == 1  # counted 46 keys ago, now on disk
    assert counts.next("k0") == 2
    assert counts.next("new") == 0
    counts.close()


def test_content_ids_memory_is_flat_with_the_number_of_messages(monkeypatch):
    """The ids of 40k distinct messages without ids: each its content hash without a
    counter, exactly as before, and the counters' memory does not grow past the bound
    (here 2,048 strings in memory)."""
    monkeypatch.setattr(counts_module, "LIMIT", 1 << 11)

    def peak(n: int) -> int:
        ids = ContentIds("big.json")
        tracemalloc.start()
        try:
            for i in range(n):
                msg = message(f"message {i}", speaker="ann", format="openai")
                expected = content_id(msg, conversation="big.json")
                assert ids.assign(msg) == expected
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            ids._seen.close()

    small, big = peak(10_000), peak(40_000)
    # Without the bound the counters grew by ~110 bytes a message (3 MB more here).
    assert big < small + 300_000


def test_content_ids_repeat_counters_survive_the_spill():
    ids = ContentIds("a.json")
    ids._seen = Counts(3)
    msgs = [message(t, speaker="bob", format="openai") for t in ["ok", "a", "b", "c", "d", "ok"]]
    got = [ids.assign(m) for m in msgs]
    assert ids._seen.spilled
    assert got[5] == f"{got[0]}-1"
    assert len(set(got)) == len(got)
