"""core.ranges and core.pool: byte ranges on record boundaries, an ordered pool map, a
pool of fresh workers for several maps."""

from __future__ import annotations

import gzip
import itertools
import os

import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core.pool import FreshPool, WorkerDied, ordered_map
from convo.core.ranges import open_range, split, splittable


def _read_all(ranges) -> bytes:
    out = b""
    for r in ranges:
        with open_range(r) as f:
            out += f.read()
    return out


def test_ranges_cover_the_file_and_cut_at_line_starts(tmp_path):
    path = tmp_path / "a.jsonl"
    data = b"".join(b'{"n": %d, "pad": "%s"}\n' % (i, b"x" * (i % 50)) for i in range(5000))
    path.write_bytes(data)
    ranges = split(path, 4, min_size=1000)
    assert len(ranges) == 4
    assert ranges[0].start == 0 and ranges[-1].end == len(data)
    assert all(a.end == b.start for a, b in itertools.pairwise(ranges))
    assert all(data[r.start - 1 : r.start] == b"\n" for r in ranges[1:])
    assert _read_all(ranges) == data


def test_is_start_chooses_record_boundaries(tmp_path):
    path = tmp_path / "a.mbox"
    msg = b"From a@b Mon Jan  1 00:00:00 2024\nSubject: s\n\nbody line\nmore\n\n"
    data = msg * 2000
    path.write_bytes(data)
    ranges = split(path, 3, is_start=lambda line: line.startswith(b"From "), min_size=100)
    assert len(ranges) == 3
    for r in ranges:
        assert data[r.start : r.start + 5] == b"From "
    assert _read_all(ranges) == data


def test_no_boundary_keeps_one_range(tmp_path):
    path = tmp_path / "one.txt"
    path.write_bytes(b"x" * 100_000)
    assert len(split(path, 4, min_size=10)) == 1


def test_small_files_are_not_split(tmp_path):
    path = tmp_path / "small.jsonl"
    path.write_bytes(b"{}\n" * 100)
    assert len(split(path, 8)) == 1


def test_gzip_and_missing_files_are_not_splittable(tmp_path):
    gz = tmp_path / "a.jsonl.gz"
    gz.write_bytes(gzip.compress(b"{}\n"))
    assert not splittable(gz)
    zst = tmp_path / "a.jsonl.zst"
    zst.write_bytes(zstandard.ZstdCompressor().compress(b"{}\n"))
    assert not splittable(zst)  # its bytes were cut as lines (convo stats read garbage)
    plain = tmp_path / "a.jsonl"
    plain.write_bytes(b"{}\n")
    assert splittable(plain)
    assert not splittable(tmp_path / "nope")
    assert not splittable(tmp_path)


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=200),
    parts=st.integers(1, 9),
    trailing=st.booleans(),
)
def test_split_is_exact_for_any_content(tmp_path_factory, lines, parts, trailing):
    path = tmp_path_factory.mktemp("r") / "f"
    data = b"\n".join(lines) + (b"\n" if trailing and lines else b"")
    path.write_bytes(data)
    ranges = split(path, parts, min_size=1)
    assert _read_all(ranges) == data
    assert all(data[r.start - 1 : r.start] == b"\n" for r in ranges[1:])


def _reference_cut(data: bytes, target: int, limit: int, peek: int, is_start) -> int | None:
    """The first line start at or after ``target`` (the line after the target's), before
    ``limit``, whose line fits in ``peek`` bytes and is a start."""
    nl = data.find(b"\n", target - 1)
    pos = nl + 1 if nl >= 0 else None
    while pos is not None and pos < limit:
        end = data.find(b"\n", pos)
        line = data[pos : end + 1] if end >= 0 else data[pos:]
        if not line:
            return None
        if len(line) <= peek and is_start(line):
            return pos
        pos = end + 1 if end >= 0 else None
    return None


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(st.sampled_from([b"", b"a", b"From x", b"From " + b"y" * 30, b"z" * 25]),
                   max_size=30),
    target=st.integers(1, 400),
    step=st.sampled_from([1, 3, 16]),
    peek=st.sampled_from([4, 12, 64]),
)  # fmt: skip
def test_a_cut_reads_bounded_pieces_and_finds_the_first_start(
    tmp_path_factory, lines, target, step, peek
):
    from convo.core import ranges

    data = b"\n".join(lines) + b"\n"
    target = min(target, len(data))
    path = tmp_path_factory.mktemp("cut") / "f"
    path.write_bytes(data)
    is_start = lambda line: line.startswith(b"From ")  # noqa: E731
    limit = min(len(data), target + 50)
    with pytest.MonkeyPatch.context() as mp, open(path, "rb") as f:
        mp.setattr(ranges, "_STEP", step)
        mp.setattr(ranges, "LINE_PEEK", peek)
        mp.setattr(ranges, "SEEK_LIMIT", 50)
        got = ranges._boundary_after(f, target, len(data), is_start)
    assert got == _reference_cut(data, target, limit, peek, is_start)


