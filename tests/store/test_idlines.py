"""``rm`` and ``tag`` by id parse only the lines that may hold an id (``store.idlines``):
the same store bytes, results and index as the plain copy that parses every line."""

from __future__ import annotations

import json
import sqlite3

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from convo.index import check, refresh
from convo.index.schema import index_path
from convo.store import Store
from convo.store.idlines import needles, pieces, required_ids
from convo.store.rewrite import remove, tag

IDS = ["k1", "k10", "a/b", 'q"x', "é1", "t\\1", "zz", "ü/ß", "y2", "w3"]


def _line(i: int, rid: str, style: int) -> bytes:
    record = {
        # some texts hold a backslash and u (an escape's look-alike: parsed), or an id
        "textChunks": [f"text {i} \u00e9" + (" k1 \\u0041" if i % 4 == 3 else "")],
        "metadata": {"speaker": "Alice", "listeners": []},
        "tags": ["inbox"] if i % 2 else [],
        "timestamp": f"2024-01-0{1 + i % 9}T00:00:00Z",
        "id": rid,
        "extra": {"id": IDS[(i + 3) % len(IDS)]} if i % 3 == 0 else {},
    }
    if style == 0:
        return orjson.dumps(record)
    if style == 1:  # Python's json.dumps: every non-ASCII character a \\u escape
        return json.dumps(record).encode()
    if style == 2:  # spaces, and / written \\/ as some writers do
        return json.dumps(record, ensure_ascii=False, indent=None).replace("/", "\\/").encode()
    # an id spelled with an escape of an ASCII character
    return orjson.dumps(record).replace(b'"id":"k', b'"id":"\\u006b', 1)


LINES = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(IDS), st.integers(0, 3)),
        st.sampled_from([b"", b"not json", b'{"torn": ']),
    ),
    max_size=12,
)


def _write(path, items, *, bom: bool, newline: bool) -> None:
    lines = [x if isinstance(x, bytes) else _line(i, x[0], x[1]) for i, x in enumerate(items)]
    data = b"\n".join(lines) + (b"\n" if newline and lines else b"")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)


def _rows(path):
    conn = sqlite3.connect(index_path(path))
    try:
        return conn.execute(
            "SELECT message_id, byte_offset, byte_length FROM messages ORDER BY message_id"
        ).fetchall()
    finally:
        conn.close()


def _outcome(path, result):
    return (path.read_bytes(), result.matched, result.changed, result.ids)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    items=LINES,
    wanted=st.sets(st.sampled_from(IDS), min_size=1, max_size=3),
    bom=st.booleans(),
    newline=st.booleans(),
    indexed=st.booleans(),
    op=st.sampled_from(["rm", "tag", "untag"]),
    block=st.sampled_from([7, 64, 300, 1 << 20]),  # reads that end inside lines, or none
)
def test_fast_path_is_the_plain_copy(
    tmp_path_factory, items, wanted, bom, newline, indexed, op, block
):
    from unittest import mock

    with mock.patch("convo.store.idlines.BLOCK", block):
        _same_as_plain(tmp_path_factory, items, wanted, bom, newline, indexed, op)


def _same_as_plain(tmp_path_factory, items, wanted, bom, newline, indexed, op):
    out = []
    for fast in (True, False):
        path = tmp_path_factory.mktemp("s") / "s.jsonl"
        _write(path, items, bom=bom, newline=newline)
        if indexed:
            refresh(path)
        store = Store(path)
        # fast: the ids (only the lines that may hold one are parsed); plain: the same
        # selection as a predicate (every line parsed)
        by_id = {"ids": sorted(wanted)}
        kw = by_id if fast else {"matcher": lambda r: r.get("id") in wanted}
        if op == "rm":
            result = remove(store, **kw)
        else:
            change = {"add": ["x"]} if op == "tag" else {"remove": ["inbox"]}
            result = tag(store, **change, **kw)
        out.append(_outcome(path, result))
        if indexed:  # the index followed alike (a partial last line: stale, both)
            out[-1] += (_rows(path), check(path).ok or not newline)
    assert out[0] == out[1]


@pytest.mark.parametrize("op", ["rm", "tag"])
@pytest.mark.parametrize("where", [0, 2, 5])
def test_the_index_follows_runs_copied_unread(tmp_path_factory, op, where):
    """A change, then runs of unread lines (to the end, and between changes): every row
    after it moves, as the plain copy moves it."""
    items = [("zz", 0)] * 6
    items[where] = ("k1", 0)
    items[(where + 3) % 6] = ("y2", 0)
    _same_as_plain(tmp_path_factory, items, {"k1", "y2"}, False, True, True, op)
    _same_as_plain(tmp_path_factory, items, {"k1"}, False, True, True, op)


REST = b'"textChunks":["t"],"metadata":{"speaker":"A"},"timestamp":"2024-01-01T00:00:00Z"}'


@pytest.mark.parametrize(
    ("spelled", "rid"),
    [
        (b'"\\u006b1"', "k1"),  # an ASCII letter escaped
        (b'"a\\/b"', "a/b"),  # a solidus escaped
        (b'"\\u00e91"', "\u00e91"),  # a non-ASCII letter escaped
        (b'"\\u00fc\\/\\u00df"', "\u00fc/\u00df"),  # both
        (b'"q\\u0022x"', 'q"x'),  # a quote escaped another way
    ],
)
@pytest.mark.parametrize("op", ["rm", "tag"])
def test_an_id_spelled_with_escapes_is_found(tmp_path_factory, spelled, rid, op):
    line = b'{"id":' + spelled + b"," + REST
    other = b'{"id":"zz",' + REST
    assert orjson.loads(line)["id"] == rid
    for items in ([line, other, other], [other, line, other]):
        _same_as_plain(tmp_path_factory, items, {rid}, False, True, True, op)
        _same_as_plain(tmp_path_factory, items, {rid}, False, True, False, op)


