"""Records to a Parquet dataset with pyarrow: typed columns, hive partitions, flat memory.

``write_parquet(records, out_dir)`` streams. Records become Arrow record batches of
``BATCH_ROWS`` rows, built column by column (``arrow_batch``: whole columns converted
and checked by Arrow, ``core.fields`` only for a column that holds something unusual).
Unpartitioned (``partition_by=()``), the batches go to one file in row groups of about
``BUFFER_BYTES``. Partitioned (``format`` and ``month`` unless ``partition_by`` says
otherwise), every ``BUFFER_BYTES`` of batches are sorted by the partition columns and
spilled to an Arrow IPC file in a hidden folder of the output, one IPC batch per
partition; at the end each partition's batches are read back, in input order, and
written as that partition's one file (row groups of up to ``ROW_GROUP_ROWS``). So a
store of hundreds of small partitions gets one file and one row group per partition,
not many tiny ones, only one Parquet writer is open at a time, and memory is the buffer
and its sorted copy whatever the input size and the number of partitions (the spill
costs disk the size of the data, removed when done or on failure).

Folders are hive style, ``format=slack/month=2024-03/part-0.parquet``; partition values
are percent-encoded, so no value can name another folder, and an empty one is Hive's
``__HIVE_DEFAULT_PARTITION__``. The columns are ``convo.core.columns``. pyarrow is an
optional dependency (``pip install 'convo-tools[parquet]'``).
"""

from __future__ import annotations

import gc
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from convo.core import fields
from convo.core.columns import COLUMN_NAMES, COLUMNS
from convo.core.errors import InputError, UsageError
from convo.core.timestamps import CANONICAL

BATCH_ROWS = 5_000
ROW_GROUP_ROWS = 100_000
BUFFER_BYTES = 8 << 20
GC_THRESHOLD = 100_000
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"


def require_pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.compute  # used as pa.compute
    except ImportError:
        raise UsageError(
            "Parquet needs pyarrow", hint="pip install 'convo-tools[parquet]'"
        ) from None
    return pyarrow


def arrow_schema() -> Any:
    pa = require_pyarrow()
    kinds = {
        "string": pa.string(),
        "strings": pa.list_(pa.string()),
        "timestamp": pa.timestamp("s", tz="UTC"),
    }
    return pa.schema([pa.field(name, kinds[kind]) for name, kind in COLUMNS])


