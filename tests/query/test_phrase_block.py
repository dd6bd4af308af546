"""A phrase alone decided a block at a time (``query/rawphrase.py TextPhrase.block``,
``linescan.BlockScan.text_block``) selects what a parse selects and what its plain twin
(the needle scan, every candidate parsed) selects: white space of every kind, raw and
escaped, phrases across chunks, across the subject and the text, beside values that are
not strings, respellings and escapes, in every layout."""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from unittest import mock

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.query.test_raw_decisions import PLAIN, assert_exact, expected, scanned
from tests.query.test_raw_fields import _render

from convo.query.compiled import Compiled
from convo.query.language import parse
from convo.query.linescan import BlockScan
from convo.query.rawphrase import _SPACE, TextPhrase
from convo.query.tree import to_filters

QUERIES = ['"forecast quarter"', '"Quarter  FORECAST q4"', '"q4 q4"', '"st quarter"']
_SPACES = [c for c in map(chr, range(0x110000)) if c.isspace()]
# Pieces of text: the words, white space of every kind, respellings (``ſ``, ``ﬅ``, the
# Kelvin sign), quotes and backslashes, letters JSON escapes.
_PIECES = [
    "forecast", "Forecast", "FORECAST", "quarter", "Quarter", "q4", "Q4", "st", "fore",
    "cast", "quart", " ", "  ", "\n", "\t", "\r", "\x0b", "\x1c", "\u00a0", "\u0085",
    "\u2003", "\u2028", "\u3000", "\u200b", "\u017f", "\ufb05", "\u212a", '"', "\\",
    ".", ",", "caf\u00e9", "\u65e5", "\U0001f389", "forecast quarter", "quarter forecast",
]  # fmt: skip
_OTHER = [1, None, True, {"a": "forecast"}, ["quarter"], {"textChunks": ["q4 q4"]}]


def _filters(query: str) -> dict:
    flt = to_filters(parse(query))
    return {name: getattr(flt, name) for name in flt._fields}


def _text(draw) -> str:
    return "".join(draw(st.lists(st.sampled_from(_PIECES), max_size=6)))


@st.composite
def _record(draw) -> dict:
    chunks: list = []
    for _ in range(draw(st.integers(0, 3))):
        chunks.append(_text(draw) if draw(st.integers(0, 5)) else draw(st.sampled_from(_OTHER)))
    record: dict = {
        "textChunks": chunks,
        "metadata": {
            "speaker": draw(st.sampled_from(["Bob", "Forecast Quarter"])),
            "listeners": [],
        },
        "tags": draw(st.lists(st.sampled_from(["q4", "forecast quarter"]), max_size=1)),
        "timestamp": "2020-01-01T00:00:00Z",
        "source_id": "s",
        "id": "i",
        "format": "jsonl",
    }
    if draw(st.booleans()):
        record["subject"] = (
            _text(draw) if draw(st.integers(0, 5)) else draw(st.sampled_from(_OTHER))
        )
    if draw(st.integers(0, 4)) == 0:
        record["extra"] = {"subject": _text(draw)}
    return record


@contextmanager
def _plain_twin():
    """The plain twin: no block decision (the needle scan parses every candidate)."""
    with mock.patch.object(TextPhrase, "block", lambda self, *args: None):
        yield


def _both(lines: list[bytes], query: str) -> None:
    """The block path, its plain twin and a parse select the same lines."""
    filters = _filters(query)
    assert_exact(lines, filters)
    want, _ = expected(lines, filters)
    with _plain_twin():
        for need_record in (False, True):
            assert scanned(lines, filters, need_record)[0] == want


def test_the_gap_holds_every_way_json_writes_white_space():
    """``_SPACE`` is every character ``str.isspace`` holds (as the exact check's ``\\s``),
    raw and as ``json.dumps`` and orjson escape it, lower-cased as the block is."""
    assert [c for c in _SPACES if re.match(r"\s", c)] == _SPACES
    space = re.compile(_SPACE)
    for c in _SPACES:
        for written in (c.encode(), json.dumps(c)[1:-1].encode(), orjson.dumps(c)[1:-1]):
            assert space.fullmatch(written.lower()), (c, written)


def test_the_block_path_is_taken_and_parses_little(monkeypatch):
    parsed = []
    check = BlockScan.check

    def counted(self, raw, *args):
        parsed.append(raw)
        return check(self, raw, *args)

    monkeypatch.setattr(BlockScan, "check", counted)
    hit = PLAIN.replace(b"nothing here", b"the Forecast  quarter is in")
    near = PLAIN.replace(b"nothing here", b"forecast, quarter")
    got, _ = scanned([PLAIN, hit, near] * 30, _filters('"forecast quarter"'), need_record=False)
    assert got == [hit] * 30
    assert parsed == []
    assert Compiled.of(to_filters(parse('"forecast quarter"'))).text_only is not None
    assert Compiled.of(to_filters(parse('"forecast quarter" tag:x'))).text_only is None
    assert Compiled.of(to_filters(parse('"true 1"'))).text_only.blocks is False


def test_phrases_across_chunks_subjects_and_other_values():
    cases = [
        {"textChunks": ["the forecast", "quarter"]},
        {"textChunks": ["the forecast ", 5, None, {"a": "b"}, "", " quarter"]},
        {"textChunks": ["forecast\u00a0\u3000quarter"]},
        {"textChunks": ["forecast\\nquarter", "forecast\nquarter"]},
        {"textChunks": ["quarter"], "subject": "a forecast"},
        {"textChunks": ["q"], "subject": "a forecast quarter"},
        {"textChunks": ["x"], "subject": "a forecast", "extra": {"y": "quarter"}},
        {"textChunks": ["fore\u017fcast quarter", "foreca\ufb05 quarter"]},
        {"textChunks": ['"forecast" "quarter"', "forecast\\", "quarter"]},
    ]
    for case in cases:
        record = orjson.loads(PLAIN) | case
        for style in ("orjson", "python", "spaced", "ascii"):
            for rename in (False, True):
                line = _render(dict(record), style, rename)
                for query in QUERIES:
                    _both([PLAIN, line, PLAIN], query)
                    _both([line] * 3, query)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_record(), min_size=1, max_size=12),
    st.sampled_from(["orjson", "orjson", "python", "spaced", "ascii"]),
    st.booleans(),
    st.sampled_from(QUERIES),
)
def test_property_the_block_path_equals_a_parse_and_the_needle_scan(records, style, rename, query):
    lines = [_render(r, style, rename) for r in records]
    _both(lines, query)
