"""The query scan of one large file on every core, with the output of a one-core scan.

The file is cut into byte ranges on line boundaries (``core.ranges.split``); each range
is scanned in a worker process (``core.pool.ordered_map``) by the same ``BlockScan`` as
a one-core scan, and the results come back in file order. A worker returns offsets, not
lines: the runs of adjacent matched lines (``matches.Runs``: where each starts and
ends, how many lines it holds and, when lines are counted, its first line's number) and
the bad lines (rare) as they are. The parent reads the matched bytes back with
``os.pread``: runs closer than ``_GAP`` in one window of up to ``WINDOW`` bytes, so what
crosses between processes is a few bytes per run and the parent's memory stays flat.

Line numbers are those of a one-core scan: a range counts its own lines and the parent
adds the lines of the ranges before it; a scan that does not count (needle scans) gives
matches line 0 and locates a bad line from its offset, as the one-core scan does.

Workers are forked (``core.pool.ordered_map`` without ``preload``: the standard
library's ``ProcessPoolExecutor``). Fresh interpreters that import only this module
(``core.pool.FreshPool``) were used before, for memory: a forked worker's resident set
counts the pages it shares with the command line (about 30 MB each). Counted as
proportional set sizes (each shared page once, which is what the machine spends), the
forked tree is the smaller, and no faster or slower: ``convo query`` on the 1M-record
benchmark store, 5 alternating rounds on this 2-core machine at load 10, fork against
fresh: ``--tag urgent`` CPU 1.22 against 1.29 s (ratios 0.84-1.05), peak 29 against
36 MB; ``--since 2018-01-01`` 2.93 against 2.85 s (0.94-1.03), 40 against 48 MB;
``--speaker Wen`` 1.69 against 1.71 s (0.83-1.12), 33 against 39 MB. The pools alone
(``benchmarks/bench_pool.py``): starting and ending one, fork 0.53× fresh's wall time.

Decisions (figures from this project's 2-core machine, while 7 other jobs shared it,
load 10-15; ``benchmarks/bench_query.py`` measures whole commands):
- ``MIN_PARALLEL`` = 64 MiB. Measured (medians of 5, alternating, ``--tag``/``--since``):
  one core scanned 8/16/32/64 MiB in 0.11/0.23/0.50/0.76 s (tag) and 0.34/0.54/1.05/
  2.27 s (since); two workers took 0.17/0.32/0.58/1.05 s forked and 1.4-2.3 s fresh:
  with no idle core, no size paid, and starting fresh interpreters cost about 1 s.
  On an idle machine a one-core scan runs about 240 MB/s (BENCHMARKS.md: 500 MB in
  2.1 s for ``--since``) and a fresh worker starts in well under 0.1 s, so the split
  pays from roughly 32-64 MiB; 64 MiB keeps small stores and files in one process.
- ``RANGE`` = 16 MiB: enough ranges to keep both workers busy to the end, few enough
  that per-range costs vanish (the compiled filter is reused per worker); at most
  ``2 * jobs`` results wait in the parent.
"""

from __future__ import annotations

import os
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import compress, repeat
from operator import ge, sub
from typing import Any, cast

from convo.core.errors import InputError
from convo.core.heap import keep_freed
from convo.core.jsonl import committed_end
from convo.core.pool import cpu_count, ordered_map
from convo.core.ranges import Range, open_range, split, splittable
from convo.query import rarebytes
from convo.query.blocks import BLOCK, LineLocator, iter_spans
from convo.query.compiled import Compiled
from convo.query.filters import Filters
from convo.query.linescan import Bad, BlockScan, ErrorHandler, report
from convo.query.matches import Match, RawBatch, Runs

MIN_PARALLEL = 64 << 20
RANGE = 16 << 20
WINDOW = 1 << 20
# Runs closer than this are read in one pread: a batch (pread, write, the Python around
# them) costs about what copying 64 KiB more does.
_GAP = 64 << 10


@dataclass(frozen=True)
class Task:
    """One range to scan, with what the worker needs to scan it as the parent would."""

    filters: Filters
    range: Range
    ident: tuple[int, int]  # (st_dev, st_ino) of the file the parent opened
    need_record: bool
    block_size: int


@dataclass
class RangeResult:
    runs: Runs  # file offsets of the matched lines; line numbers within the range
    bad: list[Bad]  # ``at`` is a file offset, ``number`` relative to the range
    lines: int  # lines in the range (0 when not counted)


_compiled: dict[Any, Compiled] = {}


def _plan(filters: Filters) -> Compiled:
    """The compiled filter of a worker, built once per worker and filter."""
    key = repr(filters)
    plan = _compiled.get(key)
    if plan is None:
        _compiled.clear()
        plan = _compiled[key] = Compiled.of(filters)
    return plan


