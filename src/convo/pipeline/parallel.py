"""``convo ingest --jobs N``: sources parsed in a process pool, output as from one process.

The run is planned into units (``pipeline.plan``), a large line-oriented file into one
unit per range (``pipeline.split``); each unit is read in a worker (``core.pool``) by a
plain ``Ingest`` over that one path or range, which writes its messages (as JSONL
bytes), rejections and warnings, in order, to an event file. The parent replays the
event files in unit order, handing the lines on as they are (``store.lines``) but for
the few messages of a split file whose numbers depend on the ranges before theirs
(``pipeline.split.FileNumbers``), and but for an id an earlier unit gave another message
(each id a worker kept comes with its key and stamp, which the parent holds across units
as one process holds it across sources: ``core.stamps.RunIds``), so the messages, ids,
rejects, warnings and the summary are exactly those of one process (``--jobs 1``); at
most ``2 × jobs`` units are in flight, so memory and disk stay bounded by a few units. ``--strict``, standard input and a
single unit run in-process: there is nothing to parallelise, and a strict run must stop
at the first rejection.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from convo.core import scratch
from convo.core.errors import InputError
from convo.core.io import SPILL_HINT, spilling
from convo.core.jsonl import dumps
from convo.core.pool import cpu_count, ordered_map
from convo.core.record import ConversationMessage
from convo.core.stamps import RunIds, id_key, renamed, stamp
from convo.importers.context import ImportOptions
from convo.pipeline.ingest import (
    NOT_RECOGNISED,
    Ingest,
    IngestStats,
    one_source,
    unrecognised_file,
)
from convo.pipeline.notes import clash_warning, crossed_warning, nothing_found
from convo.pipeline.plan import EMPTY, Unit, plan_units
from convo.pipeline.split import (
    Depends,
    FileNumbers,
    RangeFinisher,
    Refused,
    read_range,
    split_units,
    uneven,
)
from convo.store.lines import ReadyBlock, ReadyLine

#: A worker writes its messages' lines in blocks of about this size (and before each
#: rejection or warning, which keeps the order of everything it reports).
BLOCK_BYTES = 256 << 10


@dataclass
class UnitResult:
    events: str
    stats: IngestStats
    error: tuple[str, str | None, str | None] | None  # what, where, hint
    numbered: int = 0  # messages a range numbered (``FileNumbers.next_range``)


def _size(path: str) -> int:
    """A unit's input bytes: its file's, or a folder's files' (0 when unreadable)."""
    if not os.path.isdir(path):
        with contextlib.suppress(OSError):
            return os.path.getsize(path)
        return 0
    total = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.path.getsize(os.path.join(folder, name))
    return total


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
    cross: bool = True  # hold ids across sources: the worker sends its kept ids' stamps


def run_job(job: Job) -> UnitResult | None:
    """A worker's unit: None for one that is not read (the parent reports it)."""
    if job.unit.kind != "read":
        return None
    return run_unit(job.unit, job.options, job.format_name, job.folder, job.cross)


class Events:
    """A worker's event file: ``("m", (lines, fixes, owns))`` for a block of message lines
    (with ``(index, Depends)`` for each line a ``FileNumbers`` may renumber, and
    ``(index, id key, stamp)`` for each line whose id the worker kept from its reader,
    ``UnitIngest.last_own``), ``("r", Rejection)`` and ``("w", warning)``, in the order they
    happened."""

    def __init__(self, out: BinaryIO):
        import pickle  # here: a run in one process imports no pickle (docs/startup.md)

        self._dump = functools.partial(pickle.dump, file=out, protocol=pickle.HIGHEST_PROTOCOL)
        self.out = out
        self.lines: list[bytes] = []
        self.fixes: list[tuple[int, Depends]] = []
        self.owns: list[tuple[int, int, int]] = []
        self.size = 0

    def message(
        self,
        line: bytes,
        depends: Depends | None = None,
        own: tuple[int, int] | None = None,
    ) -> None:
        if depends is not None:
            self.fixes.append((len(self.lines), depends))
        if own is not None:
            self.owns.append((len(self.lines), *own))
        self.lines.append(line)
        self.size += len(line)
        if self.size >= BLOCK_BYTES:
            self.flush()

    def event(self, kind: str, value: Any) -> None:
        self.flush()
        self._dump((kind, value))

    def flush(self) -> None:
        if self.lines:
            block = (b"".join(self.lines), self.fixes, self.owns)
            self.lines, self.fixes, self.owns, self.size = [], [], [], 0
            self._dump(("m", block))


class UnitIngest(Ingest):
    """The ``Ingest`` of a worker's unit, which is one source (``plan_units``: a file, a
    folder a format reads whole): each id its reader gives is noted with its message's
    stamp in ``last_own`` (sent with its line, ``Events.owns``), for the parent to hold
    against the earlier units' (``ParallelIngest._cross_units``); the worker holds none
    (a ``RunIds`` of its one source would refuse nothing)."""

    def _cross(self, number: int, msg: ConversationMessage) -> int:
        assert msg.id is not None
        self.last_own = (id_key(msg.id), stamp(msg.timestamp, msg.text_chunks))
        return 0


