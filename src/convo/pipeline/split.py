"""One large line-oriented file cut into ranges, so that it too is read on every core.

``split_units`` turns a ``read`` unit into one unit per range when the file's format has
a ``record_start`` (mbox ``From `` separators, convo JSONL lines; see
``importers.registry.Format``), the file is a regular, uncompressed file that no writer
is appending to, at least half a part long, and its first line is itself a
record start (so nothing before the first record, an mbox preamble or a BOM, needs the
whole file). The cuts fall on record-start lines (``core.ranges.split``).

What a range cannot know alone is settled before or after it is read:

- before: one pass over the ranges, in the pool, counts the lines and record starts of
  each, so a range's reader gets ``ImportContext.start`` (its first line and record
  numbers) and reports the whole file's line numbers (rejects, warnings, ``source_id``)
  and, for mbox, ``msg-N``. The format is detected once on the whole file, and a
  range's ``Source`` keeps the whole file's ``head``, so whatever a reader decides from
  the head (mboxrd or mboxo) is decided once for the file;
- after: a range's messages leave the reader unnumbered (``Ingest.read_source(...,
  number=False)``) and one ``Finisher.number`` over the whole file, in range order,
  gives the ``source_id`` fallbacks and content-id occurrence counters of one process.

Formats whose reader needs more of the file than its head and the lines before a record
(WhatsApp decides its day/month order and its speakers on the whole file, IRC carries
the date of the last header line and the nicks seen so far) have no ``record_start`` and
are read whole.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.jsonl import committed_end
from convo.core.pool import ordered_map
from convo.core.ranges import Range, open_range, split, splittable
from convo.importers.build import ContentIds
from convo.importers.context import Position
from convo.importers.registry import Format, registry
from convo.pipeline.plan import Part, Unit

#: A file is cut into parts of about this size (more parts than cores even out the
#: load), none under a quarter of it; a file under half of it is read whole.
PART_BYTES = 64 << 20


def read_range(ingest: Any, unit: Unit) -> Iterator[tuple[dict[str, Any], bool, bool]]:
    """The messages of one range unit as ``(record, needs a source_id, content id)``: the
    record holds the content hash of a message without an id before its occurrence
    counter, which ``Finisher.number`` adds over the whole file (with ``name#N`` for a
    message that needs a ``source_id``)."""
    assert unit.part is not None
    fmt, part = registry.get(unit.part.format), unit.part
    ids = ContentIds(unit.path)
    for msg in ingest.read_source(RangeSource(unit.path, part), fmt, part.start, number=False):
        needs_sid, content = not msg.source_id, not msg.id
        if content:
            msg.id = ids.base(msg)
        yield msg.serialize(), needs_sid, content


class RangeSource(Source):
    """A ``Source`` whose ``open()`` gives one range of the file; ``name``, ``head`` and
    ``match_name`` stay the whole file's."""

    def __init__(self, path: str, part: Part):
        super().__init__(path)
        self.part = part

    def open(self) -> BinaryIO:
        return open_range(self.part.range)

    def real_path(self) -> Path:
        raise InputError(
            "this format cannot read one range of a file", where=self.name, hint="report it"
        )


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _format(unit: Unit, forced: Format | None) -> Format | None:
    if forced is not None:
        return forced
    try:
        source = Source(unit.path)
    except InputError:
        return None
    try:
        return None if source.is_dir else registry.detect(source)
    except (InputError, OSError):
        return None
    finally:
        source.close()


def _ranges(path: str, fmt: Format, parts: int, part_size: int) -> list[Range]:
    """The ranges of ``path``, or one range when it is not to be split."""
    is_start = fmt.record_start
    whole = [Range(path, 0, 0)]
    if fmt.directory or is_start is None or not splittable(path):
        return whole
    size, min_size = os.path.getsize(path), max(1, part_size // 4)
    if size < 2 * min_size:
        return whole
    with open(path, "rb") as f:
        if not is_start(f.readline(1 << 16)) or committed_end(f, path) is not None:
            return whole
    parts = max(parts, -(-size // part_size))
    return split(path, parts, is_start=is_start, min_size=min_size)


def count_range(r: Range, format_name: str) -> tuple[int, int]:
    """(lines, record-start lines) of one range (run in the pool)."""
    is_start = registry.get(format_name).record_start
    assert is_start is not None
    lines = records = 0
    with open_range(r) as f:
        for line in f:
            lines += 1
            records += bool(is_start(line))
    return lines, records


def count_job(job: tuple[Range, str]) -> tuple[int, int]:
    """``count_range`` of a (range, format name) pair, the shape a pool maps."""
    return count_range(*job)


Mapper = Callable[[Callable[[Any], Any], list[Any]], Iterable[Any]]


def split_units(
    units: list[Unit],
    forced: Format | None,
    jobs: int,
    part_size: int | None = None,
    mapper: Mapper | None = None,
) -> list[Unit]:
    """``units`` with each large splittable file replaced by one unit per range: at
    least ``jobs`` of them, of about ``part_size`` bytes (default ``PART_BYTES``).
    ``mapper(fn, items)`` runs the counting pass (default: the process pool,
    ``core.pool.ordered_map``; ``convo.spark`` passes a Spark map)."""
    run = mapper or (lambda fn, items: ordered_map(fn, items, jobs))
    part_size = part_size or PART_BYTES
    out: list[Unit] = []
    for unit in units:
        big = unit.kind == "read" and _size(unit.path) >= part_size // 2
        fmt = _format(unit, forced) if big else None  # small files: no second detection
        ranges = _ranges(unit.path, fmt, jobs, part_size) if fmt is not None else []
        if fmt is None or len(ranges) < 2:
            out.append(unit)
            continue
        line, record = 1, 0
        counts = run(count_job, [(r, fmt.name) for r in ranges])
        for index, (r, (lines, records)) in enumerate(zip(ranges, counts, strict=True)):
            part = Part(fmt.name, r, Position(line, record), index)
            out.append(Unit(unit.path, isolated=unit.isolated, part=part))
            line, record = line + lines, record + records
    return out
