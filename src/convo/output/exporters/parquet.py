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

Folders are hive style, ``format=slack/month=2024-03/part-0.parquet``, named by
``partition_name``: one folder per partition value and no two values in one folder. A
value is percent-encoded (so no value can name another folder); an empty or missing one
is Hive's ``__HIVE_DEFAULT_PARTITION__`` (Hive does not tell them apart, so they are one
partition), and a value that is that name literally is written with its first ``_``
encoded. A value whose encoded form is over ``MAX_PARTITION_NAME`` characters is cut
and ends in ``~`` and a hash of the whole value (``~`` is encoded in every other name),
so the folder name stays within every file system's limit; reading the dataset back
gives such a value as its cut name, and pyarrow reads the encoded literal
``__HIVE_DEFAULT_PARTITION__`` back as null (it decodes a name before it compares it
with Hive's), though its rows keep a folder of their own. The dataset is written into a hidden folder beside
the target and renamed to it when complete (``dataset_folder``): a failed or
interrupted export leaves no partial dataset. The columns are ``convo.core.columns``. pyarrow is an
optional dependency (the ``parquet`` extra; ``core.extras`` says how to install it).
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from convo.core import fields
from convo.core.collector import fewer_collections
from convo.core.columns import (
    COLUMN_NAMES,
    COLUMNS,
    UNDATED_MONTH,
    record_values,
    undated_offset,
)
from convo.core.errors import UsageError
from convo.core.pool import cpu_count
from convo.core.timestamps import CANONICAL, UNDATED_DAY
from convo.output.exporters.dataset import dataset_folder, partition_name

BATCH_ROWS = 5_000
ROW_GROUP_ROWS = 100_000
BUFFER_BYTES = 8 << 20
SPILL_BUFFER = 1 << 20  # a spill's IPC writes go through a buffer this size
WRITE_THREADS = 2  # at most: each holds a partition's table while it writes


def require_pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.compute  # used as pa.compute
    except ImportError:
        from convo.core.extras import missing

        raise missing("Parquet", "pyarrow", "parquet") from None
    return pyarrow


def arrow_schema() -> Any:
    pa = require_pyarrow()
    kinds = {
        "string": pa.string(),
        "strings": pa.list_(pa.string()),
        "timestamp": pa.timestamp("s", tz="UTC"),
        "seconds": pa.int64(),
    }
    return pa.schema([pa.field(name, kinds[kind]) for name, kind in COLUMNS])


def record_type(pa: Any) -> Any:
    """The fields ``arrow_batch`` reads, as one Arrow struct type (both spellings)."""
    text, texts = pa.string(), pa.list_(pa.string())
    meta = pa.struct([("speaker", text), ("listeners", texts), ("recipients", texts)])
    names = ("id", "timestamp", "format", "source_id", "thread", "replyTo", "reply_to",
             "role", "subject")  # fmt: skip
    lists = ("tags", "textChunks", "text_chunks")
    return pa.struct(
        [*((n, text) for n in names), *((n, texts) for n in lists), ("metadata", meta)]
    )


def arrow_batch(rows: list[dict[str, Any]], schema: Any) -> Any:
    """Records as one Arrow ``RecordBatch`` of ``COLUMNS``: the values
    ``columns.record_values`` gives (a property test holds them equal).

    This is the export's hot path. Arrow reads the fields of all the records at once
    (one conversion of the dicts to a struct array, in C++), and whole columns are then
    finished with Arrow's compute functions; only a batch where a field has a wrong type
    is read record by record through ``record_values``. Against that record-by-record
    batch: 4.77× less CPU (noise ±18%; 100k records in batches of 5,000,
    ``benchmarks/bench_fastpaths.py``)."""
    pa = require_pyarrow()
    try:
        got = pa.array(rows, record_type(pa))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return _exact_batch(rows, schema)
    field = _list_fields(got)
    if not _plain_lists(rows, field):
        return _exact_batch(rows, schema)
    extras = [orjson.dumps(e) if type(e) is dict and e else None
              for e in map(dict.get, rows, itertools.repeat("extra"))]  # fmt: skip
    stamps = _timestamps(pa, got.field("timestamp"), rows)
    return struct_batch(got, stamps, pa.array(extras, pa.string()), schema)


def _list_fields(got: Any) -> dict[str, Any]:
    """The list fields of ``record_type``'s struct array, by name."""
    field = {name: got.field(name) for name in ("tags", "textChunks", "text_chunks")}
    # flatten(): a child holds the parent's nulls (a record without metadata)
    meta = dict(
        zip(("speaker", "listeners", "recipients"), got.field("metadata").flatten(), strict=True)
    )
    field["listeners"], field["recipients"] = meta["listeners"], meta["recipients"]
    return field


def struct_batch(got: Any, stamps: Any, extras: Any, schema: Any) -> Any:
    """The export's ``RecordBatch`` of records read as ``record_type``'s struct array
    ``got`` whose list fields hold lists (not strings read as lists), with their
    canonical timestamp strings ``stamps`` and ``extra`` as JSON text."""
    pa = require_pyarrow()
    field = _list_fields(got)
    pc = pa.compute
    stamps, offsets = _known(pa, stamps)
    chunks = _texts(pa, pc.coalesce(field["textChunks"], field["text_chunks"]))
    reply = pc.coalesce(_blank_null(pa, got.field("replyTo")), got.field("reply_to"))
    columns = {
        "id": _blank_null(pa, got.field("id")),
        "timestamp": stamps.cast(schema.field("timestamp").type),
        "speaker": got.field("metadata").flatten()[0],
        "listeners": _texts(pa, pc.coalesce(field["listeners"], field["recipients"])),
        "tags": _texts(pa, field["tags"]),
        "text_chunks": chunks,
        "text": pc.binary_join(chunks, "\n"),
        "format": pc.fill_null(_blank_null(pa, got.field("format")), "convo"),
        "reply_to": _blank_null(pa, reply),
        "extra": extras,
        "month": pc.fill_null(pc.utf8_slice_codeunits(stamps, 0, 7), UNDATED_MONTH),
        "undated_offset": offsets,
    }
    for name in ("source_id", "thread", "role", "subject"):
        columns[name] = _blank_null(pa, got.field(name))
    return pa.RecordBatch.from_arrays([columns[n] for n in COLUMN_NAMES], schema=schema)


def _plain_lists(rows: list[dict[str, Any]], lists: dict[str, Any]) -> bool:
    """Whether every list field of ``rows`` is a list or nothing, as Arrow read it. Arrow
    also takes a string for a list (of its characters, where ``core.fields`` sees no
    list), so a list column with a one-character item is checked record by record. (The
    records are JSON values: no tuple stands where a list does.)"""
    pc = require_pyarrow().compute
    for name, array in lists.items():
        if array.null_count == len(array):
            continue
        if pc.any(pc.equal(pc.utf8_length(pc.list_flatten(array)), 1)).as_py():
            inner = name in ("listeners", "recipients")
            for row in rows:
                holder = row.get("metadata") if inner else row
                value = holder.get(name) if type(holder) is dict else None
                if value is not None and type(value) is not list:
                    return False
    return True


def _blank_null(pa: Any, array: Any) -> Any:
    """A string column with blanks as nulls (what ``fields.string`` gives)."""
    blank = pa.compute.equal(array, "")
    if pa.compute.any(blank).as_py():
        return pa.compute.if_else(blank, pa.scalar(None, pa.string()), array)
    return array


def _texts(pa: Any, lists: Any) -> Any:
    """A list-of-strings column as ``fields.str_list`` reads it: no list is an empty
    one, a None inside a list is left out."""
    if lists.null_count:
        lists = pa.compute.fill_null(lists, pa.scalar([], lists.type))
    if lists.values.null_count:
        return pa.array([[x for x in v if x is not None] for v in lists.to_pylist()], lists.type)
    return lists


def _timestamps(pa: Any, array: Any, rows: list[dict[str, Any]]) -> Any:
    """Canonical timestamp strings (``fields.timestamp``), checked in one go."""
    pattern = f"^{CANONICAL.pattern}\\z"  # RE2: ASCII digits, \z the very end
    if (
        array.null_count == 0
        and pa.compute.all(pa.compute.match_substring_regex(array, pattern)).as_py()
    ):
        return array
    return pa.array([fields.timestamp(r) for r in rows], pa.string())


def _known(pa: Any, stamps: Any) -> tuple[Any, Any]:
    """Canonical timestamp strings with the unknown ones as nulls, and the ``undated_offset``
    column (``core.columns``)."""
    unknown = pa.compute.starts_with(stamps, UNDATED_DAY)
    if not pa.compute.any(unknown).as_py():
        return stamps, pa.nulls(len(stamps), pa.int64())
    offsets = pa.array([undated_offset(s) for s in stamps.to_pylist()], pa.int64())
    return pa.compute.if_else(unknown, pa.scalar(None, pa.string()), stamps), offsets


def _exact_batch(rows: list[dict[str, Any]], schema: Any) -> Any:
    """``arrow_batch`` record by record, for records with a field of a wrong type."""
    pa = require_pyarrow()
    values = list(zip(*map(record_values, rows), strict=True))
    columns = [pa.array(list(v), schema.field(i).type if name != "timestamp" else pa.string())
               for i, (name, v) in enumerate(zip(COLUMN_NAMES, values, strict=True))]  # fmt: skip
    stamps = COLUMN_NAMES.index("timestamp")
    columns[stamps] = columns[stamps].cast(schema.field("timestamp").type)
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def batches(
    records: Iterable[dict[str, Any]], schema: Any, size: int = BATCH_ROWS
) -> Iterator[Any]:
    rows: list[dict[str, Any]] = []
    for record in records:
        rows.append(record)
        if len(rows) >= size:
            batch = arrow_batch(rows, schema)
            rows = []  # the records go before the batch is written (memory)
            yield batch
    if rows:
        yield arrow_batch(rows, schema)


def check_partitions(partition_by: Iterable[str]) -> tuple[str, ...]:
    chosen = tuple(p for p in partition_by if p)
    unknown = [
        p
        for p in chosen
        if p not in COLUMN_NAMES
        or p in ("timestamp", "listeners", "tags", "text_chunks", "undated_offset")
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

    def __init__(
        self,
        root: Path,
        schema: Any,
        partition_by: tuple[str, ...],
        spill: Path | None = None,
        prefix: str = "",
        buffer_bytes: int = BUFFER_BYTES,
    ):
        import pyarrow.parquet as pq

        self.pa = require_pyarrow()
        self.pq = pq
        self.root = root
        self.partition_by = partition_by
        self.file_schema = schema
        for name in partition_by:
            self.file_schema = self.file_schema.remove(self.file_schema.get_field_index(name))
        # ``text`` is the chunks joined: not spilled, joined again when a file is written
        self.derived = partition_by and "text" in self.file_schema.names
        self.kept = [n for n in schema.names if not (self.derived and n == "text")]
        self.spill_schema = (
            schema.remove(schema.get_field_index("text")) if self.derived else schema
        )
        for name in partition_by:
            self.spill_schema = self.spill_schema.remove(self.spill_schema.get_field_index(name))
        self.buffer: list[Any] = []
        self.buffered_bytes = 0
        self.flat: Any = None  # the one writer of an unpartitioned export
        self.spill: Path | None = spill  # a hidden folder in root, gone when done
        self.own_spill = spill is None  # made (and removed) here, else the caller's
        self.prefix = prefix  # of the spill files' names (a worker's range number)
        self.buffer_bytes = buffer_bytes
        self.spills: list[str] = []  # the IPC files written so far
        self.runs: dict[tuple[str, ...], list[tuple[int, int]]] = {}  # key: (spill, batch)

    def write(self, batch: Any) -> None:
        if self.derived:
            batch = batch.select(self.kept)
        self.buffer.append(batch)
        self.buffered_bytes += batch.nbytes
        if self.buffered_bytes >= self.buffer_bytes:
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
        table = _blank_partitions_null(pa, table, self.partition_by)
        keys = [(name, "ascending") for name in self.partition_by]
        table = table.take(pa.compute.sort_indices(table, sort_keys=keys))  # stable
        starts = _run_starts(pa, table, self.partition_by)
        runs = zip(
            *(table.column(n).take(starts).to_pylist() for n in self.partition_by), strict=True
        )
        values = table.drop_columns(list(self.partition_by))
        if self.spill is None:
            self.spill = Path(tempfile.mkdtemp(prefix=".convo-spill-", dir=self.root))
        path = self.spill / f"{self.prefix}{len(self.spills)}.arrow"
        bounds = [*starts, table.num_rows]
        sink = pa.output_stream(str(path), buffer_size=SPILL_BUFFER)
        with sink, pa.ipc.new_file(sink, self.spill_schema) as out:
            n = 0
            for (start, end), key in zip(itertools.pairwise(bounds), runs, strict=True):
                held = self.runs.setdefault(key, [])
                for batch in values.slice(start, end - start).to_batches():
                    out.write_batch(batch)
                    held.append((len(self.spills), n))
                    n += 1
        self.spills.append(str(path))
        del table, values
        pa.default_memory_pool().release_unused()  # freed buffers back to the system

    def close(self) -> None:
        """Flush, then write each partition's runs, in order, as its one file: read here,
        written by threads (Parquet encoding does not hold the GIL), a few at a time."""
        from concurrent.futures import Future, ThreadPoolExecutor

        self.flush()
        if self.flat is not None:
            self.flat.close()
        spills = SpillReader()
        threads = min(WRITE_THREADS, cpu_count())
        pending: list[Future[None]] = []
        with ThreadPoolExecutor(threads) as pool:
            for key, runs in self.runs.items():
                table = spills.table([(self.spills[spill], n) for spill, n in runs], self)
                pending.append(pool.submit(self.write_file, key, table))
                if len(pending) > threads:
                    pending.pop(0).result()
            for future in pending:
                future.result()
        spills.close()
        self.discard()

    def write_file(self, key: tuple[str, ...], table: Any) -> None:
        """One partition's file, from its spilled rows (in a thread of ``close``, or in a
        worker of ``parquet_jobs``)."""
        folder = self.root.joinpath(
            *(
                f"{name}={partition_name(value)}"
                for name, value in zip(self.partition_by, key, strict=True)
            )
        )
        folder.mkdir(parents=True, exist_ok=True)
        if (folder / "part-0.parquet").exists():  # partition_name is injective: never
            raise AssertionError(f"two partitions in {folder}")
        if self.derived:
            text = self.pa.compute.binary_join(table.column("text_chunks"), "\n")
            at = self.file_schema.get_field_index("text")
            table = table.add_column(at, self.file_schema.field(at), text)
        self.pq.write_table(table, folder / "part-0.parquet", row_group_size=ROW_GROUP_ROWS)
        del table
        # A buffer freed in another thread than its own stays with the allocator until
        # asked for: without this, writing in threads holds tens of MB more.
        self.pa.default_memory_pool().release_unused()

    def discard(self) -> None:
        """Remove the spill files (also when the export fails), unless they are the caller's."""
        self.spills.clear()
        if self.spill is not None and self.own_spill:
            shutil.rmtree(self.spill, ignore_errors=True)
            self.spill = None


class SpillReader:
    """The spill files, each opened once, read back with plain reads (a memory map's
    pages would count as this process's)."""

    def __init__(self) -> None:
        self.pa = require_pyarrow()
        self.files: dict[str, Any] = {}

    def table(self, refs: list[tuple[str, int]], writer: PartitionedWriter) -> Any:
        """The batches ``refs`` (spill file, batch number) as one table, in that order."""
        batches = []
        for path, n in refs:
            reader = self.files.get(path)
            if reader is None:
                reader = self.files[path] = self.pa.ipc.open_file(self.pa.OSFile(path))
            batches.append(reader.get_batch(n))
        # one chunk a column: the same file, written in two thirds of the time
        table = self.pa.Table.from_batches(batches, schema=writer.spill_schema)
        return table.combine_chunks()

    def close(self) -> None:
        self.files.clear()


def _blank_partitions_null(pa: Any, table: Any, names: tuple[str, ...]) -> Any:
    """``table`` with empty partition values null: Hive has one partition for both."""
    pc = pa.compute
    for name in names:
        column = table.column(name)
        blank = pc.fill_null(pc.equal(column, ""), False)
        if pc.any(blank).as_py():
            at = table.schema.get_field_index(name)
            fixed = pc.if_else(blank, pa.scalar(None, column.type), column)
            table = table.set_column(at, table.schema.field(at), fixed)
    return table


def _run_starts(pa: Any, table: Any, names: tuple[str, ...]) -> list[int]:
    """The first row of each run of equal partition values in a sorted ``table``."""
    pc = pa.compute
    code: Any = None
    for name in names:
        encoded = pc.dictionary_encode(table.column(name).combine_chunks(), null_encoding="encode")
        part = pc.cast(encoded.indices, pa.int64())
        code = part if code is None else pc.add(pc.multiply(code, len(encoded.dictionary)), part)
    changes = pc.not_equal(code.slice(1), code.slice(0, len(code) - 1))
    return [0, *(i + 1 for i in pc.indices_nonzero(changes).to_pylist())]


def write_parquet(
    records: Iterable[dict[str, Any]],
    out_dir: str | Path,
    *,
    partition_by: Iterable[str] = ("format", "month"),
) -> int:
    """Write ``records`` under ``out_dir`` (which must be new or empty); returns the count."""
    require_pyarrow()
    chosen = check_partitions(partition_by)
    schema = arrow_schema()
    count = 0
    with dataset_folder(out_dir) as folder:
        writer = PartitionedWriter(folder, schema, chosen)
        try:
            with fewer_collections():
                for batch in batches(records, schema):
                    count += batch.num_rows
                    writer.write(batch)
                writer.close()
        finally:
            writer.discard()
    return count
