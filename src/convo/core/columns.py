"""Records as table rows: the typed columns of the Parquet export and the Spark DataFrames.

One layout, used both ways: ``record_row`` for writing (Parquet, Spark) and ``row_record``
for reading Parquet back as records. The core fields get typed columns; ``extra`` is kept
whole as a JSON string, so a record survives the round trip exactly. ``month``
(``YYYY-MM`` of the timestamp) exists to partition by.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson

from convo.core import fields
from convo.core.timestamps import EPOCH_STR, format_timestamp_utc

# name, kind: "string", "strings" (a list of strings) or "timestamp" (seconds, UTC)
COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "string"),
    ("timestamp", "timestamp"),
    ("speaker", "string"),
    ("listeners", "strings"),
    ("tags", "strings"),
    ("text_chunks", "strings"),
    ("text", "string"),
    ("format", "string"),
    ("source_id", "string"),
    ("thread", "string"),
    ("reply_to", "string"),
    ("role", "string"),
    ("subject", "string"),
    ("extra", "string"),
    ("month", "string"),
)
COLUMN_NAMES = tuple(name for name, _ in COLUMNS)
PARTITION_COLUMNS = ("format", "month")


def record_values(record: dict[str, Any]) -> tuple[Any, ...]:
    """One record dict (as stored) as the values of ``COLUMNS``, in order; the timestamp
    as its canonical string (writers convert whole columns at once)."""
    ts = fields.timestamp(record)
    extra = fields.extra(record)
    return (
        fields.record_id(record),
        ts,
        fields.speaker(record),
        fields.listeners(record),
        fields.tags(record),
        fields.chunks(record),
        fields.text(record),
        fields.string(record, "format") or "convo",
        fields.string(record, "source_id"),
        fields.string(record, "thread"),
        fields.string(record, "replyTo") or fields.string(record, "reply_to"),
        fields.string(record, "role"),
        fields.string(record, "subject"),
        orjson.dumps(extra).decode() if extra else None,
        ts[:7],
    )


def record_row(record: dict[str, Any]) -> dict[str, Any]:
    """One record as a row dict of ``COLUMNS`` (the timestamp an aware datetime)."""
    row = dict(zip(COLUMN_NAMES, record_values(record), strict=True))
    row["timestamp"] = datetime.fromisoformat(row["timestamp"][:-1]).replace(tzinfo=UTC)
    return row


def _timestamp(value: Any) -> str:
    if isinstance(value, datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=UTC)
        return format_timestamp_utc(aware)
    return value if isinstance(value, str) and value else EPOCH_STR


def row_record(row: dict[str, Any]) -> dict[str, Any]:
    """A row of ``COLUMNS`` (or the subset a file holds) back as a record dict."""
    record: dict[str, Any] = {
        "textChunks": list(row.get("text_chunks") or []),
        "metadata": {"speaker": row.get("speaker"), "listeners": list(row.get("listeners") or [])},
        "tags": list(row.get("tags") or []),
        "timestamp": _timestamp(row.get("timestamp")),
        "source_id": row.get("source_id"),
    }
    for column, key in (("id", "id"), ("format", "format"), ("thread", "thread"),
                        ("reply_to", "replyTo"), ("role", "role"), ("subject", "subject")):  # fmt: skip
        if row.get(column):
            record[key] = row[column]
    if row.get("extra"):
        record["extra"] = orjson.loads(row["extra"])
    return record
