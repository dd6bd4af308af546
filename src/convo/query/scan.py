"""Selecting records from JSONL: decide on raw bytes when possible, parse only what may match.

The filters' meaning is in ``convo.query.filters``; the raw-byte decisions in
``convo.query.prefilter`` (needles, respellings), ``convo.query.canonical`` and
``convo.query.rawtext`` (exact decisions on convo's own record layout); a span of lines
is scanned by ``convo.query.linescan``. Lines passed through unparsed come as
``matches.RawBatch`` (runs of adjacent lines), records as lists of ``Match``. The store is read in 1 MiB blocks without copies
(``convo.query.blocks``), never as line objects. A regular file of at least
``parallel.MIN_PARALLEL`` bytes is scanned on every core (``convo.query.parallel``),
with the same output, warnings and line numbers as a one-core scan.

Lines of a regular file are not counted by needle scans: a bad line is located by a
second reader (``LineLocator``) and matches carry line 0.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar, cast

from convo.core.errors import RecordError
from convo.core.jsonl import Line, parse_record_line
from convo.query.blocks import BLOCK, LineLocator, iter_spans
from convo.query.filters import Filters
from convo.query.matches import Match, RawBatch, Runs

if TYPE_CHECKING:
    from convo.query.compiled import Compiled

__all__ = ["Filters", "Match", "Selector", "select"]

T = TypeVar("T")


class Selector:
    """A compiled ``Filters``: ``select(lines)`` yields the matching records.

    ``lines_read()`` counts the lines looked at (matching or not), for "0 of N read".

    The scan's machinery (``plan``, the compiled filters, and ``convo.query.parallel``)
    loads when a scan needs it: an indexed read only asks for ``filters``.
    """

    def __init__(self, filters: Filters):
        self.filters = filters
        self.block_size = BLOCK
        self.read = 0
        self._uncounted: list[Any] = []  # sources scanned without counting their lines
        self._parallel: int | str | None = "default"
        self._plan: Compiled | None = None
        if filters.regexes:
            self.plan  # noqa: B018 - a bad --regex is a usage error before anything is read

    @property
    def plan(self) -> Compiled:
        if self._plan is None:
            from convo.query.compiled import Compiled

            self._plan = Compiled.of(self.filters)
        return self._plan

    @property
    def parallel(self) -> int | None:
        """The file size (bytes) from which a file is scanned on every core; None: never.
        ``parallel.MIN_PARALLEL`` unless set."""
        if self._parallel == "default":
            from convo.query.parallel import MIN_PARALLEL

            self._parallel = MIN_PARALLEL
        return cast(int | None, self._parallel)

    @parallel.setter
    def parallel(self, value: int | None) -> None:
        self._parallel = value

    def raw_may_match(self, raw: bytes) -> bool:
        """False only when the line certainly does not match (no parse needed)."""
        plan = self.plan
        if not plan.prefilter.raw_may_match(raw):
            return False
        decider = plan.decider
        if not decider.kinds:
            return True
        decider.begin(raw)
        return decider.decide(raw, 0, len(raw)) is not False

    def matches(self, record: dict[str, Any]) -> bool:
        return self.plan.matches(record)

    def select(self, lines: Iterable[tuple[Line, str]], on_error=None) -> Iterator[Match]:
        """Matching records from ``(line, source name)`` pairs, limit and order applied."""
        return self._limit(self._select(lines, on_error))

    def select_parts(self, parts: Iterable[Any], on_error=None, *, need_record=True):
        """Matching records from ``inputs.record_parts``, limit and order applied.

        The first ``--limit`` lines of a selection that takes every line (``convo list
        -n 5``, ``show -n 3``, ``export -n 10``) are the first lines of the file: one
        core reads them and stops, where the scan on every core reads whole 16 MiB
        ranges in each worker and waits for them (a 100 MB store: 0.9-1.4 s against
        0.1 s, load 5 on 2 cores)."""
        f = self.filters
        head = f.limit is not None and not f.reverse and f.is_empty()
        batches = self.batches(parts, on_error, need_record, parallel=not head)
        return self._limit(m for batch in batches for m in batch)

    def batches(
        self, parts: Iterable[Any], on_error=None, need_record: bool = True,
        parallel: bool = True,
    ) -> Iterator[list[Match]]:  # fmt: skip
        """Lists of matches (no limit or order): raw sources are scanned in blocks.

        ``need_record=False`` lets a line decided on raw bytes pass without a parse;
        ``parallel=False`` reads on this core only.
        """
        for part in parts:
            if hasattr(part, "open"):  # a raw JSONL source
                if parallel:
                    yield from self._source_batches(part, on_error, need_record)
                else:
                    yield from self._local_batches(part, on_error, need_record)
                continue
            batch: list[Match] = []
            for m in self._select(part, on_error):
                batch.append(m)
                if len(batch) >= 1000:
                    yield batch
                    batch = []
            if batch:
                yield batch

    def _source_batches(self, part: Any, on_error, need_record: bool) -> Iterator[list[Match]]:
        from convo.query.parallel import ParallelScan, eligible

        path = eligible(part, self.parallel) if self.parallel is not None else None
        if path is not None:
            scan = ParallelScan(self.plan, path, part.name, self.block_size)
            yield from scan.batches(on_error, need_record)
            if self.plan.starts is not None:
                self._uncounted.append(part)
            self.read += scan.lines
            return
        yield from self._local_batches(part, on_error, need_record)

    def _local_batches(self, part: Any, on_error, need_record: bool) -> Iterator[list[Match]]:
        from convo.query.linescan import BlockScan, report

        # Needle scans of a file that can be read again skip counting lines: the few
        # lines that need a number (errors) are located on demand.
        plan = self.plan
        lazy = plan.starts is not None and getattr(part, "reopenable", False)
        locator = LineLocator(part.open) if lazy else None
        try:
            with part.open() as stream:
                first = 1
                for buf, start, end, torn, at in iter_spans(stream, self.block_size):
                    runs = None if need_record else Runs(counted=plan.starts is None)
                    scan = BlockScan(plan, buf, part.name, torn, need_record, runs)
                    lines = scan.span(start, end, first, lazy)
                    report(scan.bad, part.name, on_error, locator, at)
                    first += lines
                    self.read += lines
                    if runs is None:
                        yield scan.out
                    elif runs:
                        yield cast(list[Match], RawBatch(buf, 0, runs, 0, len(runs), part.name))
                if lazy:
                    self._uncounted.append(part)
        finally:
            if locator is not None:
                locator.close()

    def lines_read(self) -> int:
        """Lines read so far; sources scanned without counting are counted now (again)."""
        for part in self._uncounted:
            with part.open() as stream:
                self.read += sum(
                    buf.count(b"\n", s, e) + t for buf, s, e, t, _ in iter_spans(stream)
                )
        self._uncounted.clear()
        return self.read

    def _limit(self, out: Iterator[Match]) -> Iterator[Match]:
        return limited(out, self.filters.limit, self.filters.reverse)

    def _select(self, lines: Iterable[tuple[Line, str]], on_error) -> Iterator[Match]:
        may = self.raw_may_match
        checks = self.plan.checks
        for line, name in lines:
            self.read += 1
            if not may(line.raw):
                continue
            try:
                record = parse_record_line(line, name)
            except RecordError as e:
                if on_error is not None:
                    on_error(e, line)
                continue
            if all(c(record) for c in checks):
                yield Match(line.raw, record, name, line.number)


def limited(items: Iterable[T], limit: int | None, reverse: bool) -> Iterator[T]:
    """``--limit`` and ``--reverse``: the first (or, reversed, the last) ``limit`` items."""
    if limit is not None and limit <= 0:
        return
    if reverse:
        buf: deque[T] = deque(items, maxlen=limit)
        while buf:
            yield buf.pop()
        return
    for i, item in enumerate(items, 1):
        yield item
        if limit is not None and i >= limit:
            return


def select(records: Iterable[dict[str, Any]], filters: Filters) -> Iterator[dict[str, Any]]:
    """Library form: filter already-parsed records (or ``serialize()`` dicts)."""
    sel = Selector(filters)
    return limited((r for r in records if sel.matches(r)), filters.limit, filters.reverse)
