"""Raw-byte decisions on convo's record layout answer exactly what a parse answers."""

from __future__ import annotations

import io

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core.fields import is_record
from convo.core.jsonl import Line, iter_lines
from convo.query.canonical import Decider
from convo.query.filters import Filters
from convo.query.scan import Selector, select

BASE = (
    b'{"textChunks":["we need a budget"],"metadata":{"speaker":"Quinn Smith <q@x.org>",'
    b'"listeners":["Bob"]},"tags":["urgent"],"timestamp":"2020-01-01T00:00:00Z",'
    b'"source_id":"s","id":"i","format":"jsonl"'
)
HOSTILE = [
    BASE + b"}",
    BASE + b',"subject":"Budget"}',
    BASE + b',"extra":{"timestamp":"1999-01-01T00:00:00Z"}}',  # nested after the real one
    BASE + b',"timestamp":"1990-01-01T00:00:00Z"}',  # a duplicate: orjson keeps the last
    BASE + b',"tags":["calm"]}',
    BASE + b',"metadata":{"speaker":"Bob"}}',
    BASE + b',"textChunks":["nothing"]}',
    BASE + b',"extra":{"subject":"budget"}}',
    BASE + b',"time\\u0073tamp":"1990-01-01T00:00:00Z"}',  # an escaped duplicate key
    BASE + b',"a\\"timestamp":"1990-01-01T00:00:00Z"}',  # a key ending in "timestamp
    b'{"textChunks":["x"],"extra":{"timestamp":"2020-01-01T00:00:00Z"}}',  # only nested
    b'{"textChunks":[{"metadata":{"speaker":"Quinn"}}],"metadata":{"speaker":"Bob"}}',
    b'{"textChunks":["a\\"],\\"metadata\\":{\\"speaker\\":\\"Quinn"],"metadata":{"speaker":"Bob"}}',
    b'{"x\\"metadata":{"speaker":"Quinn"},"textChunks":[],"metadata":{"speaker":"Bob"}}',
    b'{"textChunks":["{budget}"],"metadata":{"speaker":"Quinn"},"tags":["urgent"],'
    b'"timestamp":"2020-01-01T00:00:00Z"}',
    b'{"textChunks":[true,"x"],"metadata":{"speaker":null,"listeners":[]},"tags":[],'
    b'"timestamp":"2020-01-01T00:00:00.5Z"}',
    b'{"textChunks":["Stra\xc3\x9fe"],"metadata":{"speaker":"\xe2\x84\xaaelvin","listeners":[]},'
    b'"tags":["K"],"timestamp":"2020-01-01T00:00:00Z"}',
    b'{"textChunks":["budg\\net"],"metadata":{"speaker":"Qu\\u0069nn","listeners":[]},'
    b'"tags":["urg\\u0065nt"],"timestamp":"2020-01-01T00:00:00Z"}',
    b'{"textChunks":["a"],"metadata":{"speaker":"Quinn","listeners":[]},"tags":["x]","urgent"],'
    b'"timestamp":"2020-01-01T00:00:00Z","subject":null}',
]
FILTERS = [
    {"speakers": ["quinn"]},
    {"speakers": ["bob"]},
    {"speakers": ["kelvin"]},
    {"tags": ["urgent"]},
    {"tags": ["k"]},
    {"since": "2019-01-01T00:00:00Z"},
    {"until": "2019-01-01T00:00:00Z"},
    {"texts": ["budget"]},
    {"texts": ["strasse"]},
    {"texts": ["true"]},
    {"speakers": ["quinn"], "tags": ["urgent"], "since": "2019-01-01T00:00:00Z"},
]


def _expected(lines: list[bytes], filters: dict) -> list[bytes]:
    records = [orjson.loads(raw) for raw in lines]
    wanted = list(select([r for r in records if is_record(r)], Filters(**filters)))
    return [raw for raw, r in zip(lines, records, strict=True) if any(r is w for w in wanted)]


def _scanned(lines: list[bytes], filters: dict, need_record: bool) -> list[bytes]:
    data = b"\n".join(lines) + b"\n"
    sel = Selector(Filters(**filters))

    class Part:
        name = "mem"

        def open(self):
            return io.BytesIO(data)

    return [m.raw for b in sel.batches([Part()], None, need_record) for m in b]


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f)[:40])
def test_hostile_lines_decide_as_a_parse(filters):
    for line in HOSTILE:
        orjson.loads(line)  # every case is valid JSON
        expected = _expected([line], filters)
        for need_record in (False, True):
            assert _scanned([line], filters, need_record) == expected, line
        decided = Decider(Filters(**filters))
        decided.begin(line)
        d = decided.decide(line, 0, len(line))
        if d is not None and decided.complete:
            assert d == bool(expected), line


