"""Query semantics: the block scanner, the per-line path and the library form agree."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import unicodedata  # noqa: F401 - the case-fold list is checked against this Python's data

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from convo.core.jsonl import iter_lines
from convo.pipeline.inputs import RawFile
from convo.query.blocks import iter_blocks
from convo.query.filters import Filters, NameQuery
from convo.query.prefilter import CASEFOLD_ASCII
from convo.query.scan import Selector, select


def rec(text="hello", speaker="Alice", ts="2024-03-06T10:00:00Z", tags=(), listeners=(), **kw):
    r = {
        "textChunks": [text] if isinstance(text, str) else list(text),
        "metadata": {"speaker": speaker, "listeners": list(listeners)},
        "tags": list(tags),
        "timestamp": ts,
        "source_id": "t#1",
        "id": kw.pop("id", "x"),
        "format": "jsonl",
    }
    r.update(kw)
    return r


def dump(records, *, ascii_escapes=False) -> bytes:
    if ascii_escapes:
        import json

        return b"".join(json.dumps(r).encode() + b"\n" for r in records)
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


class _Part:
    """A raw part over bytes, like inputs.RawFile."""

    def __init__(self, data: bytes, name: str = "mem", reopenable: bool = False):
        self.data = data
        self.name = name
        self.reopenable = reopenable

    def open(self):
        return io.BytesIO(self.data)


def scan(
    data: bytes, block_size: int = 1 << 22, need_record=True, errors=None, lazy=False, **filters
):
    sel = Selector(Filters(**filters))
    sel.block_size = block_size
    on_error = (
        (lambda e, line: errors.append((e.where, line.number))) if errors is not None else None
    )
    part = _Part(data, reopenable=lazy)
    return [m for b in sel.batches([part], on_error, need_record) for m in b]


def per_line(data: bytes, **filters):
    sel = Selector(Filters(**filters))
    return list(sel.select((line, "mem") for line in iter_lines(io.BytesIO(data))))


def library(records, **filters):
    return list(select(records, Filters(**filters)))


# -- the name rule -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "value", "expected"),
    [
        ("Alice", "Alice", True),
        ("alice", "Alice Smith <alice@x.org>", True),
        ("alice@x.org", "Alice Smith <alice@x.org>", True),
        ("Alice Smith", "Alice Smith <alice@x.org>", True),
        ("Alice", "Alicia", False),
        ("Smith Alice", "Alice Smith", False),
        ("KELVIN", "\u212aelvin", True),  # Kelvin sign folds to k
    ],
)
def test_name_rule(query, value, expected):
    assert NameQuery(query).matches(value) is expected


def test_casefold_list_is_complete():
    found = {
        chr(cp)
        for cp in range(0x80, sys.maxunicode + 1)
        if any(c.isascii() and c.isalnum() for c in chr(cp).casefold())
    }
    assert found == set(CASEFOLD_ASCII)


def test_lower_hits_are_casefold_hits():
    """query._text_ok relies on this: lower() never makes ASCII that casefold() would not."""
    for cp in range(0x80, sys.maxunicode + 1):
        low = chr(cp).lower()
        if any(c.isascii() for c in low):
            assert low == chr(cp).casefold(), hex(cp)


# -- block scanner = per-line = library ----------------------------------------------------

CASES = [
    {"speakers": ["Alice"]},
    {"speakers": ["kelvin"]},
    {"speakers": ["alice@x.org"]},
    {"listeners": ["bob"]},
    {"tags": ["Urgent"]},
    {"tags": ['say "hi"']},
    {"texts": ["strasse"]},
    {"texts": ['say "hi"']},
    {"texts": ["back\\slash"]},
    {"texts": ["JWT tokens"]},
    {"since": "2024-01-01T00:00:00Z"},
    {"until": "2024-01-01T00:00:00Z"},
    {"since": "2023-06-01T00:00:00Z", "speakers": ["alice"]},
    {"regexes": [r"\d+"]},
    {"threads": ["t1"]},
    {"speakers": ["alice"], "tags": ["urgent"], "texts": ["jwt"]},
]

RECORDS = [
    rec("We use JWT tokens", "Alice Smith <alice@x.org>", tags=["URGENT"], listeners=["Bob"]),
    rec("nothing here", "Alicia", ts="2023-01-01T00:00:00Z"),
    rec("Die Straße ist lang", "\u212aelvin", tags=['say "hi"']),
    rec('he did say "hi" twice', "Carol", ts="2022-05-05T05:05:05+02:00"),
    rec("a back\\slash and 42", "alice", thread="t1", ts="2024-05-01T00:00:00.123Z"),
    rec("jwt again", "ALICE", tags=["urgent"], listeners=["bob@x.org"], id="t1"),
    rec("no time", "Alice", ts=None),
    rec("nested", "Alice", extra={"timestamp": "1999-01-01T00:00:00Z"}),
]


@pytest.mark.parametrize("filters", CASES, ids=lambda f: repr(f)[:40])
@pytest.mark.parametrize("escapes", [False, True], ids=["utf8", "ascii-escapes"])
def test_block_scan_equals_per_line_and_library(filters, escapes):
    data = dump(RECORDS, ascii_escapes=escapes)
    expected = library(RECORDS, **filters)
    for block_size in (1 << 22, 7, 64):
        got = scan(data, block_size, **filters)
        assert [m.record for m in got] == expected, block_size
        assert [m.record for m in scan(data, block_size, lazy=True, **filters)] == expected
        assert [m.record for m in scan(data, block_size, need_record=False, **filters)] == expected
    assert [m.record for m in per_line(data, **filters)] == expected


def test_raw_bytes_and_line_numbers_are_kept():
    data = (
        b"\xef\xbb\xbf"
        + dump(RECORDS[:2]).replace(b"\n", b"\r\n", 1)
        + b"\n  \n"
        + dump([RECORDS[5]])
    )
    got = scan(data, 16, speakers=["alice"])
    assert [m.line for m in got] == [1, 5]
    assert got[0].raw == orjson.dumps(RECORDS[0])
    assert got[1].where == "mem:5"


@pytest.mark.parametrize("lazy", [False, True], ids=["counted", "located"])
@pytest.mark.parametrize("filters", [{}, {"speakers": ["alice"]}, {"texts": ["alice"]}])
def test_bad_lines_are_reported_with_their_number(lazy, filters):
    bad = b'{"textChunks": ["alice broken\n' + b'["alice", 2]\n'
    data = b"\xef\xbb\xbf" + dump([RECORDS[0]]) + bad + dump([RECORDS[5]]) + b"\n" + bad
    for size in (32, 1 << 20):
        errors: list = []
        got = scan(data, size, errors=errors, lazy=lazy, **filters)
        assert len(got) == len(library([RECORDS[0], RECORDS[5]], **filters))
        assert [n for _, n in errors] == [2, 3, 6, 7]
        assert errors[0][0] == "mem:2"


def test_torn_last_line_is_reported_as_truncated():
    data = dump([RECORDS[0]]) + b'{"textChunks": ["alice", "timestamp":"2024-01-01T00:00:00Z"'
    errors: list = []
    got = scan(data, 1 << 10, need_record=False, errors=errors, since="2000-01-01T00:00:00Z")
    assert len(got) == 1
    assert errors and errors[0][1] == 2


def test_time_only_passes_lines_through_unparsed():
    data = dump(RECORDS[:2])
    got = scan(data, need_record=False, since="2024-01-01T00:00:00Z")
    assert [m._record for m in got] == [None]
    assert got[0].record == RECORDS[0]  # parsed on demand


def test_iter_blocks_covers_every_line():
    data = b"a\nbb\n\nccc"
    for size in (1, 2, 3, 100):
        blocks = list(iter_blocks(io.BytesIO(data), size))
        assert b"".join(b for b, _, _ in blocks) == data
        assert blocks[-1][2] is True


def test_limit_and_reverse():
    data = dump([rec(str(i), id=str(i)) for i in range(10)])
    sel = Selector(Filters(limit=3, reverse=True))
    got = list(sel.select_parts([_Part(data)]))
    assert [m.record["id"] for m in got] == ["9", "8", "7"]
    sel = Selector(Filters(limit=2))
    assert [m.record["id"] for m in sel.select_parts([_Part(data)])] == ["0", "1"]


def test_raw_file_reads_gzip(tmp_path):
    import gzip

    path = tmp_path / "s.jsonl.gz"
    path.write_bytes(gzip.compress(dump(RECORDS)))
    sel = Selector(Filters(speakers=["alice"]))
    got = [m for b in sel.batches([RawFile(str(path))]) for m in b]
    assert len(got) == len(library(RECORDS, speakers=["alice"]))


_name = st.sampled_from(["Alice", "alice smith <a@x.org>", "Bob", "Straße", "\u212aate", "Zoë", ""])
_text = st.text(alphabet=st.sampled_from(list('ab "\\\n\u00dfK\u212a\u202e\x1bé')), max_size=12)
_record = st.builds(
    rec,
    text=_text,
    speaker=_name,
    ts=st.sampled_from(
        ["2024-03-06T10:00:00Z", "2020-01-01T00:00:00Z", "2024-03-06T10:00:00+01:00"]
    ),
    tags=st.lists(st.sampled_from(["a", "B", "ß", 'q"']), max_size=2),
)
_filters = st.fixed_dictionaries(
    {},
    optional={
        "speakers": st.lists(_name.filter(bool), min_size=1, max_size=2),
        "tags": st.lists(st.sampled_from(["a", "b", "ss", 'q"']), min_size=1, max_size=2),
        "texts": st.lists(_text.filter(str.strip), min_size=1, max_size=2),
        "since": st.sampled_from(["2021-01-01T00:00:00Z", "2024-03-06T09:30:00Z"]),
    },
)


@given(st.lists(_record, max_size=8), _filters, st.booleans(), st.integers(1, 80))
def test_property_block_scan_equals_library(records, filters, escapes, block_size):
    data = dump(records, ascii_escapes=escapes)
    expected = library(records, **filters)
    assert [m.record for m in scan(data, block_size, **filters)] == expected
    assert [m.record for m in scan(data, block_size, need_record=False, **filters)] == expected
    assert [m.record for m in scan(data, block_size, lazy=True, **filters)] == expected


# -- jq agreement (the benchmark's expressions, on a small generated store) ------------


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq not on PATH")
@pytest.mark.parametrize("name", ["speaker", "tag", "since", "text"])
def test_outputs_equal_jq(name, tmp_path):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_query.py"
    spec = importlib.util.spec_from_file_location("bench_query", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    store = tmp_path / "store.jsonl"
    bench.generate(store, 3000)
    jq = subprocess.run(["jq", "-c", bench.JQ[name], str(store)], capture_output=True, check=True)
    sel = Selector(Filters(**_convo_filters(bench.CONVO[name])))
    ours = b"".join(
        m.raw + b"\n" for b in sel.batches([RawFile(str(store))], need_record=False) for m in b
    )
    assert ours == jq.stdout
    assert ours.count(b"\n") > 10


def _convo_filters(argv):
    from convo.core.timestamps import parse_when

    key, value = argv
    if key == "--since":
        return {"since": parse_when(value)}
    return {{"--speaker": "speakers", "--tag": "tags", "--text": "texts"}[key]: [value]}


def test_iter_spans_cover_every_line_once():
    from convo.query.blocks import iter_spans

    data = b"\xef\xbb\xbfa\nbb\n\nccc\ndddd"
    for size in (1, 2, 3, 5, 100):
        spans = list(iter_spans(io.BytesIO(data), size))
        assert b"".join(buf[s:e] for buf, s, e, _, _ in spans) == data[3:]
        assert all(buf[s:e].endswith(b"\n") for buf, s, e, torn, _ in spans if not torn)
        assert spans[-1][3] is True
        for buf, s, e, _, at in spans:
            assert data[at + s : at + e] == buf[s:e]
