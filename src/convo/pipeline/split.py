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
- after: a range is numbered as if it were the whole file (``RangeFinisher``), which
  notes each message whose numbers the ranges before it can change (a ``source_id``
  fallback ``name#N``, a content id's occurrence counter; ``Depends``); the parent's
  ``FileNumbers`` goes over the ranges in order and renumbers only those, a message
  ``check_message`` refused included (its rejection carries it as ``Refused``), so
  the ``source_id``s, ids and rejects are those of one process. An id the reader gave
  is held to one message of the whole file (``Finisher``'s own-id rule): a range notes
  each such id with a digest of its message (``Depends.own``) and ``FileNumbers``
  decides, in file order, which keep it, so an id two ranges give two messages is not
  shared, and the file's one clash warning follows its last range. An id it keeps is
  then held against the run's earlier sources (``core.stamps.RunIds``, with the
  message's stamp in ``Depends.own``), as one process holds it.

``uneven`` says whether cutting is worth its counting pass: units that already spread
evenly over the workers (a folder of many similar files) are read whole.

A file where the reader reads a record over a record-start line (``Format.record_spans``:
an mbox message whose trusted ``Content-Length`` holds an unescaped ``From `` line) is
read whole: the counting pass asks each range, and one such range keeps the file whole.

Formats whose reader needs more of the file than its head and the lines before a record
(WhatsApp decides its day/month order and its speakers on the whole file, IRC carries
the date of the last header line and the nicks seen so far) have no ``record_start`` and
are read whole.
"""

from __future__ import annotations

import copy
import heapq
import io
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import orjson

from convo.core.errors import InputError, RecordError
from convo.core.io import Source
from convo.core.jsonl import committed_end, dumps
from convo.core.pool import ordered_map
from convo.core.ranges import Range, open_range, split, splittable
from convo.core.record import ConversationMessage, content_id, parse_record
from convo.core.stamps import RunIds, id_key, stamp
from convo.importers.build import ContentIds, OwnIds
from convo.importers.context import ImportContext, Position, Rejection
from convo.importers.registry import Format, registry
from convo.pipeline.ingest import Finisher, fallback_source_id, refused_raw
from convo.pipeline.plan import Part, Unit

#: A file is cut into parts of about this size (more parts than cores even out the
#: load), none under a quarter of it; a file under half of it is read whole.
PART_BYTES = 64 << 20
COUNT_BLOCK = 1 << 20


def read_range(
    ingest: Any, unit: Unit, finish: RangeFinisher | None = None
) -> Iterator[tuple[ConversationMessage, Depends | None]]:
    """The messages of one range unit, numbered as if the range were the whole file, each
    with what of its numbers the ranges before it may change (``RangeFinisher``; pass one
    to learn how many messages the range numbered)."""
    assert unit.part is not None
    fmt, part = registry.get(unit.part.format), unit.part
    finish = finish or RangeFinisher(fmt.name, unit.path, ingest.options.tags)
    for msg in ingest.read_source(RangeSource(unit.path, part), fmt, part.start, finish=finish):
        yield msg, finish.depends


class Depends(NamedTuple):
    """The numbers of a range's message that depend on the ranges before it: its place in
    the range (``number``, which gives the ``name#N`` fallback when ``needs_sid``) and, for
    a content id, its hash before the occurrence counter (``base``) and the id the range
    gave it (``local_id``); for an id the reader gave, that id and the digest of the
    message's text, speaker and time (``own``: ``FileNumbers`` keeps it or not)."""

    number: int
    needs_sid: bool
    base: str | None
    local_id: str | None
    own: tuple[str, int, int] | None = None  # the reader's id, its message's digest and stamp
    # A tuple, not a dataclass: every message with an id has one, pickled to the parent
    # (a frozen dataclass pickles through ``copyreg``).


@dataclass(frozen=True)
class Refused:
    """The ``raw`` of the rejection of a message ``check_message`` refused in a range, when
    its numbers depend on the ranges before it: ``FileNumbers.rejection`` numbers it."""

    msg: ConversationMessage
    depends: Depends


class RangeFinisher(Finisher):
    """``Finisher`` of one range: numbers its messages from 1, noting in ``depends`` what
    of the last message's numbers ``FileNumbers`` may change (None: nothing)."""

    depends: Depends | None = None
    _claim: tuple[str, int, int] | None = None

    def __call__(self, msg: ConversationMessage) -> ConversationMessage:
        self.depends = self._claim = None
        return super().__call__(msg)

    def _own_id(self, msg: ConversationMessage) -> None:
        """Note the reader's id (``Depends.own``): whether an earlier message of the file
        had it is for ``FileNumbers`` to say, which sees every range."""
        assert msg.id is not None
        self._claim = (msg.id, *own_digest(msg))

    def number(self, source_id: str | None, base: str | None) -> tuple[str, str | None]:
        sid, new_id = super().number(source_id, base)
        if not source_id or base is not None or self._claim is not None:
            self.depends = Depends(self.numbered, not source_id, base, new_id, self._claim)
        return sid, new_id

    def refused(self, ctx: ImportContext, error: RecordError, msg: ConversationMessage) -> None:
        if self.depends is None:
            super().refused(ctx, error, msg)
        else:
            ctx.reject_error(error, Refused(msg, self.depends))


def own_digest(msg: ConversationMessage) -> tuple[int, int]:
    """What tells two messages with one id apart: within the file (``Finisher``'s rule:
    the text, speaker and time; 64 bits, CRC-32 of the speaker and time beside CRC-32 of
    the text) and across sources (``core.stamps.stamp``, sharing the text's CRC), the same
    in every process (``hash`` of a string is not, unforked). Any text is digested, a lone
    surrogate too (a message ``check_message`` will refuse is digested, as one process
    hashes it before the check). On the first 30 MB of the benchmark's mbox the digest
    took 2.5 us a message against 6.0 us for blake2b over the fields' ``repr`` (20k mails
    of about 560 characters)."""
    import zlib

    mark = stamp(msg.timestamp, msg.text_chunks)
    chunks = msg.text_chunks
    head = f"{len(chunks) if isinstance(chunks, list) else -1}\x1f{msg.speaker}\x1f{msg.timestamp}"
    return zlib.crc32(head.encode("utf-8", "surrogatepass")) << 32 | mark & 0xFFFFFFFF, mark


class FileNumbers:
    """The numbers of a split file's messages, given range by range in file order: what
    one ``Finisher`` over the whole file gives them. Only a message with a ``Depends`` can
    differ from its range's numbers: a ``name#N`` fallback after the first range, a
    content id repeated in an earlier range."""

    def __init__(self, name: str, run: RunIds | None = None, source: int = 0):
        self.name = name
        self.ids = ContentIds(name)
        self.before = 0  # messages numbered in the ranges before this one
        self.own = OwnIds()  # the reader's ids, held to one message of the file
        self.run, self.source = run, source  # the run's ids, held across its sources
        self.crossed = 0  # messages whose id an earlier source gave another message

    @property
    def clashes(self) -> int:
        """Messages whose reader's id an earlier message of the file had."""
        return self.own.clashes

    def next_range(self, numbered: int) -> None:
        self.before += numbered

    def close(self) -> None:
        self.own.close()

    def changes(
        self, dep: Depends, message: Callable[[], ConversationMessage], *, cross: bool = True
    ) -> tuple[str | None, str | None]:
        """The message's ``source_id`` and ``id`` where they differ from its range's
        (``message``: the message as its range finished it, asked for when its own id
        goes to an earlier message of the file, or of an earlier source when ``cross``:
        a message the check refused is not held across sources, as in one process)."""
        sid = None
        if dep.needs_sid and self.before:
            sid = fallback_source_id(self.name, self.before + dep.number)
        base = dep.base
        if dep.own is not None:
            own, digest, mark = dep.own
            if not self.own.claim(own, digest):
                msg = message()
                msg.id = None
                base = self.ids.base(msg)
            elif (
                cross
                and self.run is not None
                and not self.run.claim(self.source, id_key(own), mark)
            ):
                self.crossed += 1
                return sid, content_id(message())
        if base is None:
            return sid, None
        new_id = self.ids.occurrence(base)
        return sid, None if new_id == dep.local_id else new_id

    def line(self, line: bytes, dep: Depends) -> bytes:
        """A JSONL line of the range, numbered for the file."""
        record: dict[str, Any] | None = None

        def message() -> ConversationMessage:
            nonlocal record
            record = orjson.loads(line)
            return parse_record(record, self.name)

        sid, new_id = self.changes(dep, message)
        if sid is None and new_id is None:
            return line
        if record is None:
            record = orjson.loads(line)
        record["source_id"] = sid or record["source_id"]
        record["id"] = new_id or record["id"]
        return dumps(record)

    def rejection(self, rejection: Rejection) -> Rejection:
        """A rejection whose ``raw`` is ``Refused``, numbered for the file."""
        refused = rejection.raw
        assert isinstance(refused, Refused)
        msg = refused.msg
        sid, new_id = self.changes(refused.depends, lambda: copy.copy(msg), cross=False)
        msg.source_id = sid or msg.source_id
        msg.id = new_id or msg.id
        # check_message was given the message's source_id as the place.
        where = sid or rejection.where
        return Rejection(where, rejection.reason, rejection.hint, refused_raw(msg))


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
    """The ranges of ``path`` (a multiple of ``parts``, each about ``part_size`` or
    less), or one range when it is not to be split."""
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
    # A multiple of the workers: 5 parts on 2 cores end with one core idle for a part.
    parts *= -(-size // (part_size * parts))
    return split(path, parts, is_start=is_start, min_size=min_size)


def count_range(r: Range, format_name: str) -> tuple[int, int]:
    """(lines, record-start lines) of one range (run in the pool)."""
    fmt = registry.get(format_name)
    is_start, prefix = fmt.record_start, fmt.record_prefix
    assert is_start is not None
    lines = records = 0
    with open_range(r) as f:
        # Blocks of whole lines: the newlines counted in C, the predicate mapped over the
        # lines that may start a record (all of them without a prefix); the lines are
        # exactly the file's (split on \n only, a last one without a newline included).
        while block := f.read(COUNT_BLOCK):
            if not block.endswith(b"\n"):
                block += f.readline()
            lines += block.count(b"\n") + (not block.endswith(b"\n"))
            found = _starting(block, prefix) if prefix else io.BytesIO(block).readlines()
            records += sum(map(is_start, found))
    return lines, records


def _starting(block: bytes, prefix: bytes) -> Iterator[bytes]:
    """The lines of ``block`` (whole lines) that begin with ``prefix``."""
    after = b"\n" + prefix  # a line start with the prefix, from its newline before
    at = 0 if block.startswith(prefix) else block.find(after) + 1
    while at or block.startswith(prefix):  # at: 0 only for the block's own first line
        end = block.find(b"\n", at) + 1 or len(block)
        yield block[at:end]
        at = block.find(after, end - 1) + 1
        if not at:
            return


def spans_range(r: Range, format_name: str) -> bool:
    """Whether the format's reader reads a record starting in ``r`` over one of the file's
    record-start lines (``Format.record_spans``: an mbox message by its Content-Length),
    so the file cannot be cut at them (run in the pool)."""
    spans = registry.get(format_name).record_spans
    return spans is not None and spans(r)


def count_job(job: tuple[Range, str]) -> tuple[int, int, bool]:
    """``count_range`` and ``spans_range`` of a (range, format name) pair, the shape a pool
    maps."""
    return *count_range(*job), spans_range(*job)


def uneven(units: list[Unit], jobs: int, slack: float = 0.05) -> bool:
    """Whether ``jobs`` workers taking the ``read`` units in order (as ``core.pool``
    hands them out), each unit's work taken as its size, would end more than ``slack``
    after an even share: only then is it worth cutting files into ranges, which costs a
    counting pass over them (a folder of many similar files is already even)."""
    sizes = [_size(u.path) for u in units if u.kind == "read" and u.part is None]
    free = [0] * max(1, jobs)
    for size in sizes:
        heapq.heapreplace(free, free[0] + size)
    return max(free) > (1 + slack) * sum(sizes) / len(free)


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
    ``mapper(fn, items)`` runs the counting pass over the ranges of every such file
    (default: the process pool, ``core.pool.ordered_map``; ``convo.spark`` passes a
    Spark map)."""
    run = mapper or (lambda fn, items: ordered_map(fn, items, jobs))
    part_size = part_size or PART_BYTES
    cut = [_cut(unit, forced, jobs, part_size) for unit in units]
    work = [(r, fmt.name) for fmt, ranges in filter(None, cut) for r in ranges]
    counts = iter(run(count_job, work) if work else ())
    out: list[Unit] = []
    for unit, plan in zip(units, cut, strict=True):
        found = [next(counts) for _ in plan[1]] if plan is not None else []
        if plan is None or any(spans for _, _, spans in found):
            out.append(unit)  # not cut, or a record runs over a cut: read whole
            continue
        fmt, ranges = plan
        line, record = 1, 0
        for index, r in enumerate(ranges):
            lines, records, _ = found[index]
            part = Part(fmt.name, r, Position(line, record), index)
            out.append(Unit(unit.path, isolated=unit.isolated, part=part))
            line, record = line + lines, record + records
    return out


def _cut(
    unit: Unit, forced: Format | None, jobs: int, part_size: int
) -> tuple[Format, list[Range]] | None:
    """The format and ranges of a unit to split, None for one read whole."""
    if unit.kind != "read" or _size(unit.path) < part_size // 2:
        return None  # small files: no second detection
    fmt = _format(unit, forced)
    ranges = _ranges(unit.path, fmt, jobs, part_size) if fmt is not None else []
    return (fmt, ranges) if fmt is not None and len(ranges) > 1 else None
