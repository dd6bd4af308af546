"""The Parquet export of large JSONL inputs on several cores, with the files one process writes.

``export_parts(parts, filters, out_dir, ...)`` takes this path when
``convo.analysis.parallel.plan`` cuts the inputs into byte ranges (regular, uncompressed
JSONL files or the store, no ``--limit``/``--reverse``, at least ``MIN_BYTES``) and the
export is partitioned; otherwise it returns None and the caller streams the records
through ``parquet.write_parquet`` in one process (imported formats, stdin, small inputs,
``--partition-by ''``: one file whose row groups follow the one stream).

Two rounds on one pool of fresh interpreters (``core.pool.FreshPool``), started once:
1. each range is selected (``analysis.parallel.range_matches``: the one-core scan),
   validated (``common.validated``), converted (``parquet.batches``) and spilled, sorted
   by partition, into the export's hidden spill folder by ``parquet.PartitionedWriter``
   exactly as one process spills its buffers; the worker returns only where each
   partition's batches are (file, batch number), its bad lines and rejects;
2. the parent joins those lists in range order (so each partition's rows keep input
   order) and hands out the partitions, ``PARTITIONS_PER_TASK`` at a time; a worker reads
   a partition's batches back and writes its one file as ``PartitionedWriter.close`` does.
Tasks are paths and offsets, results a few lists: no records cross between processes.
Bad lines and rejects are reported with the file's line numbers, in line order.

Memory: the parent never imports pyarrow; each worker holds one range's buffer (about
``BUFFER`` and its sorted copy) or one partition.

Where the CPU goes (issue 41: 100k records/s; the 1M-record benchmark store, both rounds
in one process under cProfile with a CPU clock and under perf, 2026-12-03, before the
changes named here): about 20 s of CPU, round 1 twelve of them: Arrow's JSON read 3.5 s,
its timestamp check 1.9 s and line checks 0.7 s (now about 0.13 and 0.35 s, ``arrow_json``),
the columns 0.7 s, the spill 3.8 s (sort, take, and an IPC write of 77k batches of 13
rows: 600 partitions a flush; halved by ``BUFFER``); round 2 eight: reading the batches
back and joining them 3.7 s, Parquet encoding with snappy 2.5 s, 600 writers set up
0.5 s, the text column joined 0.5 s, 1,200 files and folders made 0.2-0.6 s (the
kernel's inode allocation). perf puts a fifth of it in the kernel (page-cache copies of
the spill, zeroed pages, new files) and a tenth in malloc. Tried and not kept: writing
the files without a dictionary for a record's own values (text, ids, times): 1.07× less
CPU for the write, pairs 0.99-1.12×, within its noise (the files 4% smaller); glibc's
and Arrow's allocator settings: no gain above the noise. Next in line: fewer spill
batches at the same memory (one IPC batch per group of partitions, read back as slices).
The whole export now takes 14.6-15.5 s of CPU: at 2 cores about 8 s of wall time on an
idle machine (an estimate: not measured), and the benchmark's wall time shows the load.

Decision: ``MIN_BYTES`` = 64 MB. Measured on this project's 2-core machine shared with
other jobs (load 3.5), the 100k-record, 50 MB benchmark store: one process 1.9-2.1 s of
CPU, 2.8-4.8 s wall; two workers 3.0 s of CPU (the four interpreters that import pyarrow,
when each round started its own, cost about 1 s), 4.5-4.7 s wall. Below about 64 MB the
pool does not pay on a shared machine; on the 1M store it does (BENCHMARKS.md,
Scale-out).
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from convo.analysis import parallel
from convo.core.errors import RecordError
from convo.core.jsonl import Line
from convo.core.pool import FreshPool
from convo.importers.context import Rejection
from convo.output.exporters.dataset import dataset_folder
from convo.output.exporters.parquet import check_partitions
from convo.query.filters import Filters

MIN_BYTES = 64 << 20
PARTITIONS_PER_TASK = 16
# A worker's buffer: smaller than one process's (``parquet.BUFFER_BYTES``, ``BATCH_ROWS``),
# as two workers run at once; the files are the same either way (``combine_chunks``).
# Each flush spills one IPC batch per partition, and an IPC batch costs about 20 µs to
# write whatever its rows (a flush of 8k rows over the 1M store's 600 partitions: 13-row
# batches, most of the spill's CPU), so a larger buffer means fewer, fuller batches. 6 MB
# against 3 MB, the whole 1M-record export (3 alternating pairs at load 11-14): 14.8
# against 17.1 s of CPU (each pair 1.15-1.21×), peak memory of the process tree 171-182
# against 184-199 MB (the target is 200; the peak is the workers' imports and round 2's
# partitions as much as this buffer).
BUFFER = 6 << 20
ROWS = 2_000
# The fast read of a range (``arrow_json``), one block of lines at a time; ``FAST`` off:
# every range the plain way (the twin the tests compare).
FAST = True
FAST_BLOCK = 1 << 20
_PRELOAD = ("convo.output.exporters.parquet_parallel",)

Key = tuple[str, ...]
Report = tuple[int, str, str | None, bytes]  # line number in the range, what, hint, raw


@dataclass(frozen=True)
class SpillTask:
    """Round 1: one range, spilled as ``<number>-<k>.arrow`` files into ``spill``."""

    range: parallel.RangeTask
    number: int
    root: str
    spill: str
    partition_by: Key


@dataclass
class Spilled:
    """Where a range's rows went: per partition (file, batch) in order, and its reports."""

    runs: dict[Key, list[tuple[str, int]]]
    count: int
    lines: int
    reports: list[tuple[int, bool, Report]] = field(default_factory=list)  # bool: a bad line


