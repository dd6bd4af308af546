"""``format:`` naming plain values: its candidate lines found on the raw bytes
(``query/rawfields.py ValueLines``, ``linescan.BlockScan.value_span``) select what the
needle scan it replaces selects (its plain twin: the block lower-cased, the value's
word and its respellings looked for) and what a parse selects, on lines of every
layout with hostile format values, keys and escapes."""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from unittest import mock

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.query.test_raw_decisions import PLAIN, PY_PLAIN, Part, expected, scanned
from tests.query.test_raw_fields import _TAILS, _lines, _record, _render

from convo.query.compiled import Compiled
from convo.query.language import parse
from convo.query.linescan import BlockScan
from convo.query.rawfields import ValueLines, format_values
from convo.query.scan import Selector
from convo.query.tree import to_filters

QUERIES = [
    "format:slack",
    "format:SLACK",
    "format:jsonl",
    "format:slack OR format:mbox OR format:jsonl",
    "format:slack (format:mbox OR format:slack)",
    "format:sl.ack-2",
]
# Format values a line may hold: named ones in other cases and spellings, near misses,
# values that are not plain, and the escapes JSON may write for them.
_VALUES = [
    "slack", "Slack", "SLACK", "\u017flack", "SLAC\u212a", "\u00dflack", "slackk", "slac",
    "mbox", "jsonl", "sl.ack-2", "SL.ACK-2", "sl ack", 'sl"ack', "sl\\ack", "", None, 5,
    "caf\u00e9", "format", "\u65e5\u672c",
]  # fmt: skip
_KEYS = [
    b',"format":', b',"format" :', b', "format": ', b',"f\\u006frmat":', b',"\\u0066ormat":',
    b',"format":\t', b',"x":{"format":',
]  # fmt: skip


def _filters(query: str) -> dict:
    flt = to_filters(parse(query))
    return {name: getattr(flt, name) for name in flt._fields}


@contextmanager
def _needle_scan():
    """The plain twin: no ``ValueLines`` (the needle scan finds the candidates)."""
    with mock.patch.object(ValueLines, "of", classmethod(lambda cls, values: None)):
        yield


def _both(lines: list[bytes], query: str) -> None:
    """The value path, its plain twin and a parse select the same lines; the lines that do
    not open an object are reported."""
    filters = _filters(query)
    want, bad = expected(lines, filters)
    odd = {n for n in bad if not lines[n - 1].lstrip().startswith(b"{")}
    for need_record in (False, True):
        got, reported = scanned(lines, filters, need_record)
        with _needle_scan():
            plain, _ = scanned(lines, filters, need_record)
        assert got == plain == want, (query, need_record)
        assert odd <= set(reported) <= set(bad), (query, need_record)


def test_the_values_every_match_holds():
    def values(query):
        return format_values(to_filters(parse(query)).tree.node)

    assert values("format:Slack") == {"slack"}
    assert values("format:slack OR format:mbox") == {"slack", "mbox"}
    assert values("format:slack (format:mbox OR format:vtt)") == {"slack"}
    assert values("NOT format:slack") is None
    assert values("format:slack OR NOT format:mbox") is None
    assert values("format:slack OR role:user") is None
    assert ValueLines.of({"slack", "sl.ack-2"}) is not None
    assert ValueLines.of({"caf\u00e9"}) is None  # not plain: the needle scan
    assert ValueLines.of({"a b"}) is None
    assert ValueLines.of({""}) is None


def test_the_value_path_is_taken_and_parses_nothing_on_plain_records(monkeypatch):
    taken, parsed = [], []
    span, check = BlockScan.value_span, BlockScan.check

    def seen(self, *args):
        taken.append(span(self, *args))
        return taken[-1]

    def counted(self, raw, *args):
        parsed.append(raw)
        return check(self, raw, *args)

    monkeypatch.setattr(BlockScan, "value_span", seen)
    monkeypatch.setattr(BlockScan, "check", counted)
    slack = PLAIN.replace(b'"format":"jsonl"', b'"format":"slack"')
    got, _ = scanned([PLAIN, slack] * 30, _filters("format:slack"), need_record=False)
    assert got == [slack] * 30
    assert taken and all(taken) and parsed == []
    assert Compiled.of(to_filters(parse("format:slack role:user"))).fields.values is None


def test_hostile_values_keys_and_escapes_decide_as_the_needle_scan():
    for query in QUERIES:
        for value in _VALUES:
            for plain in (PLAIN, PY_PLAIN):
                record = orjson.loads(plain)
                record["format"] = value
                for line in _lines(record):
                    _both([plain] * 3 + [line] + [plain] * 3, query)
                head = re.sub(rb', ?"format": ?"jsonl"\}$', b"", plain)  # no format key
                for key in _KEYS:
                    raw = head + key + json.dumps(value).encode() + (b"}}" if b"{" in key else b"}")
                    _both([plain] * 3 + [raw] + [plain] * 3, query)
            for tail in _TAILS:
                _both([PLAIN] * 3 + [PLAIN[:-1] + tail] + [PLAIN] * 3, query)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_record(), min_size=1, max_size=20),
    st.sampled_from(["orjson", "orjson", "python", "spaced", "ascii"]),
    st.booleans(),
    st.sampled_from(QUERIES),
    st.lists(st.sampled_from(_VALUES), max_size=3),
)
def test_property_the_value_path_equals_the_needle_scan(records, style, rename, query, values):
    for record, value in zip(records, values, strict=False):
        record["format"] = value
    lines = [_render(r, style, rename) for r in records]
    _both(lines, query)


def test_a_torn_last_line_and_crlf_lines_are_read_as_the_needle_scan():
    slack = PLAIN.replace(b'"format":"jsonl"', b'"format":"slack"')
    lines = [PLAIN, slack] * 20
    for data in (b"\n".join(lines), b"\r\n".join(lines) + b"\r\n", b"{not json\n" + slack):
        for need_record in (False, True):
            got = []
            for twin in (False, True):
                with _needle_scan() if twin else mock.patch.dict({}):
                    sel = Selector(to_filters(parse("format:slack")))
                    batches = sel.batches([Part(data, True)], None, need_record)
                    got.append([m.raw for b in batches for m in b])
            assert got[0] == got[1]
