"""The spool between the two passes of knowledge extraction: each record with its analysis.

The first pass writes each record (without its text, which the analysis has read) and
its ``Analysis.dump()``; the second reads them back in the same order (``extract.replay``
in one process, ``ranges`` per byte range), so no text is read or analysed twice.

Format: batches of ``BATCH`` items, each one ``marshal`` blob (a list of ``(record,
dump)`` pairs) after its length (8 bytes, little-endian). ``marshal`` writes and reads
plain data (dicts, lists, strings, numbers) faster than ``orjson`` lines and ``pickle``
(one call per batch, no JSON text to build or parse), and a spool is this run's own
temporary file, read back by the same interpreter, never kept nor read by another
program. A batch holding a value ``marshal`` cannot write (none that a JSON parser
gives; a record from an object's ``serialize`` might) goes through ``orjson`` first, as
JSON lines would have turned it.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterator
from typing import IO, Any

import orjson

from convo.analysis.knowledge.body_analysis import Analysis

BATCH = 256  # records per blob: one call to write and to read each
_HEAD = 8  # bytes of a blob's length


class SpoolWriter:
    """Records and analyses written to ``file`` ``BATCH`` at a time; ``close`` writes
    the last batch (the file itself is the caller's)."""

    def __init__(self, file: IO[bytes]):
        self.file = file
        self._batch: list[tuple[dict[str, Any], list[Any]]] = []

    def add(self, record: dict[str, Any], analysis: Analysis) -> None:
        self._batch.append((record, analysis.dump()))
        if len(self._batch) >= BATCH:
            self._flush()

    def close(self) -> None:
        self._flush()

    def _flush(self) -> None:
        batch = self._batch
        if not batch:
            return
        try:
            blob = marshal.dumps(batch)
        except ValueError:  # a value marshal cannot write: as JSON would give it
            blob = marshal.dumps([orjson.loads(orjson.dumps(item)) for item in batch])
        self.file.write(len(blob).to_bytes(_HEAD, "little") + blob)
        batch.clear()


def read(file: IO[bytes]) -> Iterator[tuple[dict[str, Any], Analysis]]:
    """The records and analyses a ``SpoolWriter`` wrote to ``file``, in order (from
    its current position)."""
    load = Analysis.load
    while head := file.read(_HEAD):
        for record, data in marshal.loads(file.read(int.from_bytes(head, "little"))):
            yield record, load(data)