@dataclass(frozen=True)
class WriteTask:
    """Round 2: a few partitions' files, each from its spilled batches."""

    root: str
    partition_by: Key
    partitions: list[tuple[Key, list[tuple[str, int]]]]


def spill_range(task: SpillTask) -> Spilled:
    """Round 1 in a worker: select, validate, convert and spill one range.

    Without a filter, the range is read in blocks (``_blocks``), each by Arrow's JSON
    reader where it can be (``arrow_json.json_batch``), else the plain way, with line
    numbers shifted to the range's. Gain: 2.25× less CPU for this round over the
    100k-record control file (824 against 1,851 ms, noise ±18%;
    ``benchmarks/bench_fastpaths.py``); the whole 1M-record export took 17-19 s of CPU
    against 27-30 s (two alternating pairs of whole commands)."""
    from convo.core.collector import fewer_collections
    from convo.output.exporters.common import validated
    from convo.output.exporters.parquet import PartitionedWriter, arrow_schema, batches

    report = parallel.RangeReport()
    rejects: list[Report] = []
    before = 0  # the lines of the range before the part being read (``_blocks``)

    def reject(m: Any, e: RecordError) -> None:
        rejects.append((m.line + before, e.what, e.hint, m.raw))

    _worker_setup()
    schema = arrow_schema()
    writer = PartitionedWriter(
        Path(task.root), schema, task.partition_by, Path(task.spill), f"{task.number}-", BUFFER
    )
    count = 0
    with fewer_collections():
        if not FAST or not task.range.filters.is_empty() or task.range.people is not None:
            records = validated(parallel.range_matches(task.range, report), reject)
            for batch in batches(records, schema, ROWS):
                count += batch.num_rows
                writer.write(batch)
        else:
            for rt, fast in _blocks(task.range):
                got: Iterable[Any]
                if fast is not None:
                    got = [fast]
                    lines = fast.num_rows
                else:  # the plain path, its line numbers shifted to the range's
                    part = parallel.RangeReport()
                    got = batches(validated(parallel.range_matches(rt, part), reject), schema, ROWS)
                for batch in got:
                    count += batch.num_rows
                    writer.write(batch)
                if fast is None:
                    report.bad += [(n + before, what, hint, raw) for n, what, hint, raw in part.bad]
                    lines = part.lines
                before += lines
            report.lines = before
        writer.flush()
    runs = {key: [(writer.spills[s], n) for s, n in held] for key, held in writer.runs.items()}
    reports = [(r[0], True, r) for r in report.bad] + [(r[0], False, r) for r in rejects]
    reports.sort(key=lambda r: r[0])  # stable: a line is either bad or rejected
    return Spilled(runs, count, report.lines, reports)


def _blocks(task: parallel.RangeTask) -> Iterator[tuple[parallel.RangeTask, Any]]:
    """``task``'s range in blocks of whole lines (about ``FAST_BLOCK`` bytes): each as a
    task of its own and its export batch read by ``arrow_json.json_batch`` (None where
    the block takes the plain path). No block but the range's first starts with a BOM:
    the plain read of a range drops one there (it would start the file), while inside
    the range that line is a bad one."""
    from convo.core.jsonl import BOM
    from convo.core.ranges import Range
    from convo.output.exporters.arrow_json import json_batch
    from convo.output.exporters.parquet import arrow_schema

    schema = arrow_schema()
    r = task.range
    with open(r.path, "rb") as f:
        at = r.start
        while at < r.end:
            data = os.pread(f.fileno(), min(FAST_BLOCK, r.end - at), at)
            if not data:
                break
            if at + len(data) < r.end:
                cut = data.rfind(b"\n")
                if cut < 0:  # a line longer than a block: up to its end
                    more = _line_end(f.fileno(), at + len(data), r.end)
                    data = os.pread(f.fileno(), more - at, at)
                else:
                    data = data[: cut + 1]
            end = at + len(data)
            while end < r.end and os.pread(f.fileno(), len(BOM), end) == BOM:
                end = _line_end(f.fileno(), end, r.end)  # see the docstring
            if end != at + len(data):
                data = os.pread(f.fileno(), end - at, at)
            sub = parallel.RangeTask(Range(r.path, at, at + len(data)), task.filters, task.people)
            yield sub, json_batch(data, schema)
            at += len(data)


