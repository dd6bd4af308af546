"""``rows.row_of`` (the build's inlined field reads) agrees with ``convo.core.fields``."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from convo.core import fields
from convo.index.rows import row_of

ANY = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=8), st.sampled_from(["", "tool"]),
    st.lists(st.one_of(st.text(max_size=5), st.integers(), st.none()), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)  # fmt: skip
KEYS = ["id", "timestamp", "thread", "format", "role", "subject", "tags", "textChunks",
        "text_chunks", "metadata"]  # fmt: skip
META_KEYS = ["speaker", "listeners", "recipients"]


@st.composite
def hostile(draw):
    r = draw(st.dictionaries(st.sampled_from(KEYS), ANY, max_size=8))
    if draw(st.booleans()):
        r["metadata"] = draw(st.dictionaries(st.sampled_from(META_KEYS), ANY, max_size=3))
    return r


@given(hostile())
def test_row_of_reads_fields_as_the_accessors_do(r):
    row = row_of(r)
    assert row.id == fields.record_id(r)
    assert row.timestamp == fields.timestamp(r)
    assert row.speaker == (fields.speaker(r) or None)
    assert row.thread == fields.string(r, "thread")
    assert row.format == fields.string(r, "format")
    assert row.role == fields.role(r)
    assert row.subject == fields.string(r, "subject")
    assert row.listeners == [x for x in fields.listeners(r) if x]
    assert row.tags == fields.tags(r)
    assert row.text == fields.text(r)