def run_unit(
    unit: Unit,
    options: ImportOptions,
    format_name: str | None,
    folder: str,
    cross: bool | None = True,
) -> UnitResult:
    """Read one unit in a worker; its events go to a file in ``folder`` (a full disk
    there is said as such: it was reported as a failure to write ``-o``)."""
    with spilling(folder, f"{SPILL_HINT}, or use -j 1"):
        return _run_unit(unit, options, format_name, folder, cross)


def _run_unit(
    unit: Unit, options: ImportOptions, format_name: str | None, folder: str, cross: bool | None
) -> UnitResult:
    fd, path = tempfile.mkstemp(dir=folder, suffix=".events")
    with os.fdopen(fd, "wb") as out:
        events = Events(out)
        ingest = UnitIngest(
            options,
            format_name=format_name,
            on_reject=lambda r: events.event("r", r),
            on_warning=lambda w: events.event("w", w),
            cross=cross,
        )
        error, numbered = None, 0
        try:
            if unit.part is None:
                for msg in ingest.messages([unit.path]):
                    events.message(dumps(msg.serialize()), own=ingest.last_own)
            else:  # one range: renumbered by the parent (see the module docstring)
                finish = RangeFinisher(unit.part.format, unit.path, options.tags)
                for msg, depends in read_range(ingest, unit, finish):
                    events.message(dumps(msg.serialize()), depends)
                numbered = finish.numbered
        except InputError as e:
            error = (e.what, e.where, e.hint)
        events.flush()
    return UnitResult(path, ingest.stats, error, numbered)


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