_key = st.sampled_from(["timestamp", "tags", "metadata", "speaker", "subject", "textChunks", "x"])
_value = st.one_of(
    st.sampled_from(["2020-01-01T00:00:00Z", "1990-01-01T00:00:00Z", "urgent", "Quinn", "budget"]),
    st.lists(st.sampled_from(["urgent", "budget", "Quinn"]), max_size=2),
    st.none(),
)
_extra = st.dictionaries(
    _key, st.one_of(_value, st.dictionaries(_key, _value, max_size=2)), max_size=3
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a budget", "{x}", 'say "hi"', "b\\udget", "Straße"]),
            st.sampled_from(["Quinn", "Bob", None, "Quinn <q@x>"]),
            st.lists(st.sampled_from(["urgent", "calm", "K"]), max_size=2),
            st.sampled_from(
                ["2020-01-01T00:00:00Z", "2018-06-01T00:00:00Z", "2020-01-01T00:00:00+02:00"]
            ),
            _extra,
            _extra,
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(FILTERS),
)
def test_property_raw_decisions_equal_a_parse(rows, filters):
    lines = []
    for text, speaker, tags, ts, meta_extra, top_extra in rows:
        record = {
            "textChunks": [text],
            "metadata": {"speaker": speaker, "listeners": [], **meta_extra},
            "tags": tags,
            "timestamp": ts,
            "source_id": "s",
            "id": "i",
            "format": "jsonl",
            **top_extra,
        }
        lines.append(orjson.dumps(record))
    expected = _expected(lines, filters)
    assert _scanned(lines, filters, False) == expected
    assert _scanned(lines, filters, True) == expected


def test_lines_of_another_layout_are_parsed():
    line = b'{"metadata": {"speaker": "Quinn"}, "textChunks": ["budget"], "tags": ["urgent"]}'
    assert list(iter_lines(io.BytesIO(line + b"\n"))) == [Line(1, line)]
    for filters in FILTERS:
        assert _scanned([line], filters, False) == _expected([line], filters)


_TIMED = (
    b'{"textChunks":["a"],"metadata":{"speaker":"Q","listeners":[]},"tags":[],'
    b'"timestamp":"2020-01-02T03:04:05Z","source_id":"s","id":"i","format":"jsonl"}'
)


@pytest.mark.parametrize(
    ("odd", "proved"),
    [
        (_TIMED, True),
        (_TIMED[:-1] + b',"n":[1,2],"x":null}', True),  # any value without a brace
        (_TIMED[:-1] + b',"subject":"a}b"}', False),  # a brace in a string: not proved
        (_TIMED[:-1] + b',"timestamp":"1990-01-01T00:00:00Z"}', False),  # a later one
        (_TIMED[:-1] + b',"timestamp" :"1990-01-01T00:00:00Z"}', False),
        (_TIMED[:-1] + b',"x":{"timestamp":"1990-01-01T00:00:00Z"}}', False),  # nested
        (_TIMED.replace(b',"timestamp"', b',"x":{"a":1,"timestamp"') + b"}", False),
        (_TIMED.replace(b"2020-01-02T03:04:05Z", b"2020-01-02"), False),  # not canonical
    ],
)
def test_block_times_prove_only_a_top_level_last_timestamp(odd, proved):
    """A whole block's timestamps are taken from its bytes only when every line's is
    proved top-level and the last of its name; otherwise the lines are looked at one by
    one, and the scan still answers what a parse does."""
    from convo.query.canonical import block_times

    block = b"\n".join([_TIMED, odd, _TIMED]) + b"\n"
    found = block_times(block, 3)
    ends = [i + 1 for i, c in enumerate(block) if c == 10]
    assert (found == ([b"2020-01-02T03:04:05Z"] * 3, ends)) if proved else found is None
    lines = [_TIMED, odd, _TIMED]
    for filters in ({"since": "2019-01-01T00:00:00Z"}, {"since": "2021-01-01T00:00:00Z"}):
        for need_record in (False, True):
            assert _scanned(lines, filters, need_record) == _expected(lines, filters)