def test_a_file_without_newlines_is_split_in_flat_memory(tmp_path):
    """Looking for a cut in one 32 MB line holds pieces of it, not half of it."""
    import tracemalloc

    path = tmp_path / "one-line.jsonl"
    with open(path, "wb") as f:
        for _ in range(32):
            f.write(b"x" * (1 << 20))
    tracemalloc.start()
    try:
        assert len(split(path, 2, min_size=1)) == 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20


def _square(n: int) -> int:
    return n * n


def test_ordered_map_keeps_order_on_several_processes():
    assert list(ordered_map(_square, range(50), jobs=2)) == [n * n for n in range(50)]
    assert list(ordered_map(_square, range(5), jobs=1)) == [0, 1, 4, 9, 16]


def _fail(n: int) -> int:
    if n == 3:
        raise ValueError("three")
    return n


def test_ordered_map_in_fresh_workers_keeps_order_and_raises():
    got = list(ordered_map(_square, range(30), jobs=2, preload=["tests.core.test_ranges"]))
    assert got == [n * n for n in range(30)]
    with pytest.raises(ValueError, match="three"):
        list(ordered_map(_fail, range(10), jobs=2, preload=["tests.core.test_ranges"]))
    # stopping early (a --limit, a closed pipe) ends the workers
    first = ordered_map(_square, range(1000), jobs=2, preload=["tests.core.test_ranges"])
    assert next(first) == 0
    first.close()


def _chatty(n: int) -> int:
    print("a library printing to stdout", n)
    import os

    os.write(1, b"and a raw write to descriptor 1\n")
    return n * n


def test_a_worker_that_prints_does_not_break_the_results(capfd):
    got = list(ordered_map(_chatty, range(20), jobs=2, preload=["tests.core.test_ranges"]))
    assert got == [n * n for n in range(20)]
    assert "a library printing to stdout" in capfd.readouterr().err


def _echo(data: bytes) -> bytes:
    return data


