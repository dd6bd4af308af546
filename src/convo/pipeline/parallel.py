"""``convo ingest --jobs N``: sources parsed in a process pool, output as from one process.

The run is planned into units (``pipeline.plan``), a large line-oriented file into one
unit per range (``pipeline.split``); each unit is read in a worker (``core.pool``) by a
plain ``Ingest`` over that one path or range, which writes its messages (as JSONL
bytes), rejections and warnings, in order, to an event file. The parent replays the
event files in unit order, numbering the messages of a split file as one process would
(``Finisher.number``), so the messages, ids, rejects, warnings and the summary are
exactly those of one process (``--jobs 1``); at most ``2 × jobs`` units are in flight,
so memory and disk stay bounded by a few units. ``--strict``, standard input and a
single unit run in-process: there is nothing to parallelise, and a strict run must stop
at the first rejection.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from convo.core.errors import InputError
from convo.core.pool import cpu_count, ordered_map
from convo.importers.context import ImportOptions, Rejection
from convo.importers.registry import registry
from convo.pipeline.ingest import NOT_RECOGNISED, Finisher, Ingest, IngestStats, unrecognised_file
from convo.pipeline.plan import Unit, plan_units
from convo.pipeline.split import read_range, split_units


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
    return cpu_count() if units > 1 else 1


@dataclass(frozen=True)
class Job:
    """One unit and what its worker needs (picklable)."""

    unit: Unit
    options: ImportOptions
    format_name: str | None
    folder: str


def run_job(job: Job) -> UnitResult | None:
    """A worker's unit: None for one that is not read (the parent reports it)."""
    if job.unit.kind != "read":
        return None
    return run_unit(job.unit, job.options, job.format_name, job.folder)


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
            if unit.part is None:
                for msg in ingest.messages([unit.path]):
                    emit("m", orjson.dumps(msg.serialize()))
            else:  # one range: numbered by the parent (see the module docstring)
                for record, needs_sid, content in read_range(ingest, unit):
                    emit("n", (orjson.dumps(record), needs_sid, content))
        except InputError as e:
            error = (e.what, e.where, e.hint)
    return UnitResult(events, ingest.stats, error)


def _merge(total: IngestStats, part: IngestStats, *, sources: bool = True) -> None:
    total.sources += part.sources if sources else 0
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
        part_size: int | None = None,
    ):
        self.options = options or ImportOptions()
        self.format_name = format_name
        self.jobs = jobs
        self.part_size = part_size  # a large file is cut into ranges of about this size
        self.stats = IngestStats()
        self._file: Finisher | None = None  # numbers the split file being replayed
        self._on_reject = on_reject
        self._on_warning = on_warning

    def messages(self, paths: Iterable[str | Path]) -> Iterator[Any]:
        names = [str(p) for p in paths]
        if self.jobs == 1 or self.options.strict or "-" in names:
            # stdin is read once, here; a strict run stops at its first rejection.
            yield from self._in_process(names)
            return
        forced = registry.get(self.format_name) if self.format_name else None
        jobs = self.jobs or cpu_count()
        units = plan_units(names, forced)
        if jobs > 1:
            units = split_units(units, forced, jobs, self.part_size)
        if jobs <= 1 or sum(1 for u in units if u.kind == "read") <= 1:
            yield from self._in_process(names)
            return
        folder = tempfile.mkdtemp(prefix=".convo-jobs-")
        try:
            work = (Job(u, self.options, self.format_name, folder) for u in units)
            for unit, result in zip(units, ordered_map(run_job, work, jobs), strict=True):
                yield from self._replay(unit, result)
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

    def _entry(self, unit: Unit) -> None:
        """An entry Ingest._walk reports instead of reading."""
        if unit.kind == "skip" and unit.reason.startswith(NOT_RECOGNISED):
            unrecognised_file(self.stats, unit.path, self._on_reject)
        elif unit.kind == "skip":
            self.stats.skipped.append(unit.path)
            if self._on_warning:
                self._on_warning(f"{unit.path}: skipped, {unit.reason}")
        else:
            self._fail(unit, unit.reason, unit.path, unit.hint)

    def _replay(self, unit: Unit, result: UnitResult | None) -> Iterator[Any]:
        if result is None:
            self._entry(unit)
            return
        part = unit.part
        if part is not None and part.index == 0:
            self._file = Finisher(part.format, unit.path, self.options.tags)
        try:
            if part is None or part.index == 0 or self._file is not None:
                yield from self._events(result.events)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(result.events)
        if part is not None and part.index > 0 and self._file is None:
            return  # an earlier range failed: one process stops reading the file there
        _merge(self.stats, result.stats, sources=part is None or part.index == 0)
        if result.error is not None:
            self._file = None
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
                elif kind == "n":
                    yield ReadyRecord(self._numbered(*value))
                elif kind == "r" and self._on_reject:
                    self._on_reject(value)
                elif kind == "w" and self._on_warning:
                    self._on_warning(value)

    def _numbered(self, data: bytes, needs_sid: bool, content: bool) -> dict[str, Any]:
        """A split file's message, numbered in the file's order (``Finisher.number``)."""
        assert self._file is not None
        record = orjson.loads(data)
        sid = None if needs_sid else record["source_id"]
        record["source_id"], new_id = self._file.number(sid, record["id"] if content else None)
        if new_id:
            record["id"] = new_id
        return record

    def _fail(self, unit: Unit, what: str, where: str | None, hint: str | None) -> None:
        """An unreadable unit: the run's error, or (isolated) one counted rejection."""
        if not unit.isolated:
            raise InputError(what, where=where, hint=hint)
        self.stats.rejected += 1
        self.stats.failed.append(where or "")
        if self._on_reject:
            self._on_reject(Rejection(where or "", what, hint))