def _strings(pa: Any, values: list[Any], exact: Any, rows: list[dict[str, Any]]) -> Any:
    """A string column from ``values`` as Arrow checks them, blanks as nulls (what
    ``fields.string`` gives); anything but strings and None: ``exact`` per record."""
    try:
        array = pa.array(values, pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([exact(r) for r in rows], pa.string())
    blank = pa.compute.equal(array, "")
    if pa.compute.any(blank).as_py():
        array = pa.compute.if_else(blank, pa.scalar(None, pa.string()), array)
    return array


def _lists(pa: Any, values: list[Any], exact: Any, rows: list[dict[str, Any]]) -> Any:
    """A list-of-strings column; anything but lists of strings: ``exact`` per record."""
    kind = pa.list_(pa.string())
    if all(type(v) is list for v in values):
        try:
            array = pa.array(values, kind)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass
        else:
            if array.values.null_count == 0:  # a None in a list: fields drops it
                return array
    return pa.array([exact(r) for r in rows], kind)


def _speakers(pa: Any, metas: list[dict[str, Any]], rows: list[dict[str, Any]]) -> Any:
    try:
        return pa.array([m.get("speaker") for m in metas], pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([fields.speaker(r) for r in rows], pa.string())


def _timestamps(pa: Any, rows: list[dict[str, Any]]) -> Any:
    """Canonical timestamp strings (``fields.timestamp``), checked in one go."""
    values = [r.get("timestamp") for r in rows]
    try:
        array = pa.array(values, pa.string())
        pattern = f"^{CANONICAL.pattern}\\z"  # RE2: ASCII digits, \z the very end
        if (
            array.null_count == 0
            and pa.compute.all(pa.compute.match_substring_regex(array, pattern)).as_py()
        ):
            return array
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        pass
    return pa.array([fields.timestamp(r) for r in rows], pa.string())


def arrow_batch(rows: list[dict[str, Any]], schema: Any) -> Any:
    """Records as one Arrow ``RecordBatch`` of ``COLUMNS``, built column by column: the
    values ``columns.record_values`` gives (tests hold them equal), with whole columns
    converted and checked by Arrow and the ``core.fields`` accessors used only for a
    column that holds something unusual (a wrong type, a missing list). This is the
    export's hot path: a record costs a few list comprehensions, not a dozen calls."""
    pa = require_pyarrow()
    pc = pa.compute

    def get(key: str) -> list[Any]:
        return [r.get(key) for r in rows]

    metas = [m if isinstance(m, dict) else {} for m in get("metadata")]
    chunks = _either(get("textChunks"), rows, "text_chunks")
    heard = _either([m.get("listeners") for m in metas], metas, "recipients")
    text_chunks = _lists(pa, chunks, fields.chunks, rows)
    stamps = _timestamps(pa, rows)
    extras = [e if isinstance(e, dict) and e else None for e in get("extra")]
    reply = [r.get("replyTo") or r.get("reply_to") for r in rows]
    columns = {
        "id": _strings(pa, get("id"), fields.record_id, rows),
        "timestamp": stamps.cast(schema.field("timestamp").type),
        "speaker": _speakers(pa, metas, rows),
        "listeners": _lists(pa, heard, fields.listeners, rows),
        "tags": _lists(pa, get("tags"), fields.tags, rows),
        "text_chunks": text_chunks,
        "text": pc.binary_join(text_chunks, "\n"),
        "format": pc.fill_null(_strings(pa, get("format"), _format, rows), "convo"),
        "source_id": _strings(pa, get("source_id"), _field("source_id"), rows),
        "thread": _strings(pa, get("thread"), _field("thread"), rows),
        "reply_to": _strings(pa, reply, _reply_to, rows),
        "role": _strings(pa, get("role"), _field("role"), rows),
        "subject": _strings(pa, get("subject"), _field("subject"), rows),
        "extra": pa.array([orjson.dumps(e) if e else None for e in extras], pa.string()),
        "month": pc.utf8_slice_codeunits(stamps, 0, 7),
    }
    return pa.RecordBatch.from_arrays([columns[n] for n in COLUMN_NAMES], schema=schema)


def _either(values: list[Any], dicts: list[dict[str, Any]], other: str) -> list[Any]:
    """``values``, a missing one taken from the ``other`` key (the older spelling)."""
    if None not in values:
        return values
    return [d.get(other) if v is None else v for v, d in zip(values, dicts, strict=True)]


def _field(key: str) -> Any:
    return lambda record: fields.string(record, key)


def _format(record: dict[str, Any]) -> str | None:
    return fields.string(record, "format")


def _reply_to(record: dict[str, Any]) -> str | None:
    return fields.string(record, "replyTo") or fields.string(record, "reply_to")


def _batches(records: Iterable[dict[str, Any]], schema: Any) -> Iterator[Any]:
    rows: list[dict[str, Any]] = []
    for record in records:
        rows.append(record)
        if len(rows) >= BATCH_ROWS:
            yield arrow_batch(rows, schema)
            rows = []
    if rows:
        yield arrow_batch(rows, schema)


def check_partitions(partition_by: Iterable[str]) -> tuple[str, ...]:
    chosen = tuple(p for p in partition_by if p)
    unknown = [
        p
        for p in chosen
        if p not in COLUMN_NAMES or p in ("timestamp", "listeners", "tags", "text_chunks")
    ]
    if unknown:
        raise UsageError(
            f"cannot partition by {', '.join(unknown)}",
            hint="choose string columns such as format, month, thread, role (or none)",
        )
    return chosen


class PartitionedWriter:
    """Batches sorted by partition and spilled, then one file per partition (see the
    module docstring)."""

    def __init__(self, root: Path, schema: Any, partition_by: tuple[str, ...]):
        import pyarrow.parquet as pq

        self.pa = require_pyarrow()
        self.pq = pq
        self.root = root
        self.partition_by = partition_by
        self.file_schema = schema
        for name in partition_by:
            self.file_schema = self.file_schema.remove(self.file_schema.get_field_index(name))
        self.buffer: list[Any] = []
        self.buffered_bytes = 0
        self.flat: Any = None  # the one writer of an unpartitioned export
        self.spill: Path | None = None  # a hidden folder in root, gone when done
        self.spills: list[Any] = []  # the IPC files written so far
        self.runs: dict[tuple[str, ...], list[tuple[int, int]]] = {}  # key: (spill, batch)

    def write(self, batch: Any) -> None:
        self.buffer.append(batch)
        self.buffered_bytes += batch.nbytes
        if self.buffered_bytes >= BUFFER_BYTES:
            self.flush()

    def flush(self) -> None:
        """Write out the buffer: as a row group (unpartitioned), else sorted by partition
        into a spill file, one IPC batch per partition."""
        if not self.buffer:
            return
        pa = self.pa
        table = pa.Table.from_batches(self.buffer)
        self.buffer, self.buffered_bytes = [], 0
        if not self.partition_by:
            if self.flat is None:
                self.flat = self.pq.ParquetWriter(self.root / "part-0.parquet", self.file_schema)
            self.flat.write_table(table, row_group_size=ROW_GROUP_ROWS)
            return
        keys = [(name, "ascending") for name in self.partition_by]
        table = table.take(pa.compute.sort_indices(table, sort_keys=keys))  # stable
        columns = [table.column(name).to_pylist() for name in self.partition_by]
        values = table.drop_columns(list(self.partition_by))
        if self.spill is None:
            self.spill = Path(tempfile.mkdtemp(prefix=".convo-spill-", dir=self.root))
        path = self.spill / f"{len(self.spills)}.arrow"
        with pa.ipc.new_file(path, self.file_schema) as out:
            start = n = 0
            for end, key in _runs(list(zip(*columns, strict=True))):
                runs = self.runs.setdefault(key, [])
                for batch in values.slice(start, end - start).to_batches():
                    out.write_batch(batch)
                    runs.append((len(self.spills), n))
                    n += 1
                start = end
        # read back with plain reads: a memory map's pages would count as this process's
        self.spills.append(pa.ipc.open_file(pa.OSFile(str(path))))

    def close(self) -> None:
        """Flush, then write each partition's runs, in order, as its one file."""
        self.flush()
        if self.flat is not None:
            self.flat.close()
        for key, runs in self.runs.items():
            folder = self.root.joinpath(
                *(
                    f"{name}={quote(value, safe='') if value else NULL_PARTITION}"
                    for name, value in zip(self.partition_by, key, strict=True)
                )
            )
            folder.mkdir(parents=True, exist_ok=True)
            batches = [self.spills[spill].get_batch(n) for spill, n in runs]
            table = self.pa.Table.from_batches(batches, schema=self.file_schema)
            self.pq.write_table(table, folder / "part-0.parquet", row_group_size=ROW_GROUP_ROWS)
        self.discard()

    def discard(self) -> None:
        """Remove the spill files (also when the export fails)."""
        self.spills.clear()
        if self.spill is not None:
            shutil.rmtree(self.spill, ignore_errors=True)
            self.spill = None


def _runs(keys: list[tuple[Any, ...]]) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """(end, key) of each run of equal keys in sorted ``keys``."""
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i] != keys[i - 1]:
            yield i, keys[i - 1]


def write_parquet(
    records: Iterable[dict[str, Any]],
    out_dir: str | Path,
    *,
    partition_by: Iterable[str] = ("format", "month"),
) -> int:
    """Write ``records`` under ``out_dir`` (which must be new or empty); returns the count."""
    require_pyarrow()
    target = Path(out_dir)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InputError(
            "not an empty folder", where=str(target), hint="write a Parquet dataset to a new folder"
        )
    schema = arrow_schema()
    writer = PartitionedWriter(target, schema, check_partitions(partition_by))
    count = 0
    threshold = gc.get_threshold()
    # A batch holds thousands of parsed records (acyclic JSON): the default threshold
    # would scan them over and over, a quarter of the export's CPU time.
    gc.set_threshold(max(threshold[0], GC_THRESHOLD), *threshold[1:])
    try:
        target.mkdir(parents=True, exist_ok=True)
        for batch in _batches(records, schema):
            count += batch.num_rows
            writer.write(batch)
        writer.close()
    except OSError as e:
        raise InputError(f"cannot write Parquet ({e.strerror or e})", where=str(target)) from None
    finally:
        gc.set_threshold(*threshold)
        writer.discard()
    return count