def test_fresh_workers_take_tasks_and_results_larger_than_a_pipe():
    # Run in a child with a timeout: a regression here is a hang, not a failure.
    import subprocess
    import sys

    code = (
        "from convo.core.pool import ordered_map\n"
        "from tests.core.test_ranges import _echo\n"
        "tasks = [bytes([n]) * (1 << 20) for n in range(12)]\n"
        "got = list(ordered_map(_echo, tasks, jobs=2, preload=['tests.core.test_ranges']))\n"
        "assert got == tasks\n"
    )
    done = subprocess.run([sys.executable, "-c", code], timeout=60, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()


_PRELOAD = ["tests.core.test_ranges"]


def _pid(n: int) -> tuple[int, int]:
    import os

    return n, os.getpid()


def _die(n: int) -> int:
    import os

    if n == 2:
        os._exit(3)
    return n


def _gone(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_fresh_pool_runs_several_maps_on_the_same_workers():
    import os

    with FreshPool(2, _PRELOAD) as pool:
        first = list(pool.map(_pid, range(20)))
        assert [n for n, _ in first] == list(range(20))
        pids = {pid for _, pid in first}
        assert len(pids) == 2 and os.getpid() not in pids
        assert list(pool.map(_square, range(30))) == [n * n for n in range(30)]
        assert list(pool.map(_square, [])) == []
        again = list(pool.map(_pid, range(7)))
        assert [n for n, _ in again] == list(range(7)) and {p for _, p in again} == pids
        # closed with nothing owed (every result taken, its end not asked for): usable
        assert list(itertools.islice(pool.map(_square, range(3)), 3)) == [0, 1, 4]
        assert list(pool.map(_square, range(3))) == [0, 1, 4]
        one, other = pool.map(_square, range(9)), pool.map(_square, range(9))
        assert next(one) == 0
        with pytest.raises(RuntimeError, match="another map"):
            next(other)
        assert list(one) == [n * n for n in range(1, 9)]
    assert all(_gone(pid) for pid in pids)  # ended with the block
    with pytest.raises(RuntimeError, match="closed"):
        pool.map(_square, range(3))


def test_fresh_pool_stops_when_a_map_raises_or_is_closed_with_results_owed():
    with FreshPool(2, _PRELOAD) as pool:
        pids = {pid for _, pid in pool.map(_pid, range(4))}
        with pytest.raises(ValueError, match="three"):
            list(pool.map(_fail, range(10)))
        assert all(_gone(pid) for pid in pids)  # killed: their answers are not wanted
        with pytest.raises(RuntimeError, match="a map raised"):
            list(pool.map(_square, range(3)))
    # a --limit, a closed pipe: the answers owed would be read as the next map's
    with FreshPool(2, _PRELOAD) as pool:
        results = pool.map(_square, range(1000))
        assert next(results) == 0
        results.close()
        with pytest.raises(RuntimeError, match="results owed"):
            pool.map(_square, range(3))


def test_fresh_pool_reports_a_worker_that_died():
    with FreshPool(2, _PRELOAD) as pool:
        with pytest.raises(WorkerDied, match=r"a worker process \(pid \d+\) ended \(exit 3\)"):
            list(pool.map(_die, range(10)))
        with pytest.raises(RuntimeError, match="closed"):
            pool.map(_square, range(3))


def test_fresh_pool_kills_its_workers_when_its_block_raises():
    with pytest.raises(KeyError), FreshPool(2, _PRELOAD) as pool:
        results = pool.map(_pid, range(100))
        pids = {next(results)[1], next(results)[1]}
        raise KeyError("stop")
    assert all(_gone(pid) for pid in pids)


def test_fresh_pool_last_map_ends_each_worker_after_its_last_task():
    with FreshPool(2, _PRELOAD) as pool:
        assert list(pool.map(_square, range(5))) == [0, 1, 4, 9, 16]
        results = pool.map(_pid, range(2), last=True)
        assert next(results)[0] == 0  # worker 0's one task; both were given out
        # worker 0 ends (its memory freed) while the map still owes worker 1's answer
        assert pool._workers[0].proc.wait(timeout=60) == 0
        assert [n for n, _ in results] == [1]
        with pytest.raises(RuntimeError, match="closed"):
            pool.map(_square, range(3))


def test_fresh_pool_of_one_job_runs_in_this_process():
    import os

    with FreshPool(1, _PRELOAD) as pool:
        assert list(pool.map(_pid, range(3))) == [(n, os.getpid()) for n in range(3)]
        assert list(pool.map(_square, range(3))) == [0, 1, 4]
        with pytest.raises(ValueError, match="three"):
            list(pool.map(_fail, range(10)))
        with pytest.raises(RuntimeError, match="a map raised"):
            pool.map(_square, range(3))  # as with workers
    with FreshPool(1, _PRELOAD) as pool:
        assert list(pool.map(_square, range(3), last=True)) == [0, 1, 4]
        with pytest.raises(RuntimeError, match="closed"):
            pool.map(_square, range(3))  # as with workers


def test_the_range_readers_ask_the_guard(tmp_path):
    """A file this run is writing as it goes (the ``--warnings`` log) is not cut or read
    as an input, and a file cut is an input no output may replace (``core.guard``): the
    range readers ask as every other open of an input does (``core.io``)."""
    from convo.core import guard
    from convo.core.errors import InputError
    from convo.core.ranges import Range

    data = b"".join(b'{"n": %d}\n' % i for i in range(5000))
    log, read = tmp_path / "w.jsonl", tmp_path / "a.jsonl"
    log.write_bytes(data)
    read.write_bytes(data)
    guard.reset()
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    try:
        guard.writing(fd, "the --warnings file")
        for attempt in (
            lambda: split(log, 4, min_size=1000),
            lambda: open_range(Range(str(log), 0, 10)),
        ):
            with pytest.raises(InputError, match="the --warnings file, written by this run"):
                attempt()
        assert guard.role_of(read) is None
        ranges = split(read, 4, min_size=1000)
        assert guard.role_of(read) == guard.INPUT
        guard.reset()
        with open_range(ranges[1]):
            assert guard.role_of(read) == guard.INPUT
    finally:
        guard.done_writing(fd)
        os.close(fd)
        guard.reset()
