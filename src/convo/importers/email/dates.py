"""The time of a message: ``Date``, else the other headers that carry one."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from convo.core.timestamps import envelope_date, mail_date
from convo.importers.context import ImportContext
from convo.importers.email.charsets import decode_words


def message_time(
    h: dict[str, list[str]],
    ctx: ImportContext,
    where: str,
    extra: dict[str, Any],
    envelope: bytes | None,
) -> datetime | None:
    """The message's time in UTC; a missing or unreadable Date is warned about."""
    zone = ctx.options.tz
    values = h.get("date") or []
    date_value = values[0] if values else None
    dt = mail_date(date_value, zone) if date_value is not None else None
    if dt is not None:
        return dt
    dt = envelope_date(envelope, zone) if envelope else None
    if date_value is not None and date_value.strip():
        extra["date"] = decode_words(date_value)
        ctx.warn(
            where,
            "unreadable Date header"
            + ("; used the mbox From line's date" if dt else "; time left unknown"),
        )
    elif dt is None:
        ctx.warn(where, "no Date header; time left unknown (epoch)")
    return dt