def _line_end(fd: int, at: int, end: int) -> int:
    """Just after the first newline at or after ``at`` (``end`` if none before it)."""
    while at < end:
        chunk = os.pread(fd, min(1 << 20, end - at), at)
        i = chunk.find(b"\n")
        if i >= 0:
            return at + i + 1
        at += len(chunk)
    return end


def write_partitions(task: WriteTask) -> int:
    """Round 2 in a worker: write the partitions' files; returns how many rows."""
    from convo.output.exporters.parquet import PartitionedWriter, SpillReader, arrow_schema

    _worker_setup()
    writer = PartitionedWriter(Path(task.root), arrow_schema(), task.partition_by)
    spills = SpillReader()
    rows = 0
    for key, refs in task.partitions:
        table = spills.table(refs, writer)
        rows += table.num_rows
        writer.write_file(key, table)
        del table
    spills.close()
    return rows


class _NoPandas:
    """An import finder that says pandas is not installed (see ``_worker_setup``)."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def _worker_setup() -> None:
    """A worker's memory (measured on the benchmark store, per worker): pyarrow imports
    pandas, when it is installed, on its first ``pyarrow.array`` call to ask whether the
    list is a pandas object (12-16 MB of modules and their data, never used here: these
    processes only run this module's tasks, so the import is made to fail); and Arrow's
    buffers come from malloc, as the default pool (mimalloc) keeps what was freed."""
    if "pandas" not in sys.modules and _NoPandas not in sys.meta_path:
        sys.meta_path.insert(0, _NoPandas)
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())
    pa.set_cpu_count(1)  # one worker a core: Arrow's threads would only add malloc arenas


class _Reports:
    """Round 1's bad lines and rejects, with the file's line numbers, in input order."""

    def __init__(self, on_error: Callable[[RecordError, Line], None] | None, on_reject):
        self.on_error = on_error
        self.on_reject = on_reject
        self.before: dict[str, int] = {}  # lines of the ranges already seen, per file

    def add(self, name: str, spilled: Spilled) -> None:
        offset = self.before.get(name, 0)
        self.before[name] = offset + spilled.lines
        for _, bad, (number, what, hint, raw) in spilled.reports:
            n = number + offset
            where = f"{name}:{n}"
            if bad:
                if self.on_error is not None:
                    self.on_error(RecordError(what, where=where, hint=hint), Line(n, raw))
            elif self.on_reject is not None:
                self.on_reject(Rejection(where, what, hint, raw))


def export_parts(
    parts: list[Any],
    filters: Filters,
    out_dir: str | Path,
    *,
    partition_by: Iterable[str] = ("format", "month"),
    jobs: int | None = None,
    on_error: Callable[[RecordError, Line], None] | None = None,
    on_reject: Callable[[Rejection], None] | None = None,
) -> int | None:
    """Export the records ``filters`` select in ``parts`` on several cores (see the module
    docstring); the count, or None when they should be exported in one process."""
    chosen = check_partitions(partition_by)
    tasks = parallel.plan(parts, filters, jobs) if chosen else None
    if tasks is None or sum(t.range.size for t in tasks) < MIN_BYTES:
        return None
    if importlib.util.find_spec("pyarrow") is None:  # not imported here (memory)
        from convo.core.extras import missing

        raise missing("Parquet", "pyarrow", "parquet")
    with dataset_folder(out_dir) as folder:
        return _export(folder, tasks, chosen, jobs, _Reports(on_error, on_reject))


def _export(
    target: Path, tasks: list[Any], chosen: Key, jobs: int | None, reports: _Reports
) -> int:
    spill: str | None = None
    try:
        with FreshPool(parallel.workers(tasks, jobs), _PRELOAD) as pool:
            spill = tempfile.mkdtemp(prefix=".convo-spill-", dir=target)
            runs: dict[Key, list[tuple[str, int]]] = {}
            round1 = [SpillTask(t, i, str(target), spill, chosen) for i, t in enumerate(tasks)]
            count = 0
            for task, spilled in zip(round1, pool.map(spill_range, round1), strict=True):
                for key, refs in spilled.runs.items():
                    runs.setdefault(key, []).extend(refs)
                count += spilled.count
                reports.add(task.range.range.path, spilled)
            round2 = [WriteTask(str(target), chosen, group) for group in _groups(runs)]
            written = sum(pool.map(write_partitions, round2, last=True))
        assert written == count, (written, count)
    finally:
        if spill is not None:
            shutil.rmtree(spill, ignore_errors=True)
    return count


def _groups(runs: dict[Key, list[tuple[str, int]]]) -> Iterator[list[tuple[Key, Any]]]:
    items = iter(runs.items())
    while group := list(itertools.islice(items, PARTITIONS_PER_TASK)):
        yield group
