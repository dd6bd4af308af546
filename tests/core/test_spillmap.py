"""``core.spillmap.SpillMap``: the answers of a plain dict, in bounded memory."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core.spillmap import SpillMap

_KEYS = st.one_of(
    st.integers(-5, 40),
    st.sampled_from(["1", "a", "", "t1_x", "é"]),
    st.sampled_from([1 << 70, -(1 << 70), (1 << 63), (1 << 63) - 1]),
)
_VALUES = st.one_of(st.integers(-3, 3), st.sampled_from(["ann", "", "bob"]), st.just(1 << 80))


@settings(max_examples=80, deadline=None)
@given(
    ops=st.lists(st.tuples(st.booleans(), _KEYS, _VALUES), max_size=200),
    limit=st.integers(1, 6),
)
def test_property_spillmap_answers_as_a_plain_dict_whatever_the_limit(ops, limit):
    kept: SpillMap = SpillMap(limit)
    plain: dict = {}
    try:
        for is_set, key, value in ops:
            if is_set:
                kept.set(key, value)
                plain[key] = value
            else:
                got = kept.get(key)
                assert got == plain.get(key) and type(got) is type(plain.get(key))
            assert len(kept.recent) <= limit
        for key in plain:
            assert kept.get(key) == plain[key]
    finally:
        kept.close()


def test_int_and_str_keys_stay_apart_on_disk():
    kept: SpillMap = SpillMap(1)
    kept.set(1, "int")
    kept.set("1", "str")
    kept.set("other", "x")  # both above are now in the table
    assert kept.spilled
    assert kept.get(1) == "int" and kept.get("1") == "str" and kept.get(2) is None


def test_a_newer_value_replaces_a_spilled_one():
    kept: SpillMap = SpillMap(2)
    for i in range(10):
        kept.set(i, i)
    kept.set(0, 100)
    for i in range(10, 20):
        kept.set(i, i)  # the 100 goes to the table over the old 0
    assert kept.get(0) == 100 and kept.get(9) == 9 and kept.get(99) is None


def test_small_maps_stay_in_memory():
    kept: SpillMap = SpillMap(100)
    for i in range(100):
        kept.set(i, str(i))
    kept.set(5, "five")  # a key already held does not spill a full dict
    assert not kept.spilled and kept.get(5) == "five"
