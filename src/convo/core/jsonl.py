"""Streaming JSONL: read lines as bytes (files, ``-``, stdin, ``.gz``), write them atomically.

Lines are kept as the original bytes so that output can pass them through unchanged;
parsing is left to the caller (the query path parses only lines a byte prefilter keeps).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

BOM = b"\xef\xbb\xbf"
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(slots=True)
class Line:
    """One non-blank line: its 1-based number, its bytes (no line ending), torn or not."""

    number: int
    raw: bytes
    torn: bool = False  # the last line of the input had no newline


def iter_lines(stream: IO[bytes]) -> Iterator[Line]:
    """Yield the non-blank lines of a byte stream, BOM and CR/LF removed.

    Streaming: one line in memory at a time. The last line is marked ``torn`` when the
    input does not end with a newline (an interrupted write, or just a missing newline).
    """
    number = 0
    prev: bytes | None = None
    prev_no = 0
    for raw in stream:
        number += 1
        if number == 1 and raw.startswith(BOM):
            raw = raw[3:]
        if prev is not None:
            yield Line(prev_no, prev)
            prev = None
        body = raw.rstrip(b"\r\n")
        if not body.strip():
            continue
        if raw.endswith(b"\n"):
            yield Line(number, body)
        else:
            prev, prev_no = body, number
    if prev is not None:
        yield Line(prev_no, prev, torn=True)


def parse_line(line: Line, where: str) -> dict[str, Any]:
    """Parse one line as a JSON object, or raise a located RecordError."""
    from convo.core.errors import RecordError

    try:
        value = orjson.loads(line.raw)
    except orjson.JSONDecodeError as e:
        if line.torn:
            raise RecordError(
                "truncated last line (an interrupted write?)",
                where=f"{where}:{line.number}",
                hint="remove the partial line or re-run the ingest",
            ) from None
        raise RecordError(
            f"invalid JSON ({_short_json_error(e)})",
            where=f"{where}:{line.number}",
            hint="each line must be one JSON object",
        ) from None
    if not isinstance(value, dict):
        raise RecordError(
            f"expected a JSON object, got {type(value).__name__}",
            where=f"{where}:{line.number}",
            hint="each line must be one JSON object",
        )
    return value


def _short_json_error(e: Exception) -> str:
    msg = str(e)
    return msg.split(": line")[0] if ": line" in msg else msg


def dumps(record: dict[str, Any]) -> bytes:
    """One record as a JSONL line (with its newline)."""
    return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)
