"""``core.intmap.IntMap`` answers as a dict does: in its dict, its table and past it."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from convo.core.intmap import IntMap

M64 = (1 << 64) - 1
KEYS = st.one_of(st.integers(-(1 << 63), (1 << 64) - 1), st.sampled_from([0, 1, -1, M64, 1 << 32]))


@given(
    st.lists(st.tuples(KEYS, st.integers(0, M64)), min_size=1, max_size=400),
    st.integers(0, 40),
    st.sampled_from([8, 16, 64, 1 << 21]),
)
@example([(k, k) for k in range(60)], 3, 8)  # a dict, a table, then the spillmap
def test_an_int_map_is_a_dict(ops, limit, table):
    ints, plain = IntMap(limit=limit, table=table), {}
    for key, value in ops:
        k = key & M64 or 1
        assert ints.setdefault(key, value) == plain.get(k)
        plain.setdefault(k, value)
        assert ints.get(key) == plain[k]
    assert all(ints.get(k) == v for k, v in plain.items())
    assert len(ints) == len(plain)
    ints.close()
    assert ints.get(1) is None and len(ints) == 0


def test_a_full_table_spills():
    ints = IntMap(limit=4, table=16)
    for k in range(1, 200):
        assert ints.setdefault(k * 7919, k) is None
    assert ints._more is not None  # past the table: on disk
    assert all(ints.setdefault(k * 7919, 0) == k for k in range(1, 200))
    assert len(ints) == 199
    ints.close()
