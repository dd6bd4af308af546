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


_STAMPED = st.lists(st.tuples(st.integers(0, 12), st.integers(0, 3), st.booleans()), max_size=300)


@settings(max_examples=80, deadline=None)
@given(ops=_STAMPED, limit=st.integers(2, 8), ordered=st.integers(1, 8), rising=st.booleans())
def test_property_stamped_counts_equal_a_plain_dict(ops, limit, ordered, rising):
    """Keys of a stamp (the stamp is part of the key, as a content hash hashes its time):
    stamps rising (as a transcript's offsets), going back, or left out; whatever the
    limits, the counts are a plain dict's."""
    if rising:
        ops = sorted(ops, key=lambda op: op[0])
    stamps = [f"2024-01-01T00:00:{s:02d}Z" for s, _, _ in ops]
    keys = [f"h:{stamp}:{k}" for stamp, (_, k, _) in zip(stamps, ops, strict=True)]
    given_stamps = [
        stamp if keep else None for stamp, (_, _, keep) in zip(stamps, ops, strict=True)
    ]
    counts = Counts(limit, ordered)
    try:
        got = [counts.next(k, s) for k, s in zip(keys, given_stamps, strict=True)]
        assert got == _plain(keys)
        assert len(counts.recent) <= max(limit, 1)
    finally:
        counts.close()


def test_rising_stamps_keep_only_the_last_keys_and_never_index_them():
    counts = Counts(limit=1 << 20, ordered_limit=64)
    for i in range(10_000):
        stamp = f"{i // 3:08d}"  # three messages a stamp
        assert counts.next(f"h:{stamp}:{i % 3}", stamp) == 0
    assert counts.spilled and len(counts.recent) <= 64
    assert counts.next("h:00003332:0", "00003332") == 1  # the highest stamp: in memory
    assert counts.next("h:00000001:0", "00000001") == 1  # back in time: the file, indexed
    assert counts.next("h:00000001:0", "00000001") == 2
    counts.close()


def test_keys_without_rising_stamps_stay_in_memory_up_to_the_limit():
    counts = Counts(limit=1_000, ordered_limit=64)
    for i in range(900):  # one stamp for all (a source without times): no early spill
        counts.next(f"h:{i}", "1970-01-01T00:00:00Z")
    assert not counts.spilled and len(counts.recent) == 900
    counts.close()
