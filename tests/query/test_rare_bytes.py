"""The rare bytes found in one pass (``query/rarebytes.py``) are what the regexes they
replace find (``prefilter.ASCII_ESCAPE``, ``canonical.NOT_OBJECT``,
``rawkeys.has_control``) on hostile bytes and any span; and the scans that use them
(``format:`` plain values, a time alone) select and report what their plain twin (the
regexes) selects, on stores of both layouts with escapes, CR, a BOM, control bytes,
odd lines, unicode and no trailing newline."""

from __future__ import annotations

import json
from contextlib import contextmanager

# A dependency on this machine's architecture (pyproject.toml): missing, the module fails.
import hyperscan
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.query.test_raw_decisions import Part

from convo.query import rarebytes
from convo.query.canonical import NOT_OBJECT
from convo.query.filters import Filters
from convo.query.language import parse
from convo.query.prefilter import ASCII_ESCAPE
from convo.query.rawkeys import has_control
from convo.query.rawtext import CHUNKS_NAME
from convo.query.scan import Selector
from convo.query.tree import to_filters

# Bytes that make or break the three patterns, and their neighbours.
_ALPHABET = [
    b"\\", b"u", b"0", b"7", b"8", b"e", b"{", b"}", b"\n", b"\r", b"\t", b" ", b'"',
    b"\x00", b"\x01", b"\x08", b"\x0b", b"\x0c", b"\x0e", b"\x1f", b"\x7f", b"\xc3\xa9",
    b"\xef\xbb\xbf", b"\\u00", b"\\u0041", b"\\u00e9", b"\\u007d", b"\n{", b"\n\n",
    b'"textChunks"', b"textChunks", b'"textChunks',
]  # fmt: skip


@contextmanager
def _engine(on: bool):
    """Scans in this process with the engine (``on``) or with the regexes only."""
    rarebytes.load()
    rarebytes.activate(on)
    try:
        yield
    finally:
        rarebytes.activate(False)


def _regexes(buf: bytes, start: int, end: int, look: int) -> int:
    return look & (
        rarebytes.ESCAPE * (ASCII_ESCAPE.search(buf, start, end) is not None)
        + rarebytes.ODD * (NOT_OBJECT.search(buf, start, end) is not None)
        + rarebytes.CONTROL * has_control(buf[start:end])
        + rarebytes.CHUNKS * (buf.find(CHUNKS_NAME, start, end) >= 0)
    )


def test_each_kind_is_found_and_nothing_else():
    with _engine(True):
        assert rarebytes.found(b"") == 0
        assert rarebytes.found(b'{"a": "caf\\u00e9"}\n{}\n') == 0
        assert rarebytes.found(b'{"a": "\\u0041"}') == rarebytes.ESCAPE
        assert rarebytes.found(b"{}\n x") == rarebytes.ODD
        assert rarebytes.found(b"{}\n\n{}") == rarebytes.ODD  # a blank line too
        assert rarebytes.found(b"{}\n") == 0  # a newline that ends the span
        assert rarebytes.found(b'{"a": "\x00"}') == rarebytes.CONTROL
        assert rarebytes.found(b'{"a":\t1}\r\n{}') == 0  # tab, CR: not control bytes
        assert rarebytes.found(b"{}\n x", 0, 3) == 0  # the span only
        text = b'{"text_chunks": [], "textChunks": 1}'
        assert rarebytes.found(text, look=rarebytes.LOOKS[2]) == rarebytes.CHUNKS
        assert rarebytes.found(text) == 0  # not looked for
    with _engine(False):
        assert rarebytes.found(b"\x00") is None


def test_only_the_thread_that_activated_it_uses_it():
    from concurrent.futures import ThreadPoolExecutor

    with _engine(True), ThreadPoolExecutor(1) as other:
        assert rarebytes.found(b"\x00") == rarebytes.CONTROL
        assert other.submit(rarebytes.found, b"\x00").result() is None  # the regexes


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_ALPHABET), max_size=40), st.data())
def test_property_found_is_what_the_regexes_find(pieces, data):
    buf = b"".join(pieces)
    start = data.draw(st.integers(0, len(buf)))
    end = data.draw(st.integers(start, len(buf)))
    with _engine(True):
        for look in rarebytes.LOOKS:
            assert rarebytes.found(buf, start, end, look) == _regexes(buf, start, end, look)
            assert rarebytes.found(buf, look=look) == _regexes(buf, 0, len(buf), look)


