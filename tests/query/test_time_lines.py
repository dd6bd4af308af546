"""A time filter alone decided a block at a time without splitting it into lines
(``query/canonical.py block_times``, ``linescan.BlockScan.time_block``) selects what its
plain twin selects (each line decided on its own bytes, or parsed) and what a parse
selects: blocks of one layout with random timestamps, hostile tails (later, nested or
spaced duplicates, braces), odd lines, control bytes and escapes; line numbers too."""

from __future__ import annotations

import json
from contextlib import contextmanager
from unittest import mock

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.query.test_raw_decisions import Part, expected, scanned

from convo.query.canonical import block_times
from convo.query.filters import Filters
from convo.query.linescan import BlockScan
from convo.query.scan import Selector

FILTERS = [
    {"since": "2018-01-01T00:00:00Z"},
    {"until": "2018-01-01T00:00:00Z"},
    {"since": "2017-06-01T00:00:00Z", "until": "2019-01-01T12:00:00Z"},
]
_STAMPS = [
    "2016-03-04T05:06:07Z", "2018-01-01T00:00:00Z", "2017-12-31T23:59:59Z",
    "2024-02-29T12:00:00Z", "2018-01-01", "2018-01-01T00:00:00+00:00", "2018-01-01 00:00:00Z",
]  # fmt: skip
# Appended before a line's closing brace: what may make its raw timestamp not the one
# orjson keeps (or a line not a record of the layout).
_TAILS = [
    b"", b',"timestamp":"1990-01-01T00:00:00Z"', b',"timestamp" :"1990-01-01T00:00:00Z"',
    b',"x":{"timestamp":"1990-01-01T00:00:00Z"}', b',"x":"}"', b',"x":"a\\u007d"',
    b',"t\\u0069mestamp":"1990-01-01T00:00:00Z"', b',"textChunks":5', b',"text_chunks":5',
    b',"x":"\x01"', b',"x":"caf\\u00e9"', b',"x":[1,{"y":2}]', b"} ",
]  # fmt: skip


def _record(stamp: str | None, chunks: list[str]) -> dict:
    record: dict = {
        "textChunks": chunks,
        "metadata": {"speaker": "Quinn", "listeners": []},
        "tags": [],
        "source_id": "s",
        "id": "i",
        "format": "jsonl",
    }
    if stamp is not None:
        record["timestamp"] = stamp
    return record


def _render(record: dict, style: str) -> bytes:
    if style == "python":
        renamed = {("text_chunks" if k == "textChunks" else k): v for k, v in record.items()}
        return json.dumps(renamed).encode()
    if style == "spaced":
        return json.dumps(record, ensure_ascii=False).encode()
    return orjson.dumps(record)


@contextmanager
def _per_line():
    """The plain twin: no block decision (each line decided on its bytes, or parsed)."""
    with mock.patch.object(BlockScan, "time_block", lambda self, *args: None):
        yield


def _both(lines: list[bytes], filters: dict) -> None:
    want, bad = expected(lines, filters)
    odd = {n for n in bad if not lines[n - 1].lstrip().startswith(b"{")}
    data = b"\n".join(lines) + b"\n"
    for need_record in (False, True):
        for reopenable in (False, True):
            got, reported = scanned(lines, filters, need_record, reopenable)
            with _per_line():
                plain, plain_reported = scanned(lines, filters, need_record, reopenable)
            assert got == plain == want, (filters, need_record, reopenable)
            assert odd <= set(reported) <= set(bad)
            assert reported == plain_reported
        # line numbers (a counted scan): equal to the twin's
        numbers = []
        for twin in (False, True):
            with _per_line() if twin else mock.patch.dict({}):
                sel = Selector(Filters(**filters))
                batches = sel.batches([Part(data, False)], None, need_record)
                numbers.append([(m.line, m.raw) for b in batches for m in b])
        assert numbers[0] == numbers[1]


def test_a_plain_block_is_decided_at_once_with_its_line_ends():
    lines = [_render(_record(s, ["hi"]), "orjson") for s in _STAMPS[:4]]
    block = b"\n".join(lines) + b"\n"
    stamps, ends = block_times(block, 4)
    assert stamps == [s.encode() for s in _STAMPS[:4]]
    assert ends == [i + 1 for i, c in enumerate(block) if c == 10]
    assert block_times(block, 5) is None  # not every line matched: not proven
    assert block_times(block.replace(b"\n", b"\n\n", 1), 5) is None  # a blank line


def test_the_block_path_is_taken(monkeypatch):
    taken = []
    time_block = BlockScan.time_block

    def seen(self, *args):
        taken.append(time_block(self, *args))
        return taken[-1]

    monkeypatch.setattr(BlockScan, "time_block", seen)
    lines = [_render(_record(s, ["hi"]), "python") for s in _STAMPS[:4]] * 10
    got, _ = scanned(lines, FILTERS[0], need_record=False)
    assert len(got) == 20 and taken and all(t == 40 for t in taken)


def test_hostile_tails_decide_as_the_twin():
    for style in ("orjson", "python", "spaced"):
        plain = _render(_record("2019-05-05T05:05:05Z", ["a"]), style)
        for tail in _TAILS:
            for stamp in _STAMPS:
                line = _render(_record(stamp, ["b"]), style)
                line = line[:-1] + tail + b"}"
                for filters in FILTERS:
                    _both([plain] * 3 + [line] + [plain] * 3, filters)
                    _both([line], filters)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([*_STAMPS, None]),
            st.lists(
                st.sampled_from(["hi", "}", '"timestamp"', "caf\u00e9", "\u017f"]), max_size=2
            ),
            st.sampled_from(_TAILS),
        ),
        min_size=1,
        max_size=25,
    ),
    st.sampled_from(["orjson", "orjson", "python", "spaced"]),
    st.sampled_from(FILTERS),
    st.sampled_from([None, b"", b"not json", b"[1]", b"  "]),
)
def test_property_the_block_decision_equals_its_twin(rows, style, filters, odd):
    lines = []
    for stamp, chunks, tail in rows:
        line = _render(_record(stamp, chunks), style)
        lines.append(line[:-1] + tail + b"}" if tail else line)
    if odd is not None:
        lines.insert(len(lines) // 2, odd)
    _both(lines, filters)
