"""Matches kept as runs of adjacent lines read back as the lines themselves, and a file
scanned on several cores gives what one core gives: bytes, line numbers, warnings."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from convo.pipeline.inputs import RawFile
from convo.query import matches, parallel
from convo.query.filters import Filters
from convo.query.matches import RawBatch, Runs
from convo.query.scan import Selector, select


def test_runs_join_adjacent_lines_only():
    buf = b"aa\nbb\r\ncc\n\ndd\nee"
    runs = Runs(counted=True)
    runs.add(0, 2, 1)  # aa
    runs.add(3, 5, 2)  # bb (its \r left out): the line after it is not adjacent
    runs.add(7, 9, 3)  # cc
    runs.add(11, 13, 5)  # dd (after a blank line)
    runs.add(14, 16, 6)  # ee, torn
    assert list(runs.starts) == [0, 7, 11] and list(runs.counts) == [2, 1, 2]
    batch = RawBatch(buf, 0, runs, 0, len(runs), "f")
    assert len(batch) == 5 == runs.size()
    assert [(m.raw, m.line) for m in batch] == [
        (b"aa", 1), (b"bb", 2), (b"cc", 3), (b"dd", 5), (b"ee", 6),
    ]  # fmt: skip
    assert batch.joined == b"aa\nbb\ncc\ndd\nee\n"
    assert batch[3].where == "f:5"


@given(
    st.lists(st.tuples(st.integers(0, 30), st.booleans()), min_size=1, max_size=40),
    st.integers(1, 100),
)
def test_property_runs_grow_only_within_run_max(lines, run_max):
    """Adjacent lines join a run while it stays within ``RUN_MAX`` (a parallel scan's
    parent reads a run back in one piece); read back, the runs are the lines added, by
    ``add`` or ``add_lines``, whatever their sizes."""
    data = b"".join(b"x" * n + b"\n" for n, _ in lines)
    runs = Runs(counted=False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(matches, "RUN_MAX", run_max)
        at = 0
        for n, one in lines:
            if one:
                runs.add(at, at + n)
            else:
                runs.add_lines([at], [at + n])
            at += n + 1
    assert all(
        e - s <= run_max or c == 1
        for s, e, c in zip(runs.starts, runs.ends, runs.counts, strict=True)
    )
    batch = RawBatch(data, 0, runs, 0, len(runs), "f")
    assert batch.joined == data
    assert [m.raw for m in batch] == [b"x" * n for n, _ in lines]


def test_runs_of_a_mask_and_of_lines_merge_with_the_runs_before():
    runs = Runs(counted=False)
    runs.base = 100
    runs.add(0, 4)  # bytes 100-104, newline at 104
    runs.base = 105  # the next block starts right after
    runs.add_lines([0, 11], [9, 13])  # joins the run before; then one after a gap
    runs.add_mask([20, 25, 30, 35], b"\x01\x00\x01", 0)  # lines of 4 bytes + newline
    assert list(zip(runs.starts, runs.ends, runs.counts, strict=True)) == [
        (100, 114, 2), (116, 118, 1), (125, 129, 1), (135, 139, 1),
    ]  # fmt: skip
    assert runs.numbers is None


@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4)), max_size=12),
    st.integers(-2, 3),
)
def test_property_runs_of_lines_equal_adding_each_line(lines, gap_before):
    """``add_lines`` (the runs found in C loops) makes the runs adding each line does,
    joining the run before when the first line follows it."""
    starts, ends, at = [], [], 10 + gap_before
    for gap, size in lines:  # gap 0: right after the previous line's newline
        at += gap
        starts.append(at)
        ends.append(at + size)
        at += size + 1
    one, each = Runs(counted=False), Runs(counted=True)
    for r in (one, each):
        r.add(0, 9)  # the newline at 9: a first line at 10 joins this run
        r.base = 0
    one.add_lines(starts, ends)
    for s, e in zip(starts, ends, strict=True):
        each.add(s, e)
    assert (one.starts, one.ends, one.counts) == (each.starts, each.ends, each.counts)
    assert one.numbers is None and each.numbers is not None
    assert len(each.numbers) == len(each.starts)


_LINE = st.one_of(
    st.builds(
        lambda i, speaker, tag, year, text: orjson.dumps(
            {
                "textChunks": [text],
                "metadata": {"speaker": speaker, "listeners": []},
                "tags": [tag],
                "timestamp": f"{year}-01-01T00:00:00Z",
                "source_id": f"s#{i}",
                "id": f"i{i}",
                "format": "jsonl",
            }
        ),
        st.integers(0, 10**6),
        st.sampled_from(["Quinn", "Wen Li", "Bob"]),
        st.sampled_from(["urgent", "calm"]),
        st.integers(2010, 2025),
        st.sampled_from(["a budget talk", "went home", "Straße", "plain"]),
    ),
    st.sampled_from([b"", b"  ", b"not json", b'{"textChunks": ["budget broken', b"[1]"]),
)
_FILTERS = [
    {"speakers": ["quinn"]},
    {"speakers": ["wen"]},
    {"tags": ["urgent"]},
    {"since": "2018-01-01T00:00:00Z"},
    {"texts": ["budget"]},
    {"speakers": ["quinn"], "since": "2018-01-01T00:00:00Z", "texts": ["budget"]},
]


def _scan(path: Path, filters: dict, cores: bool, need_record: bool):
    sel = Selector(Filters(**filters))
    sel.parallel = 1 if cores else None
    errors: list = []
    got = [
        (m.raw, m.line, m.where)
        for batch in sel.batches(
            [RawFile(str(path))],
            lambda e, line: errors.append((e.what, line.number, line.raw)),
            need_record,
        )
        for m in batch
    ]
    return got, errors, sel.lines_read()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(_LINE, min_size=1, max_size=120),
    st.sampled_from([b"\n", b"\r\n"]),
    st.booleans(),
    st.booleans(),
    st.sampled_from(_FILTERS),
)
def test_property_many_cores_equal_one(tmp_path_factory, lines, eol, bom, torn, filters):
    path = tmp_path_factory.mktemp("scan") / "s.jsonl"
    body = eol.join(lines) + (b"" if torn else b"\n")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + body)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel, "RANGE", 600)  # many ranges on a small file
        mp.setattr(parallel, "WINDOW", 400)  # several windows per range, and gaps
        mp.setattr(parallel, "_GAP", 150)
        # Lines passed through (the runs); records wanted: tests/query/test_parallel_scan.py.
        many = _scan(path, filters, True, False)
        assert many == _scan(path, filters, False, False)
    assert [raw for raw, _, _ in many[0]] == _parsed(lines, filters)


def _windows(starts: list[int], ends: list[int], window: int, gap: int) -> list[tuple]:
    """The batches a loop over the runs makes: a run opens a window, the next runs join
    it while they start less than ``gap`` after the one before and end within ``window``."""
    out, i = [], 0
    while i < len(starts):
        j = i + 1
        while j < len(starts) and starts[j] - ends[j - 1] < gap and ends[j] - starts[i] <= window:
            j += 1
        out.append((starts[i], ends[j - 1], i, j))
        i = j
    return out


@given(
    st.lists(st.tuples(st.integers(1, 90), st.integers(0, 60)), max_size=30),
    st.integers(1, 200),
    st.integers(1, 100),
)
def test_property_windows_are_those_of_a_loop_over_the_runs(tmp_path_factory, runs, window, gap):
    """The bisections that cut a range's runs into windows cut them as the loop does."""
    starts, ends, at = [], [], 0
    for before, size in runs:
        at += before
        starts.append(at)
        ends.append(at + size)
        at += size
    path = tmp_path_factory.mktemp("win") / "f"
    data = bytes(range(256)) * (at // 256 + 1)
    path.write_bytes(data)
    result = parallel.RangeResult(Runs(counted=False), [], 0)
    result.runs.starts.extend(starts)
    result.runs.ends.extend(ends)
    result.runs.counts.extend([1] * len(starts))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel, "WINDOW", window)
        mp.setattr(parallel, "_GAP", gap)
        fd = os.open(path, os.O_RDONLY)
        try:
            scan = parallel.ParallelScan(None, str(path), "f")  # type: ignore[arg-type]
            got = [
                (b.window_at, b.runs.ends[b.hi - 1], b.lo, b.hi, b.window)
                for b in scan._matches(fd, result, 0)
            ]
        finally:
            os.close(fd)
    want = _windows(starts, ends, window, gap)
    assert [g[:4] for g in got] == want
    # Each window is read with the byte after its last run (its newline), if any.
    assert all(g[4] == data[g[0] : g[1] + 1] for g in got)


def _parsed(lines: list[bytes], filters: dict) -> list[bytes]:
    """The lines a parse and the exact checks select."""
    records = []
    for raw in lines:
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict):
            records.append((raw, record))
    wanted = list(select([r for _, r in records], Filters(**filters)))
    return [raw for raw, r in records if any(r is w for w in wanted)]


def test_a_bad_line_after_a_blank_line_is_reported_by_a_needle_scan(tmp_path):
    # A hypothesis find: "\n[^{]" matched the blank line's newline with the next
    # newline, so the bad line after a blank one was skipped on one core, not on two.
    good = (
        b'{"textChunks":["a budget talk"],"metadata":{"speaker":"Quinn","listeners":[]},'
        b'"tags":[],"timestamp":"2010-01-01T00:00:00Z","source_id":"s#0","id":"i0"}'
    )
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join([good] * 8 + [b"", b"not json"] + [good] * 3) + b"\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel, "RANGE", 600)
        many = _scan(path, {"speakers": ["quinn"]}, True, False)
    one = _scan(path, {"speakers": ["quinn"]}, False, False)
    assert one == many
    assert [(what[:12], n) for what, n, _ in one[1]] == [("invalid JSON", 10)]