_PLAIN = {
    "textChunks": ["caf\u00e9 \u65e5\u672c \U0001f389"],
    "metadata": {"speaker": "Quinn", "listeners": []},
    "tags": [],
    "timestamp": "2019-05-05T05:05:05Z",
    "source_id": "s",
    "id": "i",
    "format": "slack",
}
# What a line may carry: escapes that spell ASCII (a key, a brace), Latin-1 escapes, a
# control byte, a CR, a nested or later key, an object that is not one.
_TAILS = [
    b"", b',"x":"a\\u007d"', b',"f\\u006frmat":"slack"', b',"\\u0066ormat":"mbox"',
    b',"t\\u0069mestamp":"1990-01-01T00:00:00Z"', b',"x":"\x01"', b',"x":"caf\\u00e9"',
    b',"x":{"format":"slack"}', b',"format":"mbox"', b',"x":"\\u0000"', b"} ",
    b',"textChunks":5', b',"text_chunks":5', b',"x":"textChunks"',
]  # fmt: skip
_ODD = [b"", b"not json", b"[1]", b"  ", b"\r", b"\xef\xbb\xbf{}"]
_QUERIES = ["format:slack", "format:mbox OR format:slack", "--since", "--until"]


def _render(record: dict, style: str, tail: bytes) -> bytes:
    if style == "python":
        renamed = {("text_chunks" if k == "textChunks" else k): v for k, v in record.items()}
        line = json.dumps(renamed).encode()
    elif style == "spaced":
        line = json.dumps(record, ensure_ascii=False).encode()
    else:
        line = orjson.dumps(record)
    return line[:-1] + tail + b"}" if tail else line


def _filters(query: str) -> Filters:
    if query == "--since":
        return Filters(since="2018-01-01T00:00:00Z")
    if query == "--until":
        return Filters(until="2018-01-01T00:00:00Z")
    return to_filters(parse(query))


def _scan(data: bytes, query: str, need_record: bool, reopenable: bool):
    bad: list[int] = []
    sel = Selector(_filters(query))
    batches = sel.batches(
        [Part(data, reopenable)], lambda e, ln: bad.append(ln.number), need_record
    )
    return [(m.raw, m.line) for b in batches for m in b], bad


