"""``convo validate``: every line checked, every bad one reported with its number."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from convo.core.errors import RecordError
from convo.core.jsonl import Line, parse_record_line
from convo.core.record import parse_record
from convo.importers.context import Rejection

CONVO_KEYS = ("id", "format", "source_id")


def check_record(line: Line, name: str, *, require_convo: bool = True) -> dict[str, Any]:
    """The line's record; a located RecordError if it is not a valid one."""
    where = f"{name}:{line.number}"
    data = parse_record_line(line, name)
    ts = data.get("timestamp")
    parse_record(data, where)
    if not require_convo:
        return data
    missing = [k for k in CONVO_KEYS if k not in data]
    if missing:
        raise RecordError(
            "missing " + ", ".join(missing),
            where=where,
            hint="re-import it with `convo ingest FILE.jsonl`, or use --typeagent",
        )
    if not (isinstance(ts, str) and len(ts) == 20 and ts.endswith("Z") and ts[10] == "T"):
        raise RecordError(
            f"timestamp {ts!r} is not YYYY-MM-DDTHH:MM:SSZ",
            where=where,
            hint="re-import it with `convo ingest FILE.jsonl` to normalise times",
        )
    if not isinstance(data.get("metadata"), dict) or "listeners" not in data["metadata"]:
        raise RecordError(
            "metadata.listeners missing", where=where, hint="write listeners (may be [])"
        )
    return data


def validate_lines(
    lines: Iterable[tuple[Line, str]],
    *,
    require_convo: bool = True,
    on_bad: Callable[[Rejection], None] | None = None,
) -> tuple[int, int]:
    good = bad = 0
    for line, name in lines:
        try:
            check_record(line, name, require_convo=require_convo)
        except RecordError as e:
            bad += 1
            if on_bad:
                on_bad(Rejection(e.where or name, e.what, e.hint, line.raw))
            continue
        good += 1
    return good, bad