def test_pieces_cover_the_file_and_mark_the_lines(tmp_path):
    path = tmp_path / "s.jsonl"
    lines = [orjson.dumps({"id": i, "textChunks": [i]}) for i in ("m1", "m10", "a/b")]
    lines += [b"", b'{"id": "m2", "textChunks": ["caf\\u00e9"]}']  # a Latin-1 escape
    path.write_bytes(b"\xef\xbb\xbf" + b"\n".join(lines))
    with open(path, "rb") as f:
        got = list(pieces(f, needles(["a/b"])))
    data = path.read_bytes()
    assert b"".join(chunk for _, chunk, _ in got) == data
    assert all(data[o : o + len(c)] == c for o, c, _ in got)
    marked = [c for _, c, line in got if line]
    assert marked[0].startswith(b"\xef\xbb\xbf")  # the mark's line goes to the copy
    assert any(b'"id":"a/b"' in c for c in marked)
    assert len(marked) == 2  # not m10, nor the escape of a non-ASCII character


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("id:a", {"a"}),
        ("id:a OR id:b", {"a", "b"}),
        ("id:a from:bob", {"a"}),
        ("id:a OR from:bob", None),
        ("-id:a", None),
        ("from:bob", None),
    ],
)
def test_required_ids(query, expected):
    q = Store("/nonexistent/s.jsonl").query_of(query)
    got = required_ids(q.where)
    assert (set(got) if got is not None else None) == expected


def test_a_dry_run_the_index_answers_reads_no_line(tmp_path, monkeypatch):
    path = tmp_path / "s.jsonl"
    _write(path, [("m1", 0), ("m10", 0), ("m1", 1)], bom=False, newline=True)
    refresh(path)
    import convo.store.rewrite as rewrite

    def unread(*a, **k):
        raise AssertionError("the store was read line by line")

    monkeypatch.setattr(rewrite, "_rewrite", unread)
    store = Store(path)
    rm = store.remove("id:m1", dry_run=True)
    assert (rm.matched, rm.ids, rm.changed, rm.dry_run) == (2, ["m1", "m1"], 0, True)
    assert store.tag("id:m10", add=["x"], dry_run=True).matched == 1
    assert store.tag("id:m10", add=["inbox"], dry_run=True).matched == 0  # it has it
    assert store.tag("id:m1 OR id:m10", remove=["INBOX"], dry_run=True).ids == ["m10"]


def test_a_dry_run_from_the_index_holds_no_selection(tmp_path):
    """The dry run the index answers counts the records as they pass (its first
    ``SHOW_IDS`` ids kept, as the copy's dry run): it held every selected record, memory
    growing with the selection."""
    import tracemalloc

    path = tmp_path / "s.jsonl"
    text = "x" * 400
    with path.open("wb") as f:
        for i in range(20_000):
            f.write(orjson.dumps({"textChunks": [f"{text} {i}"], "metadata": {"speaker": "Ann",
                    "listeners": []}, "tags": [], "timestamp": "2024-01-01T00:00:00Z",
                    "source_id": f"s#{i}", "id": f"m{i}", "format": "jsonl"}) + b"\n")  # fmt: skip
    refresh(path)
    store = Store(path)
    tracemalloc.start()
    try:
        rm = store.remove("from:Ann", dry_run=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rm.matched == 20_000 and len(rm.ids) == 1000 and rm.changed == 0
    assert peak < 4 << 20, peak  # the 20,000 records parsed: about 14 MB held


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from([b"", b"x", b'"id":"m1"', b"\\u006d1", b"long" * 9, b"\xef\xbb\xbfa"]),
        max_size=12,
    ),
    st.booleans(),
    st.integers(1, 40),
)
def test_lines_and_pieces_cover_any_file_at_any_block_size(lines, newline, block):
    """``rewrite._physical_lines`` and ``idlines.pieces``, both on ``query.blocks.
    iter_spans``: every byte once, at its offset, in order; a candidate piece is one line
    and the lines that may hold the id are all candidates, whatever the read size."""
    import io
    from unittest import mock

    import convo.store.idlines as idlines_mod
    import convo.store.rewrite as rewrite_mod

    data = b"\n".join(lines) + (b"\n" if newline and lines else b"")
    with (
        mock.patch.object(rewrite_mod, "BLOCK", block),
        mock.patch.object(idlines_mod, "BLOCK", block),
    ):
        got = list(rewrite_mod._physical_lines(io.BytesIO(data)))
        found = needles(["m1"])
        assert found is not None
        cut = list(pieces(io.BytesIO(data), found))
    assert [line for _, line in got] == data.splitlines(keepends=True)
    assert all(data[o : o + len(c)] == c for o, c in got)
    assert b"".join(c for _, c, _ in cut) == data
    assert all(data[o : o + len(c)] == c for o, c, _ in cut)
    marked = [c for _, c, line in cut if line]
    assert all(c.count(b"\n") <= 1 and (c.endswith(b"\n") or c is cut[-1][1]) for c in marked)
    want = [x for x in data.splitlines(keepends=True) if b"m1" in x or b"\\u00" in x]
    assert [c for c in marked if not c.startswith(b"\xef\xbb\xbf") or c in want] == want