def _twins(data: bytes, query: str) -> None:
    for need_record in (False, True):
        for reopenable in (False, True):
            with _engine(True):
                got = _scan(data, query, need_record, reopenable)
            with _engine(False):
                plain = _scan(data, query, need_record, reopenable)
            assert got == plain, (query, need_record, reopenable)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["slack", "mbox", "SLACK", "sl\u00e4ck"]),
            st.sampled_from(["2016-03-04T05:06:07Z", "2018-01-01T00:00:00Z", "2024-02-29"]),
            st.sampled_from(_TAILS),
        ),
        min_size=1,
        max_size=25,
    ),
    st.sampled_from(["orjson", "python", "spaced"]),
    st.sampled_from(_QUERIES),
    st.sampled_from([None, *_ODD]),
    st.sampled_from([b"\n", b"\r\n"]),
    st.booleans(),
    st.booleans(),
)
def test_property_the_scans_select_what_their_regex_twins_do(
    rows, style, query, odd, newline, bom, trailing
):
    lines = [
        _render({**_PLAIN, "format": fmt, "timestamp": stamp}, style, tail)
        for fmt, stamp, tail in rows
    ]
    if odd is not None:
        lines.insert(len(lines) // 2, odd)
    data = (b"\xef\xbb\xbf" if bom else b"") + newline.join(lines) + (newline if trailing else b"")
    _twins(data, query)


def test_a_store_of_each_layout_scans_as_its_twin():
    lines = [
        _render({**_PLAIN, "format": f, "timestamp": t}, style, b"")
        for style in ("orjson", "python")
        for f, t in [("slack", "2019-01-01T00:00:00Z"), ("mbox", "2017-01-01T00:00:00Z")] * 50
    ]
    for query in _QUERIES:
        _twins(b"\n".join(lines) + b"\n", query)
        _twins(b"\n".join(lines), query)  # no newline after the last line


def test_the_scans_look_with_the_engine(monkeypatch):
    from convo.query import canonical, linescan

    calls: list[int | None] = []

    def counted(found):
        def inner(*args, **kwargs):
            calls.append(found(*args, **kwargs))
            return calls[-1]

        return inner

    monkeypatch.setattr(linescan, "found", counted(linescan.found))
    monkeypatch.setattr(canonical, "rare_found", counted(canonical.rare_found))
    lines = [_render(_PLAIN, "python", b"")] * 20
    with _engine(True):
        for query in ("format:slack", "--since"):
            calls.clear()
            got, _ = _scan(b"\n".join(lines) + b"\n", query, False, True)
            assert len(got) == 20 and calls and 0 in calls, query


@pytest.mark.parametrize("query", _QUERIES)
def test_a_parallel_scan_with_the_engine_equals_one_core(tmp_path, monkeypatch, query):
    """The workers of a parallel scan use the engine its parent loaded; the one-core scan
    in this process keeps the regexes: the same lines, numbers and reports."""
    from tests.query.test_parallel_scan import _scan as scan_file

    from convo.query import parallel

    monkeypatch.setattr(parallel, "RANGE", 40_000)  # many ranges on a small file
    lines = []
    for i in range(3000):
        record = {**_PLAIN, "format": ["slack", "mbox"][i % 2]}
        record["timestamp"] = f"20{10 + i % 15}-01-01T00:00:00Z"
        tail = _TAILS[i // 97 % len(_TAILS)] if i % 97 == 0 else b""  # most blocks plain
        lines.append(_render(record, ["orjson", "python"][i // 1500], tail))
    lines[700] = b"not json"
    lines[2100] = b""
    data = b"\xef\xbb\xbf" + b"\n".join(lines[:1000]) + b"\r\n" + b"\n".join(lines[1000:])
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    filters = {name: getattr(_filters(query), name) for name in _filters(query)._fields}
    rarebytes.activate(False)
    for need_record in (False, True):
        one = scan_file(path, filters, cores=False, need_record=need_record)
        many = scan_file(path, filters, cores=True, need_record=need_record)
        assert many == one
    assert rarebytes.load() and rarebytes.found(b"\\u0041") is None  # loaded, not used here


def test_an_engine_that_cannot_run_here_leaves_the_regexes(monkeypatch):
    """Hyperscan refuses a CPU without SSSE3 when it compiles; a broken install fails to
    import: either way the scan keeps its regexes, no error reaches the user."""

    def refuse() -> None:
        raise hyperscan.error("HS_ARCH_ERROR")  # what the engine raises on such a CPU

    monkeypatch.setattr(rarebytes, "_engine", None)
    monkeypatch.setattr(rarebytes, "_compiled", refuse)
    assert rarebytes.load() is False
    assert rarebytes.activate() is False and rarebytes.found(b"\\u0041") is None
    rarebytes.activate(False)


def _found_in_a_child() -> int | None:
    """What a forked scan worker finds, as ``parallel.scan_range`` uses the engine."""
    rarebytes.activate()
    return rarebytes.found(b"\x00")


def _scan_long(big: bytes, started, out: dict, errors: list) -> None:
    rarebytes.activate()
    try:
        started.set()
        out["long"] = rarebytes.found(big)
    except Exception as e:  # what another thread's use of its scratch space does
        errors.append(e)
    finally:
        rarebytes.activate(False)


def _while_a_thread_scans(then):
    """``then()`` while another thread is inside the engine's scan (it releases the GIL
    there); what each got, and the errors."""
    import threading
    import time

    assert rarebytes.load()
    big = b"{" * (256 << 20)  # about 30 ms of scanning (the sleep below: 5)
    started, out, errors = threading.Event(), {}, []
    worker = threading.Thread(target=_scan_long, args=(big, started, out, errors))
    worker.start()
    started.wait()
    time.sleep(0.005)
    try:
        out["then"] = then()
    except Exception as e:
        errors.append(e)
    finally:
        worker.join()
    return out, errors


def test_threads_that_scan_at_once_each_have_their_own_scratch_space():
    """The web view and the MCP server run queries in threads, and a range the parallel
    scan cannot cut is scanned in the calling thread: one scratch space for all was
    hyperscan's ``ScratchInUseError`` (a traceback) when two threads scanned at once."""

    def short() -> int | None:
        rarebytes.activate()
        try:
            return rarebytes.found(b"\x00")
        finally:
            rarebytes.activate(False)

    out, errors = _while_a_thread_scans(short)
    assert not errors and out == {"long": 0, "then": rarebytes.CONTROL}


def test_a_process_forked_while_a_thread_scans_makes_its_own_scratch_space():
    """A scan worker forked while another thread of the parent is inside a scan inherits
    that scratch space marked in use: it makes its own."""
    import os

    def fork() -> bytes:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: its answer on the pipe, and out (no pytest teardown)
            try:
                os.write(w, repr(_found_in_a_child()).encode())
            except BaseException as e:
                os.write(w, type(e).__name__.encode())
            finally:
                os._exit(0)
        os.close(w)
        try:
            return os.read(r, 200)
        finally:
            os.close(r)
            os.waitpid(pid, 0)

    out, errors = _while_a_thread_scans(fork)
    assert not errors and out == {"long": 0, "then": str(rarebytes.CONTROL).encode()}


def test_a_range_scanned_in_the_calling_thread_leaves_its_later_scans_as_they_were(tmp_path):
    """A file the parallel scan does not cut (one range) is scanned by the calling thread
    itself: the engine serves that range, and the thread's later scans are as before."""
    from tests.query.test_parallel_scan import _scan as scan_file

    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join([_render(_PLAIN, "python", b"")] * 50) + b"\n")
    filters = _filters("format:slack")
    fields = {name: getattr(filters, name) for name in filters._fields}
    rarebytes.load()
    got, _, _ = scan_file(path, fields, cores=True, need_record=False)
    assert len(got) == 50
    assert rarebytes.found(b"\x00") is None
