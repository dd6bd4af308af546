"""The time of a message: ``Date``, else the other headers that carry one.

Order when every ``Date`` header is missing or unreadable: ``Resent-Date``, the topmost
readable ``Received`` header (the last hop, nearest to delivery), Exchange's
``X-OriginalArrivalTime``, the mbox ``From_`` line, the Maildir file name's delivery time
or an Outlook .msg's creation time (a draft, never sent, has no other).
The record says which in ``extra.time_source`` and a warning says so.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, tzinfo
from typing import Any

from convo.core.maildates import arrival_time_date, envelope_date, mail_date, received_date
from convo.importers.context import ImportContext
from convo.importers.email.charsets import decode_words

_HEADER_SOURCES: tuple[tuple[str, Callable[[str, tzinfo | None], datetime | None]], ...] = (
    ("resent-date", mail_date),
    ("received", received_date),
    ("x-originalarrivaltime", lambda value, _zone: arrival_time_date(value)),
)
_LABELS = {
    "resent-date": "Resent-Date",
    "received": "the top Received header",
    "x-originalarrivaltime": "X-OriginalArrivalTime",
    "envelope": "the mbox From line",
    "maildir": "the Maildir file name",
    "msg-created": "the .msg's creation time (PidTagCreationTime)",
}


def _fallback_time(
    h: dict[str, list[str]],
    zone: tzinfo | None,
    envelope: bytes | None,
    arrival: datetime | None,
    arrival_source: str,
) -> tuple[datetime | None, str]:
    """(time, which source) from the headers after Date, the envelope and the file name."""
    for key, read in _HEADER_SOURCES:
        for value in h.get(key, ()):
            dt = read(value, zone)
            if dt is not None:
                return dt, key
    dt = envelope_date(envelope, zone) if envelope else None
    if dt is not None:
        return dt, "envelope"
    return arrival, arrival_source if arrival is not None else ""


def message_time(
    h: dict[str, list[str]],
    ctx: ImportContext,
    where: str,
    extra: dict[str, Any],
    envelope: bytes | None,
    arrival: datetime | None = None,
    arrival_source: str = "maildir",
) -> datetime | None:
    """The message's time in UTC; a missing or unreadable Date is warned about."""
    dates = [v for v in h.get("date", ()) if v.strip()]
    for value in dates:  # a garbled Date can have a readable twin further down
        dt = mail_date(value, ctx.options.tz)
        if dt is not None:
            return dt
    dt, source = _fallback_time(h, ctx.options.tz, envelope, arrival, arrival_source)
    if dates:
        extra["date"] = decode_words(dates[0])
    said = "unreadable Date header" if dates else "no Date header"
    if dt is None:
        ctx.warn(where, said + "; time left unknown (epoch)")
        return None
    extra["time_source"] = source
    ctx.warn(where, f"{said}; time taken from {_LABELS[source]}")
    return dt