class ParallelIngest(Ingest):
    """``Ingest`` with units read in ``jobs`` worker processes; same interface and results.

    ``messages()`` yields ``ReadyLine``s (the workers' lines; anything with
    ``serialize()``), which the ingest sinks write as they are; with ``blocks`` (for a
    sink, not for a reader of messages) a worker's block of lines comes as one
    ``ReadyBlock``. ``part_size``: a large file is cut into ranges of about this size
    (``pipeline.split``); ``ingest``: the keywords of ``Ingest``.
    """

    def __init__(
        self,
        options: ImportOptions | None = None,
        *,
        jobs: int | None = None,
        part_size: int | None = None,
        blocks: bool = False,
        **ingest: Any,
    ):
        super().__init__(options, **ingest)
        self.jobs = jobs
        self.part_size = part_size
        self.blocks = blocks
        self._file: FileNumbers | None = None  # numbers the split file being replayed
        self.done = 0  # input bytes of the units replayed (``ReadyBlock.done``)
        self._unit = 0  # the number of the unit (a split file: of its file) replayed
        self._crossed = 0  # its messages given their content hash (``RunIds``)

    def messages(self, paths: Iterable[str | Path]) -> Iterator[Any]:
        names = [str(p) for p in paths]
        if self.jobs == 1 or self.options.strict or "-" in names:
            # stdin is read once, here; a strict run stops at its first rejection.
            yield from super().messages(names)
            return
        jobs = self.jobs or cpu_count()
        units = plan_units(names, self.forced)
        if jobs > 1 and uneven(units, jobs):
            units = split_units(units, self.forced, jobs, self.part_size)
        if jobs <= 1 or sum(1 for u in units if u.kind == "read") <= 1:
            yield from super().messages(names)
            return
        self.crossing = self.cross if self.cross is not None else not one_source(names)
        yield from self._pooled(units, jobs)

    def _pooled(self, units: list[Unit], jobs: int) -> Iterator[Any]:
        """The units read in ``jobs`` workers, replayed in order."""
        folder = scratch.folder(None, kind="jobs")
        try:
            name = self.forced.name if self.forced else None
            work = (Job(u, self.options, name, folder, self.crossing) for u in units)
            for unit, result in zip(units, ordered_map(run_job, work, jobs), strict=True):
                yield from self._replay(unit, result)
            self._end_file()
        finally:
            self._end_file(warn=False)
            self.close_run()
            shutil.rmtree(folder, ignore_errors=True)

    def _crossed_warning(self, name: str, *, warn: bool = True) -> None:
        """A unit's (or split file's) one warning of the messages it gave an id an
        earlier unit gave another message, as one process gives it at the source's end."""
        crossed, self._crossed = self._crossed, 0
        if warn and crossed:
            self.stats.warnings += 1
            if self._on_warning:
                self._on_warning(f"{name}: {crossed_warning(crossed)}")

    def _end_file(self, *, warn: bool = True) -> None:
        """After a split file's last range: the one warning of the ids its ranges gave
        messages another had (``FileNumbers.clashes``), as one process gives it."""
        numbers, self._file = self._file, None
        if numbers is None:
            return
        numbers.close()
        if warn and numbers.clashes:
            self.stats.warnings += 1
            if self._on_warning:
                self._on_warning(f"{numbers.name}: {clash_warning(numbers.clashes)}")
        self._crossed += numbers.crossed
        self._crossed_warning(numbers.name, warn=warn)

    def _entry(self, unit: Unit) -> None:
        """An entry Ingest._walk reports instead of reading."""
        if unit.kind == EMPTY:
            if self._on_warning:
                self._on_warning(nothing_found(unit.path, int(unit.reason)))
        elif unit.kind == "skip" and unit.reason.startswith(NOT_RECOGNISED):
            unrecognised_file(self.stats, unit.path, self._on_reject)
        elif unit.kind == "skip":
            self.stats.skipped.append(unit.path)
            if self._on_warning:
                self._on_warning(f"{unit.path}: skipped, {unit.reason}")
        else:
            self._fail(unit, unit.reason, unit.path, unit.hint)

    def _replay(self, unit: Unit, result: UnitResult | None) -> Iterator[Any]:
        if unit.part is None or unit.part.index == 0:
            self._end_file()  # a split file before this unit has had its last range
        if result is None:
            self._entry(unit)
            return
        part = unit.part
        self._start(unit)
        numbers = self._file if part is not None else None
        size = part.range.size if part is not None else _size(unit.path)
        try:
            if part is None or numbers is not None:
                yield from self._events(result.events, numbers, size)
        finally:
            self.done += size
            with contextlib.suppress(OSError):
                os.unlink(result.events)
        if part is not None and numbers is None:
            return  # an earlier range failed: one process stops reading the file there
        if numbers is not None:
            numbers.next_range(result.numbered)
        _merge(self.stats, result.stats, sources=part is None or part.index == 0)
        if part is None:  # one process stops at a source's error, before its warnings
            self._crossed_warning(unit.path, warn=result.error is None)
        if result.error is not None:
            self._end_file(warn=False)
            self._fail(unit, *result.error)

    def _start(self, unit: Unit) -> None:
        """Number a unit that starts a source (a whole unit, a split file's first range),
        for ``RunIds``; a split file's first range starts its ``FileNumbers``."""
        part = unit.part
        if part is None or part.index == 0:
            self._unit += 1
        if part is not None and part.index == 0:
            run = self.run_ids = (self.run_ids or RunIds()) if self.crossing else None
            self._file = FileNumbers(unit.path, run, self._unit)  # the file before it ended

    def _events(
        self, path: str, numbers: FileNumbers | None, size: int
    ) -> Iterator[ReadyLine | ReadyBlock]:
        """Replay a worker's event file (``Events``), a split file's ranges renumbered;
        a block's ``done`` counts the unit's ``size`` in proportion to the file read."""
        import pickle

        events = max(1, os.path.getsize(path))
        with open(path, "rb") as f:
            while True:
                try:
                    kind, value = pickle.load(f)
                except EOFError:
                    return
                if kind == "m":
                    block, fixes, owns = value
                    done = self.done + size * f.tell() // events
                    yield from self._block(block, fixes, owns, numbers, done)
                elif kind == "r":
                    if isinstance(value.raw, Refused):
                        assert numbers is not None
                        value = numbers.rejection(value)
                    if self._on_reject:
                        self._on_reject(value)
                elif kind == "w" and self._on_warning:
                    self._on_warning(value)

    def _block(
        self,
        block: bytes,
        fixes: list[tuple[int, Depends]],
        owns: list[tuple[int, int, int]],
        numbers: FileNumbers | None,
        done: int,
    ) -> Iterator[ReadyLine | ReadyBlock]:
        """A block of a worker's lines, renumbered where ``fixes`` and ``owns`` say."""
        crossed = self._cross_units(owns)
        if self.blocks and not fixes and not crossed:
            yield ReadyBlock(block, block.count(b"\n"), done)
            return
        lines = block.splitlines(keepends=True)  # orjson escapes \r: only \n ends
        for i, depends in fixes:
            assert numbers is not None
            lines[i] = numbers.line(lines[i], depends)
        for i in crossed:
            lines[i] = renamed(lines[i])[1]
        if self.blocks:
            yield ReadyBlock(b"".join(lines), len(lines), done)
        else:
            yield from map(ReadyLine, lines)

    def _cross_units(self, owns: list[tuple[int, int, int]]) -> list[int]:
        """The lines of a block whose id an earlier unit gave another message (their
        worker kept it: ``UnitIngest.last_own``), counted for the unit's warning."""
        if not owns:
            return []
        run = self.run_ids = self.run_ids or RunIds()
        unit = self._unit
        crossed = [i for i, key, mark in owns if not run.claim(unit, key, mark)]
        self._crossed += len(crossed)
        return crossed

    def _fail(self, unit: Unit, what: str, where: str | None, hint: str | None) -> None:
        """An unreadable unit: the run's error, or (isolated) one counted rejection."""
        if not unit.isolated:
            raise InputError(what, where=where, hint=hint)
        self._failed(where or "", what, hint)
