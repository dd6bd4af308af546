"""``format:`` and ``role:`` decided a block at a time (``query/rawfields.py``) answer what
a parse and the exact check answer: blocks of records in convo's layout and in Python's
``json.dumps`` layouts, with hostile values (the key text inside text chunks, escaped
quotes and keys, nested ``extra`` objects holding the same keys, later duplicates,
speakers that name a role, unicode), and the lines of ``test_raw_decisions``."""

from __future__ import annotations

import contextlib
import json
from contextlib import contextmanager
from unittest import mock

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.query.test_raw_decisions import (
    HOSTILE,
    PLAIN,
    PY_HOSTILE,
    PY_PLAIN,
    Part,
    expected,
    scanned,
)
from tests.query.test_raw_decisions import assert_exact as exact

from convo.core.fields import ROLES
from convo.query.compiled import Compiled
from convo.query.language import parse
from convo.query.linescan import BlockScan
from convo.query.rawfields import OTHER_ROLES, FieldBlock
from convo.query.scan import Selector
from convo.query.tree import to_filters

QUERIES = [
    "format:slack",
    "format:SLACK",
    "format:jsonl",
    "format:caf\u00e9",
    "NOT format:slack",
    "role:user",
    "role:USER",
    "role:assistant",
    "role:system",
    "NOT role:user",
    "format:slack OR role:assistant",
    "format:slack role:user",
    "NOT (format:slack OR role:tool)",
    "format:slack OR format:mbox OR format:jsonl",
]


def _filters(query: str) -> dict:
    flt = to_filters(parse(query))
    return {name: getattr(flt, name) for name in flt._fields}


@contextmanager
def _dense_first():
    """``format:`` decided a block at a time from the first span (a scan takes that path
    only after a span where its word was dense; the lines here are one span)."""
    init = FieldBlock.__init__

    def dense(self, *args):
        init(self, *args)
        self.dense = True

    with mock.patch.object(FieldBlock, "__init__", dense):
        yield


def assert_exact(lines: list[bytes], filters: dict) -> None:
    """``test_raw_decisions.assert_exact``, with ``format:``'s word scanned for first and
    with the block decision first."""
    exact(lines, filters)
    with _dense_first():
        exact(lines, filters)


def test_the_block_path_is_taken_for_format_and_role_leaves_only():
    for q in QUERIES:
        assert Compiled.of(to_filters(parse(q))).fields is not None, q
    for q in ["tag:urgent", "format:slack tag:urgent", "role:user from:quinn", "budget",
              "format:slack OR budget", "NOT tag:urgent", "role:user date:2020"]:  # fmt: skip
        assert Compiled.of(to_filters(parse(q))).fields is None, q


def test_only_the_kelvin_sign_and_dotted_i_lower_case_to_ascii_letters():
    """What the role decision relies on: a speaker naming a role lower-cases to it only
    from ASCII letters (``K`` gives ``k``, in no role; ``İ`` gives ``i`` and a dot)."""
    import sys

    found = {
        chr(c)
        for c in range(128, sys.maxunicode + 1)
        if any(x.isascii() and x.isalpha() for x in chr(c).lower())
    }
    assert found == {"\u0130", "\u212a"}
    assert not any("k" in r for r in ROLES)
    assert {r.strip(b'"').decode() for r in OTHER_ROLES} == set(ROLES) - {"user"}


# -- hostile lines, one at a time and among lines of their layout ------------------------

_BASE = orjson.loads(PLAIN)


def _with(**changes) -> dict:
    record = dict(_BASE)
    for k, v in changes.items():
        if v is _DROP:
            record.pop(k, None)
        else:
            record[k] = v
    return record


_DROP = object()
_HOSTILE_RECORDS = [
    _with(format="slack"),
    _with(format="Slack"),
    _with(format="SLACK", role="assistant"),
    _with(format=None),
    _with(format=5),
    _with(format=""),
    _with(format=_DROP),
    _with(format='sl"ack'),
    _with(format="slack\\"),
    _with(format="caf\u00e9"),
    _with(format="CAF\u00c9"),
    _with(format="\u017flack"),  # casefolds to "slack": a match
    _with(format="SLAC\u212a"),  # the Kelvin sign: "slack" too
    _with(format="\u00dflack"),  # "sslack": no match
    _with(format="slack", textChunks=["\u00dflack \u017flack"]),
    _with(format="jsonl", extra={"format": "slack"}),
    _with(format="slack", extra={"format": "jsonl"}),
    _with(format="slack", extra={"role": "assistant", "metadata": {"speaker": "System"}}),
    _with(format="slack", subject="a } brace"),
    _with(format="slack", subject='say "format":"jsonl"'),
    _with(textChunks=['"format":"slack"', '{"role":"assistant"}', "format", "role"]),
    _with(textChunks=["format"], tags=["format", "role"]),
    _with(role="assistant"),
    _with(role="Assistant"),
    _with(role="bogus"),
    _with(role=None),
    _with(role=3),
    _with(role="user", metadata={"speaker": "System", "listeners": []}),
    _with(metadata={"speaker": "System", "listeners": []}),
    _with(metadata={"speaker": "ASSISTANT", "listeners": []}),
    _with(metadata={"speaker": "tool", "listeners": []}),
    _with(metadata={"speaker": "User", "listeners": []}),
    _with(metadata={"speaker": "\u212aelvin", "listeners": []}),
    _with(metadata={"speaker": "Ass\u0130stant", "listeners": []}),
    _with(metadata={"speaker": "Sy\u017ftem", "listeners": []}),
    _with(metadata={"speaker": None, "listeners": ["system"]}),
    _with(metadata={"speaker": 7, "listeners": []}),
    _with(metadata="system"),
    _with(textChunks=[{"format": "slack", "role": "assistant"}]),
    _with(textChunks="slack"),
]


