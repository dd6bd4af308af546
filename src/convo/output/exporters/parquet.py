"""Records to a Parquet dataset with pyarrow: typed columns, hive partitions, flat memory.

``write_parquet(records, out_dir)`` streams. Records become Arrow record batches of
``BATCH_ROWS`` rows (built column by column; timestamps cast by Arrow in one go); each batch
is split by the partition columns (``format`` and ``month`` unless ``partition_by`` says
otherwise; none writes plain files) and buffered per partition. A partition whose buffer
reaches ``ROW_GROUP_ROWS`` is written as one row group to its own file, so files have few,
large row groups; when all buffers together pass ``BUFFER_BYTES`` the largest are written
early, and at most ``MAX_OPEN_FILES`` files are open (the least recently written is closed,
and a partition written again later gets its next ``part-N.parquet``). Memory is thus
bounded whatever the input size and the number of partitions.

Folders are hive style, ``format=slack/month=2024-03/part-0.parquet``; partition values
are percent-encoded, so no value can name another folder, and an empty one is Hive's
``__HIVE_DEFAULT_PARTITION__``. The columns are ``convo.core.columns``. pyarrow is an
optional dependency (``pip install 'convo-tools[parquet]'``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from convo.core.columns import COLUMN_NAMES, COLUMNS, record_values
from convo.core.errors import InputError, UsageError

BATCH_ROWS = 10_000
ROW_GROUP_ROWS = 20_000
BUFFER_BYTES = 32 << 20
MAX_OPEN_FILES = 32
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"


def require_pyarrow() -> Any:
    try:
        import pyarrow
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


def _batches(records: Iterable[dict[str, Any]], schema: Any) -> Iterator[Any]:
    pa = require_pyarrow()
    string_ts = schema.set(1, pa.field("timestamp", pa.string()))

    def batch(rows: list[tuple[Any, ...]]) -> Any:
        arrays = [
            pa.array(col, type=string_ts.field(i).type)
            for i, col in enumerate(zip(*rows, strict=True))
        ]
        arrays[1] = arrays[1].cast(schema.field(1).type)
        return pa.RecordBatch.from_arrays(arrays, schema=schema)

    rows: list[tuple[Any, ...]] = []
    for record in records:
        rows.append(record_values(record))
        if len(rows) >= BATCH_ROWS:
            yield batch(rows)
            rows = []
    if rows:
        yield batch(rows)


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
    """Row groups per partition, buffered under one memory bound (see the module doc)."""

    def __init__(self, root: Path, schema: Any, partition_by: tuple[str, ...]):
        import pyarrow.parquet as pq

        self.pq = pq
        self.root = root
        self.partition_by = partition_by
        self.file_schema = schema
        for name in partition_by:
            self.file_schema = self.file_schema.remove(self.file_schema.get_field_index(name))
        self.buffers: dict[tuple[str, ...], list[Any]] = {}
        self.buffered_rows: dict[tuple[str, ...], int] = {}
        self.buffered_bytes = 0
        self.open: OrderedDict[tuple[str, ...], Any] = OrderedDict()
        self.parts: dict[tuple[str, ...], int] = {}

    def write(self, batch: Any) -> None:
        table = require_pyarrow().Table.from_batches([batch])
        if not self.partition_by:
            self._buffer((), table)
            return
        keys = [table.column(name).to_pylist() for name in self.partition_by]
        groups: dict[tuple[str, ...], list[int]] = {}
        for i, key in enumerate(zip(*keys, strict=True)):
            groups.setdefault(key, []).append(i)
        for key, rows in groups.items():
            self._buffer(key, table.take(rows).drop_columns(list(self.partition_by)))

    def _buffer(self, key: tuple[str, ...], table: Any) -> None:
        self.buffers.setdefault(key, []).append(table)
        self.buffered_rows[key] = self.buffered_rows.get(key, 0) + table.num_rows
        self.buffered_bytes += table.nbytes
        if self.buffered_rows[key] >= ROW_GROUP_ROWS:
            self._flush(key)
        while self.buffered_bytes > BUFFER_BYTES:
            self._flush(max(self.buffered_rows, key=self.buffered_rows.__getitem__))

    def _flush(self, key: tuple[str, ...]) -> None:
        pa = require_pyarrow()
        tables = self.buffers.pop(key)
        self.buffered_rows.pop(key)
        self.buffered_bytes -= sum(t.nbytes for t in tables)
        writer = self._writer(key)
        writer.write_table(
            pa.concat_tables(tables).cast(self.file_schema), row_group_size=ROW_GROUP_ROWS
        )

    def _writer(self, key: tuple[str, ...]) -> Any:
        if key in self.open:
            self.open.move_to_end(key)
            return self.open[key]
        if len(self.open) >= MAX_OPEN_FILES:
            self.open.popitem(last=False)[1].close()
        folder = self.root.joinpath(
            *(
                f"{name}={quote(value, safe='') if value else NULL_PARTITION}"
                for name, value in zip(self.partition_by, key, strict=True)
            )
        )
        folder.mkdir(parents=True, exist_ok=True)
        n = self.parts.get(key, 0)
        self.parts[key] = n + 1
        writer = self.pq.ParquetWriter(folder / f"part-{n}.parquet", self.file_schema)
        self.open[key] = writer
        return writer

    def close(self) -> None:
        for key in list(self.buffers):
            self._flush(key)
        while self.open:
            self.open.popitem(last=False)[1].close()


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
    try:
        target.mkdir(parents=True, exist_ok=True)
        for batch in _batches(records, schema):
            count += batch.num_rows
            writer.write(batch)
        writer.close()
    except OSError as e:
        raise InputError(f"cannot write Parquet ({e.strerror or e})", where=str(target)) from None
    return count
