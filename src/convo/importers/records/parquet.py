"""Parquet files and datasets written by ``convo export --to parquet`` (or any tool
writing the same columns, see ``convo.core.columns``).

A file is recognised by its ``PAR1`` magic; a folder by the ``.parquet`` files in it
(a hive-partitioned dataset: ``format=.../month=.../part-0.parquet``). Partition values
come back from the folder names, so a file read on its own inside a dataset keeps its
``format``. Rows are read one record batch at a time and every row is validated as a
record (``parse_record``), so a bad row is rejected with its place, like a bad JSONL line.

Ids and their scope (docs/ids.md): each record's own ``id``, as written (convo wrote it
by these rules).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from convo.core.columns import row_record
from convo.core.errors import InputError, RecordError
from convo.core.io import Source
from convo.core.record import ConversationMessage, parse_record
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.registry import Format

NAME = "parquet"
DATASET = "parquet-dataset"  # a folder of Parquet files
MAGIC = b"PAR1"
BATCH_ROWS = 10_000


def sniff(source: Source) -> int:
    return 95 if source.head.startswith(MAGIC) else 0


def sniff_dir(source: Source) -> int:
    if source.path is None:
        return 0
    for i, path in enumerate(source.path.rglob("*.parquet")):
        if path.is_file():
            return 80
        if i > 100:
            break
    return 0


def _hive_values(path: Path) -> dict[str, str]:
    """``key=value`` folder names above a file of a hive-partitioned dataset."""
    from urllib.parse import unquote

    values: dict[str, str] = {}
    for folder in path.parents:
        key, sep, value = folder.name.partition("=")
        if not sep:
            break
        values.setdefault(key, unquote(value))
    return values


def _dataset(source: Source) -> Any:
    try:
        import pyarrow.dataset as ds
    except ImportError:
        from convo.core.extras import install_hint

        raise InputError(
            "reading Parquet needs pyarrow", where=source.name, hint=install_hint("parquet")
        ) from None
    if source.path is None:
        raise InputError(
            "Parquet cannot be read from stdin", where=source.name, hint="name the file"
        )
    try:
        if source.is_dir:
            return ds.dataset(source.path, format="parquet", partitioning="hive")
        return ds.dataset(source.path, format="parquet")
    except (OSError, ValueError) as e:
        raise InputError(f"unreadable Parquet ({e})", where=source.name) from None


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    dataset = _dataset(source)
    fixed = {} if source.is_dir or source.path is None else _hive_values(source.path)
    n = 0
    try:
        batches = dataset.to_batches(batch_size=BATCH_ROWS)
        for batch in batches:
            for row in batch.to_pylist():
                n += 1
                where = f"{source.name}#row-{n}"
                try:
                    yield parse_record(row_record({**fixed, **row}), where)
                except (RecordError, ValueError, TypeError) as e:
                    error = e if isinstance(e, RecordError) else RecordError(str(e), where=where)
                    ctx.reject_error(error, repr(row).encode()[:4096])
    except OSError as e:
        raise InputError(f"unreadable Parquet ({e})", where=source.name) from None


FILE_DESCRIPTION = (
    "convo records as Parquet (convo export --to parquet): a file or a dataset folder"
)
FILE_EXAMPLE = "messages/format=slack/month=2024-03/part-0.parquet"
DATASET_DESCRIPTION = "a folder of convo Parquet files (hive partitions format=/month=)"
FIELDS = Fields(
    speaker="the `speaker` column",
    listeners="the `listeners` column",
    time="the `timestamp` column",
    zone="as written (UTC)",
    thread="the `thread` column",
    id="the `id` column, as written (`<id>`)",
    scope="as written: convo made it by the rules of docs/ids.md",
    reply_to="the `replyTo` column",
    subject="the `subject` column",
    tags="the `tags` column",
    extra="the `extra` column; a dataset's partition values (`format`, `month`) come back from "
    "its folder names; every row is validated as a record",
)

FORMATS = (
    Format(
        NAME, "records", FILE_DESCRIPTION, ("*.parquet",), sniff, read, FILE_EXAMPLE, fields=FIELDS
    ),
    Format(
        DATASET,
        "records",
        DATASET_DESCRIPTION,
        (),
        sniff_dir,
        read,
        "messages/",
        directory=True,
        fields=FIELDS,
    ),
)