def _lines(record: dict) -> list[bytes]:
    """The record in convo's layout and in Python's, escaped and not, renamed and not."""
    renamed = {("text_chunks" if k == "textChunks" else k): v for k, v in record.items()}
    return [
        orjson.dumps(record),
        json.dumps(record).encode(),
        json.dumps(renamed).encode(),
        json.dumps(record, ensure_ascii=False).encode(),
    ]


# Later duplicates (orjson keeps the last), spaced or escaped keys, to append to a line.
_TAILS = [
    b',"format":"slack"}', b',"format" :"slack"}', b',"format":"jsonl"}', b',"format":null}',
    b',"role":"assistant"}', b',"role" :"assistant"}', b',"r\\u006fle":"assistant"}',
    b',"f\\u006frmat":"slack"}', b',"metadata":{"speaker":"System"}}',
    b',"x":{"format":"slack"}}', b',"x":"}"}', b',"x":"\\u0053ystem"}',
    b',"format":"sl\\u0061ck"}', b',"format":"sl\\"ack"}', b',"format":"slack\\\\"}',
    b',"textChunks":5,"format":"slack"}', b',"text\\u0043hunks":5,"format":"slack"}',
    b',"text_chunks":5,"format":"slack"}', b',"format":"slack"} ',
]  # fmt: skip


@pytest.mark.parametrize("query", QUERIES)
def test_hostile_lines_decide_as_a_parse(query):
    filters = _filters(query)
    for record in _HOSTILE_RECORDS:
        for line in _lines(record):
            assert_exact([line], filters)
            assert_exact([line] * 3, filters)
            plain = PLAIN if line.startswith(b'{"textChunks":[') else PY_PLAIN
            assert_exact([plain] * 5 + [line] + [plain] * 5, filters)
    for plain, hostile in ((PLAIN, HOSTILE), (PY_PLAIN, PY_HOSTILE)):
        for line in hostile:
            assert_exact([plain, line, plain], filters)
        for tail in _TAILS:
            line = plain[:-1] + tail
            assert_exact([plain] * 5 + [line] + [plain] * 5, filters)


def test_a_proven_block_is_not_parsed(monkeypatch):
    """On a block of plain records the answer comes from the bytes: no line is parsed
    (when the lines pass through unparsed)."""
    parsed = []
    check = BlockScan.check

    def counted(self, raw, *args):
        parsed.append(raw)
        return check(self, raw, *args)

    monkeypatch.setattr(BlockScan, "check", counted)
    slack = PLAIN.replace(b'"format":"jsonl"', b'"format":"slack"')
    lines = [PLAIN, slack] * 30
    for query in ["role:user", "role:assistant", "NOT format:slack", "format:slack OR role:tool"]:
        parsed.clear()
        scanned(lines, _filters(query), need_record=False)
        assert parsed == [], query
    with _dense_first():
        parsed.clear()
        scanned(lines, _filters("format:slack"), need_record=False)
        assert parsed == []
    parsed.clear()
    # Sparse: the word's lines, each decided by its format value's bytes.
    scanned(lines, _filters("format:slack"), need_record=False)
    assert parsed == []


def test_a_dense_word_switches_to_the_block_decision(monkeypatch):
    """After a span where ``format:``'s word was on most lines, the next is decided at
    once; after one where it matched few, the word is scanned for again."""

    slack = PLAIN.replace(b'"format":"jsonl"', b'"format":"slack"')
    dense = b"\n".join([slack] * 320 + [PLAIN] * 80) + b"\n"  # over 64 KiB each
    sparse = b"\n".join([slack] * 16 + [PLAIN] * 384) + b"\n"
    data = (dense + sparse) * 3
    sel = Selector(to_filters(parse("format:slack")))
    sel.block_size = len(dense)  # one span each
    spans = []
    field_span = BlockScan.field_span

    def seen(self, *args):
        spans.append(self.plan.fields.dense)
        return field_span(self, *args)

    monkeypatch.setattr(BlockScan, "field_span", seen)
    got = [m.raw for b in sel.batches([Part(data, True)], None, False) for m in b]
    assert got == [line for line in data.split(b"\n") if line == slack]
    assert len(spans) == 3  # the span after each dense one


