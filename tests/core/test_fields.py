"""``fields.str_list`` (a C filter) is the comprehension it replaced: the strings of a
list, subclasses of ``str`` among them, and [] for anything that is not a list."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core import fields


class _Name(str):
    pass


VALUES = st.one_of(
    st.text(max_size=3), st.integers(), st.none(), st.text(max_size=3).map(_Name),
    st.lists(st.text(max_size=2), max_size=2),
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(VALUES, max_size=6) | VALUES)
def test_str_list_is_the_plain_comprehension(value):
    plain = [x for x in value if isinstance(x, str)] if isinstance(value, list) else []
    found = fields.str_list(value)
    assert found == plain
    assert found is not value
