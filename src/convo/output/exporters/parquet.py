"""Records to a Parquet dataset with pyarrow: typed columns, hive partitions, flat memory.

``write_parquet(records, out_dir)`` streams: records are turned into Arrow record batches
of ``BATCH_ROWS`` rows and handed to ``pyarrow.dataset.write_dataset``, which writes
``format=NAME/month=YYYY-MM/part-N.parquet`` files (``partition_by`` chooses the columns;
an empty tuple writes unpartitioned files). Memory is bounded by one batch plus the
writer's open files, whatever the input size. The columns are ``convo.core.columns``.

pyarrow is an optional dependency (``pip install 'convo-tools[parquet]'``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from convo.core.columns import COLUMN_NAMES, COLUMNS, record_row
from convo.core.errors import InputError, UsageError

BATCH_ROWS = 50_000
MAX_ROWS_PER_FILE = 1_000_000


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
    rows: list[dict[str, Any]] = []
    for record in records:
        rows.append(record_row(record))
        if len(rows) >= BATCH_ROWS:
            yield pa.RecordBatch.from_pylist(rows, schema=schema)
            rows = []
    if rows:
        yield pa.RecordBatch.from_pylist(rows, schema=schema)


def check_partitions(partition_by: Iterable[str]) -> tuple[str, ...]:
    chosen = tuple(p for p in partition_by if p)
    unknown = [p for p in chosen if p not in COLUMN_NAMES]
    if unknown:
        raise UsageError(
            f"cannot partition by {', '.join(unknown)}",
            hint="choose from " + ", ".join(COLUMN_NAMES) + " (or none)",
        )
    return chosen


def write_parquet(
    records: Iterable[dict[str, Any]],
    out_dir: str | Path,
    *,
    partition_by: Iterable[str] = ("format", "month"),
) -> int:
    """Write ``records`` under ``out_dir`` (which must be new or empty); returns the count."""
    require_pyarrow()
    import pyarrow.dataset as ds

    target = Path(out_dir)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InputError(
            "not an empty folder", where=str(target), hint="write a Parquet dataset to a new folder"
        )
    chosen = check_partitions(partition_by)
    schema = arrow_schema()
    count = 0

    def counted() -> Iterator[dict[str, Any]]:
        nonlocal count
        for record in records:
            count += 1
            yield record

    try:
        ds.write_dataset(
            _batches(counted(), schema),
            target,
            schema=schema,
            format="parquet",
            partitioning=list(chosen) or None,
            partitioning_flavor="hive" if chosen else None,
            basename_template="part-{i}.parquet",
            max_rows_per_file=MAX_ROWS_PER_FILE,
            max_rows_per_group=BATCH_ROWS,
            existing_data_behavior="overwrite_or_ignore",
        )
    except OSError as e:
        raise InputError(f"cannot write Parquet ({e})", where=str(target)) from None
    return count
