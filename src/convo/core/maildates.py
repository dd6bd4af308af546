"""Mail dates (RFC 2822 and the headers that carry times), for the mail readers and the
formats that write mail-style dates (signal-export).

Mail carries times in several headers, written by many programs: ``Date`` (RFC 2822,
often damaged), ``Received`` (a date after the last ``;``), ``X-OriginalArrivalTime``
(Exchange), the mbox ``From_`` line (asctime, no zone) and a Maildir file name (epoch
seconds). Each reader returns an aware UTC datetime or None; a date without a year is
None, never the current year (dateutil would fill it in).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo

from convo.core.lazy import pattern
from convo.core.timestamps import DATE_PROBES, to_utc

_MAIL_FOLD = pattern(r"\r?\n[ \t]*")
_MAIL_COMMENT = pattern(r"\([^()]*\)")
_MAIL_NUMERIC_ZONE = pattern(r"[+-]\d\d:?\d\d\b")
_MAIL_UTC_MARK = pattern(r"\d\s*(?:[+-]00:?00|GMT|UTC?|Z)\s*(?:\(.*\))?\s*$", re.I)
# A year: four digits not part of a time, or two after a day and month ("6 Mar 24").
_MAIL_YEAR = pattern(
    r"(?<![\d:.+-])\d{4}(?![\d:])|\b\d{1,2}[ -]+[A-Za-z]{3}[a-z]*[ -]+\d\d(?![\d:])", re.ASCII
)
_MAIL_ENVELOPE = pattern(rb"^From \S*\s+(.*\d{1,2}:\d\d.*)$")
_MAILDIR_TIME = pattern(r"(\d{9,10})(?:\.|$)")
# Zone abbreviations dateutil does not know by itself (seconds east of UTC).
_MAIL_TZINFOS = {
    "EST": -18000, "EDT": -14400, "CST": -21600, "CDT": -18000, "MST": -25200,
    "MDT": -21600, "PST": -28800, "PDT": -25200, "MET": 3600, "MEST": 7200, "CET": 3600,
    "CEST": 7200, "EET": 7200, "EEST": 10800, "BST": 3600, "JST": 32400, "KST": 32400,
    "IST": 19800, "HKT": 28800, "AEST": 36000, "AEDT": 39600, "UT": 0, "GMT": 0, "Z": 0,
}  # fmt: skip


# "GMT+0800", "UTC+8": east of Greenwich, as JavaScript's Date writes it into mail;
# dateutil reads such a zone the POSIX way round (GMT+8 = UTC-8).
_MAIL_GMT_OFFSET = re.compile(r"\b(?:GMT|UTC?)\s*([+-])(\d{1,2})(?::?(\d\d))?\b")


def _offset(m: re.Match[str]) -> str:
    return f"{m[1]}{int(m[2]):02d}{m[3] or '00'}"


def mail_date(value: str, zone: tzinfo | None = None) -> datetime | None:
    """A ``Date``-like header value as an aware UTC datetime; None when unreadable.

    The standard library's ``parsedate_tz`` first; it gives offset 0 for a missing or
    unknown zone, so it is trusted only with a real UTC marker (``-0000`` is UTC with the
    sender's zone unknown), else dateutil decides, reading a naive time in ``zone``.
    """
    from email.utils import parsedate_tz

    value = _MAIL_GMT_OFFSET.sub(_offset, _MAIL_FOLD.sub(" ", value).strip())
    if not value or not _MAIL_YEAR.search(value):
        return None
    t = parsedate_tz(value)
    offset = t[9] if t is not None else None
    if t is not None and offset is not None and (offset or _MAIL_UTC_MARK.search(value)):
        try:
            dt = datetime(*t[:6])
            return datetime.fromtimestamp(dt.replace(tzinfo=UTC).timestamp() - offset, UTC)
        except (ValueError, OverflowError, TypeError):
            pass
    return _mail_dateutil(value, zone)


def _mail_dateutil(value: str, zone: tzinfo | None) -> datetime | None:
    """dateutil's fuzzy reading, None unless the value gives the year, month and day
    itself: dateutil fills a missing one from today, which made a time (and the id
    hashed from it) depend on the day of the import."""
    from dateutil import parser

    if _MAIL_NUMERIC_ZONE.search(value):
        text = _MAIL_COMMENT.sub(" ", value).strip()  # "+0200 (CEST)": the comment repeats it
    else:
        text = value.replace("(", " ").replace(")", " ").strip()
    try:
        first, second = (
            parser.parse(text, fuzzy=True, tzinfos=_MAIL_TZINFOS, default=d) for d in DATE_PROBES
        )
        if first.date() != second.date():
            return None
        return to_utc(first, zone)
    except (ValueError, OverflowError, TypeError, parser.ParserError):
        return None


def received_date(value: str, zone: tzinfo | None = None) -> datetime | None:
    """The date of a ``Received`` header: what follows its last ``;``."""
    _, sep, when = value.rpartition(";")
    return mail_date(when, zone) if sep else None


def arrival_time_date(value: str) -> datetime | None:
    """Exchange's ``X-OriginalArrivalTime: 12 Jun 2008 10:03:14.0273 (UTC) FILETIME=[...]``."""
    when = value.split("FILETIME", 1)[0]
    if "UTC" not in when.upper():
        return None
    return mail_date(_MAIL_COMMENT.sub(" ", when).split(".")[0] + " +0000")


def envelope_date(line: bytes, zone: tzinfo | None = None) -> datetime | None:
    """The asctime date of an mbox ``From `` line, in an unknown zone: read in ``zone``."""
    m = _MAIL_ENVELOPE.match(line.rstrip())
    if not m:
        return None
    return _mail_dateutil(m.group(1).decode("ascii", "replace"), zone)


def maildir_date(name: str) -> datetime | None:
    """The delivery time a Maildir file name starts with (``1709719200.M1P2.host:2,S``)."""
    m = _MAILDIR_TIME.match(name)
    if not m:
        return None
    try:
        return datetime.fromtimestamp(int(m.group(1)), UTC)
    except (ValueError, OverflowError, OSError):
        return None
