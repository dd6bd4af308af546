"""Every raw-byte shortcut of the scan answers what a parse and the exact checks answer.

The lines here are valid JSON built to mislead a reader of bytes: duplicate keys with a
space before the colon (orjson keeps the last), keys nested in other objects, escapes,
case-fold letters, odd spacing and key orders. Each is scanned one line at a time and in
blocks (where block-wide shortcuts apply), with and without the parsed record wanted.
"""

from __future__ import annotations

import io

import orjson
import pytest

from convo.query.filters import Filters
from convo.query.scan import Selector, select

BASE = (
    b'{"textChunks":["we need a budget"],"metadata":{"speaker":"Quinn Smith <q@x.org>",'
    b'"listeners":["Bob"]},"tags":["urgent"],"timestamp":"2020-01-01T00:00:00Z",'
    b'"source_id":"s","id":"i","format":"jsonl"'
)
PLAIN = (
    b'{"textChunks":["nothing here"],"metadata":{"speaker":"Bob Jones <bob@x.org>",'
    b'"listeners":[]},"tags":[],"timestamp":"2010-01-01T00:00:00Z","source_id":"s",'
    b'"id":"j","format":"jsonl"}'
)
# A later duplicate key with a space before its colon is the one orjson keeps.
SPACED = [
    BASE + b',"timestamp" :"1990-01-01T00:00:00Z"}',
    BASE + b',"metadata" :{"speaker" :"Bob"}}',
    BASE + b',"metadata" :{"speaker":"Bob"}}',
    BASE + b',"tags" :["calm"]}',
    BASE + b',"textChunks" :["calm"]}',
    BASE + b',"subject" :"budget"}',
    BASE + b',"subject":"calm","subject" :"budget"}',
]
FILTERS = [
    {"speakers": ["quinn"]},
    {"speakers": ["bob"]},
    {"tags": ["urgent"]},
    {"tags": ["calm"]},
    {"since": "2019-01-01T00:00:00Z"},
    {"until": "2019-01-01T00:00:00Z"},
    {"texts": ["budget"]},
    {"texts": ["calm"]},
    {"speakers": ["quinn"], "tags": ["urgent"], "since": "2019-01-01T00:00:00Z"},
    {"speakers": ["quinn"], "texts": ["budget"], "since": "2019-01-01T00:00:00Z"},
]


def expected(lines: list[bytes], filters: dict) -> list[bytes]:
    records = [orjson.loads(raw) for raw in lines]
    wanted = list(select(records, Filters(**filters)))
    return [raw for raw, r in zip(lines, records, strict=True) if any(r is w for w in wanted)]


def scanned(lines: list[bytes], filters: dict, need_record: bool) -> list[bytes]:
    data = b"\n".join(lines) + b"\n"
    sel = Selector(Filters(**filters))

    class Part:
        name = "mem"

        def open(self):
            return io.BytesIO(data)

    return [m.raw for b in sel.batches([Part()], None, need_record) for m in b]


def assert_exact(lines: list[bytes], filters: dict) -> None:
    want = expected(lines, filters)
    for need_record in (False, True):
        assert scanned(lines, filters, need_record) == want, (filters, need_record)


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f)[:50])
def test_a_spaced_duplicate_key_decides_as_a_parse(filters):
    for line in SPACED:
        orjson.loads(line)  # valid JSON
        assert_exact([line], filters)
        assert_exact([PLAIN, line, PLAIN], filters)  # within a block of canonical lines
        assert_exact([line] * 3, filters)
