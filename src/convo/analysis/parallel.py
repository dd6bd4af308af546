"""Analyses of large JSONL inputs on several cores: one byte range per task, merged in order.

``plan(parts, filters, jobs)`` decides: when every input is a regular, uncompressed
JSONL file (a named records file or the store), the filters keep no ``--limit`` or
order, and the inputs hold at least ``PARALLEL_MIN_BYTES``, it cuts them into ranges on
line boundaries (``convo.core.ranges.split``); otherwise it returns None and the caller
reads the inputs in this process. ``jobs=None`` means the CPU count.

A worker reads its range with the same ``Selector`` a one-core read uses
(``range_records``), so the records it analyses are the ones a one-core run analyses;
the analysis functions (``convo.analysis.stats.stats_of_range``,
``convo.analysis.knowledge.ranges``) return a mergeable summary plus a ``RangeReport``:
the lines the range holds and its bad lines with line numbers relative to the range.
``Rebase`` turns those into the file's line numbers (adding the lines of the ranges
before) and reports them in input order, so warnings and exit codes equal a one-core run.

Decision: the threshold is 32 MB. Forking the workers and merging costs about 0.1 s;
below about 30 MB (60,000 records of the benchmark store) one core finishes ``stats``
in about that time, so the pool would not pay (see benchmarks/bench_analysis.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from convo.core.errors import RecordError
from convo.core.fields import is_record
from convo.core.jsonl import Line, committed_end, parse_record_line
from convo.core.pool import cpu_count
from convo.core.ranges import Range, open_range, split, splittable
from convo.query.filters import Filters

PARALLEL_MIN_BYTES = 32 << 20
RANGES_PER_JOB = 4  # several ranges per worker even out uneven ranges
RANGE_MIN_BYTES = 1 << 20  # no range smaller than this
READ_BYTES = 1 << 20  # the blocks ``range_lines`` reads (convo.query.blocks.BLOCK)


@dataclass(frozen=True)
class RangeTask:
    """One range of one input and the filters that select its records (picklable)."""

    range: Range
    filters: Filters
    people: Any = None  # a core.people.People: names rewritten to persons (picklable)


@dataclass
class RangeReport:
    """What a range read: its line count and bad lines (relative numbers, raw bytes)."""

    lines: int = 0
    bad: list[tuple[int, str, str | None, bytes]] = field(default_factory=list)


class _RangePart:
    """A range as a raw JSONL part for ``Selector.batches`` (lines counted, numbers from 1)."""

    def __init__(self, r: Range):
        self.range = r
        self.name = r.path

    def open(self):
        return open_range(self.range)


def range_records(task: RangeTask, report: RangeReport) -> Iterator[dict[str, Any]]:
    """The selected records of one range; bad lines and the line count go to ``report``."""
    people = task.people
    for m in range_matches(task, report):
        yield m.record if people is None else people.canonical_record(m.record)


def range_matches(task: RangeTask, report: RangeReport) -> Iterator[Any]:
    """The selected ``query.scan.Match``es of one range (line numbers relative to it, the
    records parsed); bad lines and the line count go to ``report``."""
    from convo.query.scan import Selector

    selector = Selector(task.filters)

    def bad(error: RecordError, line: Line) -> None:
        report.bad.append((line.number, error.what, error.hint, line.raw))

    for batch in selector.batches([_RangePart(task.range)], bad, need_record=True):
        yield from batch
    report.lines = selector.lines_read()


class RawReader(Protocol):
    """What ``range_lines`` asks of a reader of raw lines."""

    def block(self, block: bytes, lines: int) -> bool: ...

    def take(self, line: bytes) -> bool: ...


def range_lines(
    task: RangeTask, report: RangeReport, reader: RawReader | None
) -> Iterator[dict[str, Any]]:
    """Each block of lines of one range offered to ``reader.block(block, lines)``, and
    when it declines the block each line to ``reader.take(line)``; the records of the
    lines it does not take, parsed. ``reader`` None takes nothing: every line is parsed,
    and no block's lines are counted nor any line offered (``convo knowledge``: the
    count and a call a line were 4.2k of the 356k instructions a message costs there,
    23.7k -> 19.5k to read and parse a record; cachegrind over 20k records of
    benchmarks/bench_query.py's store).

    For a task without filters: the lines, line numbers and bad lines are those of
    ``range_records`` (``convo.query.linescan.BlockScan.lines`` without filters: a CR
    before the newline is dropped, a blank line skipped, any other line that is not a
    JSON object reported), which this loop repeats so that taken lines skip the parse.
    """
    from convo.query.blocks import iter_spans

    people = task.people
    first = 1
    with open_range(task.range) as stream:
        for buf, start, end, torn, _ in iter_spans(stream, READ_BYTES):
            block = buf[start:end]
            if reader is not None:
                count = block.count(b"\n") + (block[-1:] != b"\n")
                if reader.block(block, count):
                    first += count
                    continue
            lines = block.split(b"\n")
            if not lines[-1]:
                lines.pop()
            take = reader.take if reader is not None else None
            last = len(lines) - 1
            for i, line in enumerate(lines):
                if take is not None and take(line):
                    continue
                try:  # most lines: a JSON object (a CR before the newline is whitespace)
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    record = None
                if not is_record(record):
                    record = _parsed(task.range.path, line, first + i, torn and i == last, report)
                    if record is None:
                        continue
                yield record if people is None else people.canonical_record(record)
            first += len(lines)
    report.lines = first - 1


def _parsed(
    name: str, raw: bytes, number: int, torn: bool, report: RangeReport
) -> dict[str, Any] | None:
    """The record of one line, or None (a bad line goes to ``report``)."""
    if raw[-1:] == b"\r":
        raw = raw.rstrip(b"\r")
    try:
        record = orjson.loads(raw)
    except orjson.JSONDecodeError:
        record = None
    if is_record(record):
        return record
    if raw.strip():
        try:
            parse_record_line(Line(number, raw, torn), name)
        except RecordError as e:
            report.bad.append((number, e.what, e.hint, raw))
    return None


def selected(
    parts: list[Any], filters: Filters, on_error=None, people: Any = None, *, scan_on_cores=True
) -> Iterator[dict[str, Any]]:
    """The selected records of ``parts`` read in this process (the one-core path), each
    speaker and listener as their person's name when ``people`` (a core.people.People).
    A large file's lines are found on every core (``query.parallel.ParallelScan``)
    unless ``scan_on_cores`` is False (``--jobs 1``: every step in this process)."""
    from convo.query.scan import Selector

    selector = Selector(filters)
    if not scan_on_cores:
        selector.parallel = None
    for m in selector.select_parts(parts, on_error):
        yield m.record if people is None else people.canonical_record(m.record)


def workers(tasks: list[RangeTask], jobs: int | None) -> int:
    """The processes to run ``tasks`` on."""
    return max(1, min(cpu_count() if jobs is None else jobs, len(tasks)))


def _files(parts: list[Any]) -> list[str] | None:
    """The paths of ``parts`` when every one is a file that can be split, else None."""
    paths = [getattr(p, "path", None) for p in parts]
    if not paths or not all(isinstance(p, str) and splittable(p) for p in paths):
        return None
    return [p for p in paths if isinstance(p, str)]


def _end(path: str) -> int:
    """Where a reader stops in ``path``: before a live writer's unfinished line
    (``core.jsonl.committed_end``, as ``core.io.open_binary`` reads the file)."""
    with open(path, "rb") as f:
        end = committed_end(f, path, snapshot=True)  # (an append begun after: not read)
        return os.fstat(f.fileno()).st_size if end is None else end


def whole_files(parts: list[Any], filters: Filters, people: Any = None) -> list[RangeTask] | None:
    """One task per input covering all of it, when every input is a file ``plan`` could
    cut (the one-core form of the range readers), else None; None too with ``--limit``
    or ``--reverse``, which only the ordered read honours."""
    if filters.limit is not None or filters.reverse:
        return None
    paths = _files(parts)
    if paths is None:
        return None
    return [RangeTask(Range(p, 0, _end(p)), filters, people) for p in paths]


def plan(
    parts: list[Any], filters: Filters, jobs: int | None, people: Any = None
) -> list[RangeTask] | None:
    """The range tasks for ``parts``, or None when they should be read in this process."""
    jobs = cpu_count() if jobs is None else jobs
    if jobs <= 1 or filters.limit is not None or filters.reverse:
        return None
    paths = _files(parts)
    if paths is None:
        return None
    total = sum(os.path.getsize(p) for p in paths)
    if total < PARALLEL_MIN_BYTES:
        return None
    tasks: list[RangeTask] = []
    for path in paths:
        share = max(1, round(jobs * RANGES_PER_JOB * os.path.getsize(path) / total))
        ranges = split(path, share, min_size=RANGE_MIN_BYTES, end=_end(path))
        tasks.extend(RangeTask(r, filters, people) for r in ranges)
    return tasks


class Rebase:
    """Reports each range's bad lines with the file's line numbers, in input order."""

    def __init__(self, on_error: Callable[[RecordError, Line], None] | None):
        self.on_error = on_error
        self._before: dict[str, int] = {}  # lines of the ranges already seen, per file
        self.lines = 0

    def add(self, task: RangeTask, report: RangeReport) -> None:
        name = task.range.path
        offset = self._before.get(name, 0)
        self._before[name] = offset + report.lines
        self.lines += report.lines
        if self.on_error is None:
            return
        for number, what, hint, raw in report.bad:
            n = number + offset
            self.on_error(RecordError(what, where=f"{name}:{n}", hint=hint), Line(n, raw))