# -- property: blocks of one layout, random hostile records ------------------------------

_TEXTS = [
    "hello", 'say "format":"slack"', '{"role":"assistant"}', "format", "role", "}", "{",
    "caf\u00e9", '"tool"', "a\\b", "\u212aelvin", "\u65e5\u672c", "line\nbreak",
]  # fmt: skip
_FORMATS = [
    "slack", "Slack", "mbox", "jsonl", "caf\u00e9", 'sl"ack', "", None, 5, "format",
    "\u017flack", "SLAC\u212a", "\u00dflack", "sl\\ack",
]  # fmt: skip
_ROLES = ["user", "assistant", "Assistant", "system", "tool", "bogus", None, 3, ""]
_SPEAKERS = [
    "Quinn", "System", "ASSISTANT", "tool", "user", "\u212aelvin", "Ass\u0130stant", None, 7,
    "Sy\u017ftem", 'a "quoted" name', "caf\u00e9",
]  # fmt: skip
_EXTRAS = [
    {"format": "slack"}, {"role": "assistant"}, {"metadata": {"speaker": "System"}},
    {"x": "}"}, {"format": {"role": "tool"}}, {"speaker": "tool"},
]  # fmt: skip
_MISSING = object()


@st.composite
def _record(draw) -> dict:
    record: dict = {
        "textChunks": draw(st.lists(st.sampled_from(_TEXTS), max_size=3)),
        "metadata": {
            "speaker": draw(st.sampled_from(_SPEAKERS)),
            "listeners": draw(st.lists(st.sampled_from(["system", "Bob"]), max_size=2)),
        },
        "tags": draw(st.lists(st.sampled_from(["urgent", "format", "Role"]), max_size=2)),
        "timestamp": "2020-01-01T00:00:00Z",
        "source_id": "s",
        "id": "i",
    }
    fmt = draw(st.sampled_from([*_FORMATS, _MISSING]))
    if fmt is not _MISSING:
        record["format"] = fmt
    if draw(st.integers(0, 3)) == 0:
        record["role"] = draw(st.sampled_from(_ROLES))
    if draw(st.booleans()):
        record["subject"] = draw(st.sampled_from(["hi", "a } b", "format", "caf\u00e9"]))
    if draw(st.integers(0, 3)) == 0:
        record["extra"] = draw(st.sampled_from(_EXTRAS))
    return record


def _render(record: dict, style: str, rename: bool) -> bytes:
    if rename:
        record = {("text_chunks" if k == "textChunks" else k): v for k, v in record.items()}
    if style == "python":
        return json.dumps(record).encode()
    if style == "spaced":
        return json.dumps(record, ensure_ascii=False).encode()
    if style == "ascii":
        return json.dumps(record, separators=(",", ":")).encode()
    return orjson.dumps(record)


_QUERY = st.sampled_from(QUERIES)
_STYLE = st.sampled_from(["orjson", "orjson", "python", "spaced", "ascii"])


@given(st.lists(_record(), min_size=1, max_size=20), _STYLE, st.booleans(), _QUERY)
def test_property_a_block_of_one_layout_equals_a_parse(records, style, rename, query):
    lines = [_render(r, style, rename) for r in records]
    assert_exact(lines, _filters(query))


@given(
    _record(), st.lists(_record(), min_size=1, max_size=3), _STYLE, st.booleans(),
    st.integers(1, 30), st.sampled_from([None, *_TAILS]), _QUERY,
)  # fmt: skip
def test_property_odd_lines_among_plain_ones_equal_a_parse(
    plain, odd, style, rename, copies, tail, query
):
    """Many lines alike (so the block may be proven) and a few odd ones among them, one
    maybe with a later duplicate or an escaped key appended."""
    same = _render(plain, style, rename)
    lines = [_render(r, style, rename) for r in odd]
    if tail is not None:
        lines[0] = lines[0][:-1] + tail
    filters = _filters(query)
    assert_exact([same] * copies + lines + [same] * copies, filters)
    assert_exact([same] * copies, filters)


@pytest.mark.parametrize("query", ["role:user", "NOT format:slack", "format:jsonl"])
def test_a_last_line_without_a_newline_and_crlf_lines_are_read_as_a_parse(query):
    """A torn last line, and lines ending with a carriage return (not proven: parsed)."""

    slack = PLAIN.replace(b'"format":"jsonl"', b'"format":"slack"')
    lines = [PLAIN, slack] * 20
    want, _ = expected(lines, _filters(query))
    for data in (b"\n".join(lines), b"\r\n".join(lines) + b"\r\n"):
        for need_record in (False, True):
            for first in (_dense_first, contextlib.nullcontext):  # format: both ways in
                with first():
                    sel = Selector(to_filters(parse(query)))
                    batches = sel.batches([Part(data, True)], None, need_record)
                    got = [m.raw for b in batches for m in b]
                assert [g.rstrip(b"\r") for g in got] == want, (query, need_record)
