"""Records as table rows: the typed columns of the Parquet export and the Spark DataFrames.

One layout, used both ways: ``record_row`` for writing (Parquet, Spark) and ``row_record``
for reading Parquet back as records. The core fields get typed columns; ``extra`` is kept
whole as a JSON string, so a record survives the round trip exactly. ``month``
(``YYYY-MM`` of the timestamp) exists to partition by.

An unknown time (``timestamps.is_undated``: the epoch sentinel, or a transcript's cue
offset from an unknown start) is NULL in ``timestamp`` (its ``month`` is ``undated``,
a partition value pandas and DuckDB read back, where a null is not), so SQL's
``min(timestamp)`` is a real time; ``undated_offset`` then holds the seconds from the unknown
start (NULL for the sentinel itself and for every known time). Reading back, the
record's timestamp is the sentinel plus that offset again: the round trip stays exact.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson

from convo.core import fields
from convo.core.timestamps import (
    EPOCH_STR,
    UNIX_EPOCH,
    epoch_plus,
    format_timestamp_utc,
    is_undated,
    record_datetime,
)

# name, kind: "string", "strings" (a list of strings), "timestamp" (seconds, UTC) or
# "seconds" (a whole number of seconds)
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
    ("undated_offset", "seconds"),
)
COLUMN_NAMES = tuple(name for name, _ in COLUMNS)
PARTITION_COLUMNS = ("format", "month")
UNDATED_MONTH = "undated"  # the month of an unknown time


def record_values(record: dict[str, Any]) -> tuple[Any, ...]:
    """One record dict (as stored) as the values of ``COLUMNS``, in order; the timestamp
    as its canonical string, None when unknown (writers convert whole columns at once)."""
    ts: str | None = fields.timestamp(record)
    offset = undated_offset(ts)  # type: ignore[arg-type]
    if offset is not None or ts == EPOCH_STR:
        ts = None
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
        ts[:7] if ts else UNDATED_MONTH,
        offset,
    )


def undated_offset(ts: str) -> int | None:
    """The seconds an unknown time (``is_undated``) lies after the unknown start: None
    for a known time and for the epoch sentinel itself."""
    if ts == EPOCH_STR or not is_undated(ts):
        return None
    try:
        return int((record_datetime(ts) - UNIX_EPOCH).total_seconds())
    except ValueError:
        return None


def record_row(record: dict[str, Any]) -> dict[str, Any]:
    """One record as a row dict of ``COLUMNS`` (the timestamp an aware datetime or None)."""
    row = dict(zip(COLUMN_NAMES, record_values(record), strict=True))
    if row["timestamp"] is not None:
        row["timestamp"] = record_datetime(row["timestamp"])
    return row


def _timestamp(value: Any, offset: Any) -> str:
    if isinstance(value, datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=UTC)
        return format_timestamp_utc(aware)
    if isinstance(value, str) and value:
        return value
    if isinstance(offset, int) and not isinstance(offset, bool) and offset > 0:
        return epoch_plus(offset)  # a transcript cue without a start date
    return EPOCH_STR


def row_record(row: dict[str, Any]) -> dict[str, Any]:
    """A row of ``COLUMNS`` (or the subset a file holds) back as a record dict."""
    record: dict[str, Any] = {
        "textChunks": list(row.get("text_chunks") or []),
        "metadata": {"speaker": row.get("speaker"), "listeners": list(row.get("listeners") or [])},
        "tags": list(row.get("tags") or []),
        "timestamp": _timestamp(row.get("timestamp"), row.get("undated_offset")),
        "source_id": row.get("source_id"),
    }
    for column, key in (("id", "id"), ("format", "format"), ("thread", "thread"),
                        ("reply_to", "replyTo"), ("role", "role"), ("subject", "subject")):  # fmt: skip
        if row.get(column):
            record[key] = row[column]
    if row.get("extra"):
        record["extra"] = orjson.loads(row["extra"])
    return record