def scan_range(task: Task) -> RangeResult:
    """Scan one range (in a worker): offsets of its matches, its bad lines, its lines."""
    keep_freed()  # the blocks' buffers (core/heap.py)
    # The rare bytes in one pass when the parent loaded the engine, for this range only:
    # a file of one range is scanned in the calling thread, whose other scans keep theirs.
    with rarebytes.active():
        return _scan_range(task)


def _scan_range(task: Task) -> RangeResult:
    plan = _plan(task.filters)
    lazy = plan.starts is not None
    rng = task.range
    runs = Runs(counted=not lazy)
    bad: list[Bad] = []
    first = 1
    with open_range(rng) as stream:
        st = os.fstat(stream.fileno())
        if (st.st_dev, st.st_ino) != task.ident:
            raise InputError("the file was replaced while it was read", where=rng.path)
        spans = iter_spans(stream, task.block_size, bom=rng.start == 0)
        for buf, start, end, torn, at in spans:
            runs.base = base = rng.start + at
            scan = BlockScan(plan, buf, rng.path, torn, task.need_record, runs)
            count = scan.span(start, end, first, lazy)
            bad.extend(b._replace(at=base + b.at) for b in scan.bad)
            first += count
    return RangeResult(runs, bad, first - 1)


def eligible(part: Any, size_floor: int = MIN_PARALLEL) -> str | None:
    """The path of a raw part worth scanning on several cores, else None."""
    path = getattr(part, "path", None)
    if path is None or not getattr(part, "reopenable", False) or cpu_count() < 2:
        return None
    try:
        if os.path.getsize(path) < size_floor or not splittable(path):
            return None
    except OSError:
        return None
    return path


class ParallelScan:
    """The batches of one file scanned on ``jobs`` processes (see the module docstring)."""

    def __init__(self, plan: Compiled, path: str, name: str, block_size: int = BLOCK):
        self.plan = plan
        self.path = path
        self.name = name
        self.block_size = block_size
        self.lines = 0  # lines counted (counted scans)

    def batches(self, on_error: ErrorHandler, need_record: bool) -> Iterator[list[Match]]:
        fd = os.open(self.path, os.O_RDONLY)
        locator = LineLocator(lambda: open(self.path, "rb"))  # noqa: SIM115 - closed by it
        try:
            with os.fdopen(os.dup(fd), "rb") as probe:
                end = committed_end(probe, self.path, snapshot=True)
            st = os.fstat(fd)
            end = st.st_size if end is None else end
            ranges = split(
                self.path, max(2, -(-end // RANGE)), end=end, min_size=min(RANGE, 1 << 20)
            )
            tasks = [
                Task(self.plan.filters, r, (st.st_dev, st.st_ino), need_record, self.block_size)
                for r in ranges
            ]
            jobs = min(cpu_count(), len(tasks))
            if self.plan.time_only or (self.plan.fields and self.plan.fields.values):
                rarebytes.load()  # once, here: the workers fork with it (query/rarebytes.py)
            keep_freed()  # the windows read back (core/heap.py)
            base = 0
            for result in ordered_map(scan_range, tasks, jobs):
                report(_rebased(result.bad, base), self.name, on_error, locator)
                yield from self._matches(fd, result, base)
                base += result.lines
            self.lines = base
        finally:
            os.close(fd)
            locator.close()

    def _matches(self, fd: int, result: RangeResult, base: int) -> Iterator[list[Match]]:
        """The range's matches, a batch per window read (so memory stays flat)."""
        runs = result.runs
        starts, ends, numbers = runs.starts, runs.ends, runs.numbers
        if numbers is not None and base:
            runs.numbers = numbers = array("q", [base + k for k in numbers])
        n = len(starts)
        # Where a window must end because of a gap (a run ``_GAP`` or more after the one
        # before it), found in C loops: the runs are ordered, so each window's end is a
        # bisection, not a Python step per run (dense matches make many short runs).
        gaps = list(compress(range(1, n), map(ge, map(sub, starts[1:], ends), repeat(_GAP))))
        i, k = 0, 0
        while i < n:
            while k < len(gaps) and gaps[k] <= i:
                k += 1
            w0 = starts[i]
            j = bisect_right(ends, w0 + WINDOW, i + 1, n)  # the first run past the window
            if k < len(gaps):
                j = min(j, gaps[k])
            w1 = ends[j - 1]
            # One byte more: the newline after the last run, so that a window of one run
            # is written as read (``RawBatch.joined``), not copied to add it.
            batch = RawBatch(os.pread(fd, w1 - w0 + 1, w0), w0, runs, i, j, self.name)
            yield cast(list[Match], batch)  # a list[Match] to every reader (see RawBatch)
            i = j


def _rebased(bad: list[Bad], base: int) -> list[Bad]:
    """Counted line numbers of a range made file line numbers."""
    return [b._replace(number=base + b.number) if b.number else b for b in bad]
