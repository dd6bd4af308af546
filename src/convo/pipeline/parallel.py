"""``convo ingest --jobs N``: sources parsed in a process pool, output as from one process.

The run is planned into units (``pipeline.plan``); each unit is read in a worker by a
plain ``Ingest`` over that one path, which writes its messages (as JSONL bytes),
rejections and warnings, in order, to an event file. The parent replays the event files
in unit order, so the messages, ids, rejects, warnings and the summary are exactly those of
one process (``--jobs 1``); at most ``2 × jobs`` units are in flight, so memory and disk
stay bounded by a few units. ``--strict``, standard input and a single unit run
in-process: there is nothing to parallelise, and a strict run must stop at the first
rejection.

Not (yet) split: one large file is one unit; its parse uses one core.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from convo.core.errors import InputError
from convo.importers.context import ImportOptions, Rejection
from convo.importers.registry import registry
from convo.pipeline.ingest import NOT_RECOGNISED, Ingest, IngestStats, unrecognised_file
from convo.pipeline.plan import Unit, plan_units


class ReadyRecord:
    """A message a worker already serialised: ``serialize()`` gives its record dict."""

    __slots__ = ("record",)

    def __init__(self, record: dict[str, Any]):
        self.record = record

    def serialize(self) -> dict[str, Any]:
        return self.record


@dataclass
class UnitResult:
    events: str
    stats: IngestStats
    error: tuple[str, str | None, str | None] | None  # what, where, hint


def default_jobs(units: int) -> int:
    """The CPU count when there is more than one unit to read, else 1."""
    return (os.cpu_count() or 1) if units > 1 else 1


def run_unit(
    unit: Unit, options: ImportOptions, format_name: str | None, folder: str
) -> UnitResult:
    """Read one unit in a worker; its events go to a file in ``folder``."""
    fd, events = tempfile.mkstemp(dir=folder, suffix=".events")
    with os.fdopen(fd, "wb") as out:

        def emit(kind: str, value: Any) -> None:
            pickle.dump((kind, value), out, protocol=pickle.HIGHEST_PROTOCOL)

        ingest = Ingest(
            options,
            format_name=format_name,
            on_reject=lambda r: emit("r", r),
            on_warning=lambda w: emit("w", w),
        )
        error = None
        try:
            for msg in ingest.messages([unit.path]):
                emit("m", orjson.dumps(msg.serialize()))
        except InputError as e:
            error = (e.what, e.where, e.hint)
    return UnitResult(events, ingest.stats, error)


def _merge(total: IngestStats, part: IngestStats) -> None:
    total.sources += part.sources
    total.imported += part.imported
    total.rejected += part.rejected
    total.warnings += part.warnings
    total.skipped.extend(part.skipped)
    total.unrecognised.extend(part.unrecognised)
    total.failed.extend(part.failed)
    for name, n in part.formats.items():
        total.formats[name] = total.formats.get(name, 0) + n


class ParallelIngest:
    """``Ingest`` with units read in ``jobs`` worker processes; same interface and results.

    ``messages()`` yields ``ReadyRecord``s (anything with ``serialize()``), which is all the
    ingest sinks need.
    """

    def __init__(
        self,
        options: ImportOptions | None = None,
        *,
        format_name: str | None = None,
        on_reject: Callable[[Rejection], None] | None = None,
        on_warning: Callable[[str], None] | None = None,
        jobs: int | None = None,
    ):
        self.options = options or ImportOptions()
        self.format_name = format_name
        self.jobs = jobs
        self.stats = IngestStats()
        self._on_reject = on_reject
        self._on_warning = on_warning

    def messages(self, paths: Iterable[str | Path]) -> Iterator[Any]:
        names = [str(p) for p in paths]
        if self.jobs == 1 or self.options.strict or "-" in names:
            # stdin is read once, here; a strict run stops at its first rejection.
            yield from self._in_process(names)
            return
        forced = registry.get(self.format_name) if self.format_name else None
        units = plan_units(names, forced)
        readable = sum(1 for u in units if u.kind == "read")
        jobs = self.jobs or default_jobs(readable)
        if jobs <= 1 or readable <= 1:
            yield from self._in_process(names)
            return
        folder = tempfile.mkdtemp(prefix=".convo-jobs-")
        try:
            yield from self._pooled(units, jobs, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _in_process(self, paths: list[str]) -> Iterator[Any]:
        ingest = Ingest(
            self.options,
            format_name=self.format_name,
            on_reject=self._on_reject,
            on_warning=self._on_warning,
        )
        self.stats = ingest.stats
        yield from ingest.messages(paths)

    def _pooled(self, units: list[Unit], jobs: int, folder: str) -> Iterator[Any]:
        context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            pending: deque[tuple[Unit, Future[UnitResult] | None]] = deque()
            queue = iter(units)
            try:
                for unit in queue:
                    pending.append((unit, self._submit(pool, unit, folder)))
                    if len(pending) >= 2 * jobs:
                        yield from self._replay(*pending.popleft())
                while pending:
                    yield from self._replay(*pending.popleft())
            except BaseException:
                for _, future in pending:
                    if future is not None:
                        future.cancel()
                raise

    def _submit(
        self, pool: ProcessPoolExecutor, unit: Unit, folder: str
    ) -> Future[UnitResult] | None:
        if unit.kind != "read":
            return None
        return pool.submit(run_unit, unit, self.options, self.format_name, folder)

    def _replay(self, unit: Unit, future: Future[UnitResult] | None) -> Iterator[Any]:
        if future is None:  # an entry Ingest._walk reports instead of reading
            if unit.kind == "skip" and unit.reason.startswith(NOT_RECOGNISED):
                unrecognised_file(self.stats, unit.path, self._on_reject)
            elif unit.kind == "skip":
                self.stats.skipped.append(unit.path)
                if self._on_warning:
                    self._on_warning(f"{unit.path}: skipped, {unit.reason}")
            else:
                self._fail(unit, unit.reason, unit.path, unit.hint)
            return
        result = future.result()
        try:
            yield from self._events(result.events)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(result.events)
        _merge(self.stats, result.stats)
        if result.error is not None:
            self._fail(unit, *result.error)

    def _events(self, path: str) -> Iterator[Any]:
        with open(path, "rb") as f:
            while True:
                try:
                    kind, value = pickle.load(f)
                except EOFError:
                    return
                if kind == "m":
                    yield ReadyRecord(orjson.loads(value))
                elif kind == "r" and self._on_reject:
                    self._on_reject(value)
                elif kind == "w" and self._on_warning:
                    self._on_warning(value)

    def _fail(self, unit: Unit, what: str, where: str | None, hint: str | None) -> None:
        """An unreadable unit: the run's error, or (isolated) one counted rejection."""
        if not unit.isolated:
            raise InputError(what, where=where, hint=hint)
        self.stats.rejected += 1
        self.stats.failed.append(where or "")
        if self._on_reject:
            self._on_reject(Rejection(where or "", what, hint))
