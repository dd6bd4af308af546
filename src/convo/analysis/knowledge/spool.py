"""The spool between the two passes of knowledge extraction: each record with its analysis.

The first pass writes each record (without its text, which the analysis has read) and
its ``Analysis.dump()``; the second reads them back in the same order (``extract.replay``
in one process, ``ranges`` per byte range), so no text is read or analysed twice. For
``convo knowledge -f jsonl`` on one core, ``packed`` spools the common chat and mail
message as a tuple instead of its record (``add_packed``, ``read_blobs``).

``two_passes`` runs both passes over any records a batch of ``BATCH`` at a time: the
first pass analyses a batch (``Conversation.observe_records``) and spools it, the
second reads the spool back a blob (a batch) at a time (``read_batches``).

Format: batches of ``BATCH`` items, each one ``marshal`` blob (two lists: the records,
and their ``Analysis.dump_all``) after its length (8 bytes, little-endian). Two lists,
not a list of pairs: a batch is read back as the two lists the second pass wants, with no
pair made on writing nor taken apart on reading (cachegrind, 20k records of
benchmarks/bench_query.py's store, with ``Analysis.dump_all``/``load_all``: the spool
stage, records copied without their text, 36.8k -> 35.5k instructions a record;
``drop_text`` instead of the copies: 4.1k less a message over the whole run). ``marshal`` writes and reads
plain data (dicts, lists, strings, numbers) faster than ``orjson`` lines and ``pickle``
(one call per batch, no JSON text to build or parse), and a spool is this run's own
temporary file, read back by the same interpreter, never kept nor read by another
program. A batch holding a value ``marshal`` cannot write (none that a JSON parser
gives; a record from an object's ``serialize`` might) goes through ``orjson`` first, as
JSON lines would have turned it.
"""

from __future__ import annotations

import marshal
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import islice, repeat
from typing import IO, Any, TypeVar

import orjson

from convo.analysis.knowledge.body_analysis import Analysis
from convo.core.io import closed_quietly, spilling

T = TypeVar("T")

BATCH = 256  # records per blob: one call to write and to read each
_HEAD = 8  # bytes of a blob's length


class SpoolWriter:
    """Records and analyses written to ``file`` ``BATCH`` at a time; ``close`` writes
    the last batch (the file itself is the caller's)."""

    def __init__(self, file: IO[bytes]):
        self.file = file
        self._records: list[dict[str, Any]] = []
        self._dumps: list[list[Any]] = []

    def add(self, record: dict[str, Any], analysis: Analysis) -> None:
        """One record with its analysis (``add_all`` of one)."""
        self.add_all([record], [analysis])

    def add_all(self, records: list[dict[str, Any]], analyses: list[Analysis]) -> None:
        """Each record with its analysis."""
        if len(records) != len(analyses):
            raise ValueError("a record without its analysis, or an analysis without its record")
        self.add_packed(records, Analysis.dump_all(analyses))

    def add_packed(self, items: list[Any], dumps: list[Any]) -> None:
        """Items with their dumps as they are (``packed.pack``'s: marshal's plain data)."""
        self._records += items
        self._dumps += dumps
        if len(self._records) >= BATCH:
            self._flush()

    def close(self) -> None:
        self._flush()

    def _flush(self) -> None:
        if not self._records:
            return
        batch = (self._records, self._dumps)
        try:
            blob = marshal.dumps(batch)
        except ValueError:  # a value marshal cannot write: as JSON would give it
            blob = marshal.dumps((list(map(_as_json, self._records)), _as_json(self._dumps)))
        self.file.write(len(blob).to_bytes(_HEAD, "little") + blob)
        self._records, self._dumps = [], []


def _as_json(value: Any) -> Any:
    """``value`` as JSON would give it back; a tuple of ``packed.pack`` (its head bytes
    first) stays one."""
    if type(value) is tuple:
        return (value[0], *orjson.loads(orjson.dumps(value[1:])))
    return orjson.loads(orjson.dumps(value))


def two_passes(
    records: Iterable[dict[str, Any]],
    observe: Callable[[list[dict[str, Any]]], list[Analysis]],
    *,
    keep_text: bool,
    memory: int,
    own: bool = False,
) -> Iterator[tuple[list[dict[str, Any]], list[Analysis]]]:
    """Both passes' batches: each batch of ``records`` analysed by ``observe`` and spooled
    (in memory up to ``memory`` bytes, then on disk; without their text unless
    ``keep_text``), then, once all are, read back a batch at a time. ``own``: the
    records are the caller's to change (parsed for this run), so their text is taken
    out in place (``drop_text``), not copied without it."""
    with closed_quietly(tempfile.SpooledTemporaryFile(max_size=memory)) as file:
        spool = SpoolWriter(file)
        for batch in batches(records, BATCH):
            analyses = observe(batch)
            if not keep_text:
                batch = drop_text(batch) if own else list(map(without_text, batch))
            with spilling():  # past ``memory`` the spool is a file in $TMPDIR
                spool.add_all(batch, analyses)
        with spilling():
            spool.close()
        file.seek(0)
        yield from read_batches(file)


def without_text(record: dict[str, Any]) -> dict[str, Any]:
    """The record as the second pass needs it: its text is in the analysis already."""
    if "textChunks" not in record and "text_chunks" not in record:
        return record
    record = record.copy()  # a C copy, then the text out: faster than a comprehension
    record.pop("textChunks", None)
    record.pop("text_chunks", None)
    return record


def drop_text(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records``, each without its text chunks (taken out in place by C loops:
    ``without_text`` copies each record, a call a record)."""
    deque(map(dict.pop, records, _CHUNKS, _NONE), 0)
    deque(map(dict.pop, records, _CHUNKS_PY, _NONE), 0)
    return records


_CHUNKS, _CHUNKS_PY, _NONE = repeat("textChunks"), repeat("text_chunks"), repeat(None)


def batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of ``size`` (the last one shorter)."""
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


def read(file: IO[bytes]) -> Iterator[tuple[dict[str, Any], Analysis]]:
    """The records and analyses a ``SpoolWriter`` wrote to ``file``, in order (from
    its current position)."""
    for records, analyses in read_batches(file):
        yield from zip(records, analyses, strict=True)


def read_batches(file: IO[bytes]) -> Iterator[tuple[list[dict[str, Any]], list[Analysis]]]:
    """``read`` a blob at a time: its records and their analyses, two lists."""
    for records, dumps in read_blobs(file):
        yield records, Analysis.load_all(dumps)


def read_blobs(file: IO[bytes]) -> Iterator[tuple[list[Any], list[Any]]]:
    """The two lists of each blob, as written (``add_packed``)."""
    while head := file.read(_HEAD):
        yield marshal.loads(file.read(int.from_bytes(head, "little")))
