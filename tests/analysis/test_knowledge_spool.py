"""The spool between knowledge's two passes (``analysis.knowledge.spool``): what goes in
comes back, in order, across batches; a value ``marshal`` cannot write comes back as
JSON gives it (the former JSON-lines spool's result)."""

from __future__ import annotations

import datetime
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.analysis.knowledge.body_analysis import Analysis, analyse
from convo.analysis.knowledge.spool import BATCH, SpoolWriter, read

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)  # fmt: skip


def _roundtrip(items: list[tuple[dict, Analysis]]) -> list[tuple[dict, Analysis]]:
    f = io.BytesIO()
    spool = SpoolWriter(f)
    for record, analysis in items:
        spool.add(record, analysis)
    spool.close()
    f.seek(0)
    return list(read(f))


def _analysis(text: str) -> Analysis:
    return analyse({"textChunks": [text], "metadata": {"speaker": "a", "listeners": ["b"]}})


def test_records_and_analyses_come_back_in_order_across_batches():
    texts = ["Deploy pipeline on GitHub failed? see https://x.org #ci @bob", "plain words", ""]
    items = [({"id": str(i), "n": i}, _analysis(texts[i % 3])) for i in range(2 * BATCH + 5)]
    assert _roundtrip(items) == items


def test_empty_spool():
    assert _roundtrip([]) == []


def test_a_value_marshal_cannot_write_comes_back_as_json_gives_it():
    when = datetime.datetime(2024, 5, 1, 12, 0, tzinfo=datetime.UTC)
    items = [({"id": "1", "at": when}, _analysis("x")), ({"id": "2"}, _analysis("y"))]
    back = _roundtrip(items)
    assert back[0][0] == {"id": "1", "at": "2024-05-01T12:00:00+00:00"}
    assert back[1] == items[1]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=6), _JSON, max_size=4), max_size=20))
def test_any_json_record_comes_back_equal(records):
    items = [(r, _analysis("")) for r in records]
    assert _roundtrip(items) == items
