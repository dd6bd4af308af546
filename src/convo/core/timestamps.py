"""Timestamps: one precision, one zone, one suffix.

Every record carries ``YYYY-MM-DDTHH:MM:SSZ`` so that string order is time order and
``jq fromdateiso8601`` works. Sub-second detail belongs in ``extra``. Unknown time is the
epoch sentinel (TypeAgent's rule).
"""

from __future__ import annotations

import functools
import time
from datetime import UTC, date, datetime, timedelta, tzinfo

from convo.core.lazy import pattern  # compiled on first use: an indexed read uses few

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any

UNIX_EPOCH = datetime(1970, 1, 1, 0, 0, 0, tzinfo=UTC)
EPOCH_STR = "1970-01-01T00:00:00Z"
UNDATED_DAY = "1970-01-01"  # a time on this day is unknown: the sentinel, or epoch + offset
# A cue time's hours (WebVTT, SRT, SBV) have at most this many digits: 1,000,000 hours
# (114 years) and more is not a timeline. The readers reject a longer one as unreadable,
# and convo's VTT/SRT export never writes one (``output.exporters.documents``).
CUE_HOUR_DIGITS = 6


def is_undated(ts: str) -> bool:
    """Whether a canonical time is unknown: the epoch sentinel, or a transcript without
    a start date (epoch + the cue's offset). Views leave it out of first/last and
    timelines; SQL-facing outputs (``core.columns``) hold it as NULL."""
    return ts.startswith(UNDATED_DAY)


_EPOCH_TEXT = pattern(r"\d{9,13}(\.\d+)?")


def format_timestamp_utc(dt: datetime) -> str:
    """Format an aware datetime as ``YYYY-MM-DDTHH:MM:SSZ`` in UTC.

    Raises ValueError on a naive datetime (as TypeAgent does). Unlike TypeAgent, which
    keeps microseconds when present, fractions are truncated: convo's records always
    have one precision.
    """
    if dt.tzinfo is None or dt.tzinfo.utcoffset(dt) is None:
        raise ValueError(
            f"Datetime must be timezone-aware, got naive datetime: {dt}. "
            "Use dt.replace(tzinfo=timezone.utc) or parse with 'Z' suffix."
        )
    dt = dt.astimezone(UTC)
    return (
        f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}Z"
    )


def record_datetime(ts: str) -> datetime:
    """A record's canonical time (``YYYY-MM-DDTHH:MM:SSZ``, as ``format_timestamp_utc``
    writes it) as an aware UTC datetime: how views, analyses and exports read a stored
    time back. ValueError when ``ts`` does not start with a date and time."""
    return datetime.fromisoformat(ts[:19]).replace(tzinfo=UTC)


def offset_text(seconds: float) -> str:
    """``+HH:MM:SS`` for an offset in seconds from a transcript's (unknown) start."""
    total = max(0, int(seconds))
    return f"+{total // 3600:02d}:{total % 3600 // 60:02d}:{total % 60:02d}"


def epoch_plus(seconds: float) -> str:
    """The epoch sentinel plus an offset: a transcript without a start date."""
    return format_timestamp_utc(UNIX_EPOCH + timedelta(seconds=int(seconds)))


def get_zone(name: str | None) -> tzinfo:
    """Resolve ``--tz`` (an IANA name, ``UTC``, ``local`` or ``+02:00``) to a tzinfo."""
    if not name or name.upper() in ("UTC", "Z"):
        return UTC
    if name.lower() == "local":
        return LocalZone()
    import re  # (not at import: docs/startup.md, "Third pass")

    m = re.fullmatch(r"([+-])(\d{1,2}):?(\d{2})?", name)
    if m:
        from datetime import timezone

        delta = timedelta(hours=int(m[2]), minutes=int(m[3] or 0))
        if delta >= timedelta(hours=24):
            raise ValueError(f"time zone offset {name!r} is 24 hours or more; use e.g. +02:00")
        return timezone(-delta if m[1] == "-" else delta)
    from dateutil import tz

    zone = tz.gettz(name)
    if zone is None:
        raise ValueError(
            f"unknown time zone {name!r}; use an IANA name like Europe/Berlin, UTC or +02:00"
        )
    return zone


class LocalZone(tzinfo):
    """The system's local zone as the ``time`` module describes it: dateutil's
    ``tzlocal()`` without importing ``dateutil.tz``.

    Importing ``dateutil.tz`` takes longer than an indexed read's lookup (about 10 ms on
    a quiet machine: it loads ctypes, zoneinfo and importlib.resources), and every query
    that reads a naive time (``--since 2024-03-06``) needs the local zone. The rules are
    ``tzlocal``'s: the standard and daylight offsets of ``time.timezone`` and
    ``time.altzone``; a wall time is daylight time when ``time.localtime`` says so of it
    read as standard time; of an ambiguous wall time (the hour repeated when clocks go
    back) ``fold=0`` is the daylight one. ``tests/core/test_timestamps.py`` holds every
    method equal to ``tzlocal``'s, ``fromutc``'s fold included, in several zones.
    """

    def __init__(self) -> None:
        self._std = timedelta(seconds=-time.timezone)
        self._dst = timedelta(seconds=-time.altzone) if time.daylight else self._std
        self._saved = self._dst - self._std
        self._names = tuple(time.tzname)

    def _naive_is_dst(self, dt: datetime) -> bool:
        stamp = (dt.replace(tzinfo=None) - _NAIVE_EPOCH).total_seconds()
        return bool(time.localtime(stamp + time.timezone).tm_isdst)

    def _ambiguous(self, dt: datetime) -> bool:
        naive = self._naive_is_dst(dt)
        return not naive and naive != self._naive_is_dst(dt - self._saved)

    def _isdst(self, dt: datetime) -> bool:
        if not self._saved:
            return False
        if self._ambiguous(dt):
            return not dt.fold
        return self._naive_is_dst(dt)

    def utcoffset(self, dt: datetime | None) -> timedelta | None:
        if dt is None:
            return None if self._saved else self._std
        return self._dst if self._isdst(dt) else self._std

    def dst(self, dt: datetime | None) -> timedelta | None:
        if dt is None:
            return None if self._saved else timedelta(0)
        return self._saved if self._isdst(dt) else timedelta(0)

    def tzname(self, dt: datetime | None) -> str:
        return self._names[1 if dt is not None and self._isdst(dt) else 0]

    def fromutc(self, dt: datetime) -> datetime:
        if dt.tzinfo is not self:
            raise ValueError("fromutc: dt.tzinfo is not self")
        # datetime's own algorithm (standard time, then daylight time if the wall time
        # is in it); of a repeated hour, the wall time reached without daylight time is
        # the second one (fold=1).
        wall = dt + self._std
        daylight = self._isdst(wall.replace(fold=1))
        if daylight:
            wall += self._saved
        return wall.replace(fold=int(not daylight and self._ambiguous(wall)))

    def __repr__(self) -> str:
        return "LocalZone()"


_NAIVE_EPOCH = datetime(1970, 1, 1)


def local_midnight(moment: datetime, zone: tzinfo) -> datetime:
    """The start of ``moment``'s day in ``zone`` (``--start-date`` is kept in UTC: its
    day is the one ``--tz`` names, so ``2024-05-14`` in Oslo is not the 13th)."""
    local = moment.astimezone(zone) if moment.tzinfo else moment.replace(tzinfo=zone)
    return datetime(local.year, local.month, local.day, tzinfo=zone)


def to_utc(dt: datetime, zone: tzinfo | None = None) -> datetime:
    """Make ``dt`` aware (reading a naive one in ``zone``, default UTC) and convert to UTC."""
    if dt.tzinfo is None or dt.tzinfo.utcoffset(dt) is None:
        dt = dt.replace(tzinfo=zone or UTC)
    return dt.astimezone(UTC)


def from_epoch(seconds: float | int | str) -> str:
    """Epoch seconds (int, float or numeric string) to a record timestamp."""
    value = float(seconds)
    if 0.0 <= value < _FAST_EPOCH_END:
        whole = int(value)
        # fromtimestamp rounds the fraction to microseconds, half to even: only a fraction
        # that rounds to 1000000 carries into the next second (value - whole is exact).
        if (value - whole) * 1e6 < 999999.5:
            return _epoch_hour(whole // 3600) + _minutes_seconds()[whole % 3600]
    dt = datetime.fromtimestamp(value, UTC)
    # isoformat is C; an aware UTC datetime spells itself YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00
    return dt.replace(microsecond=0).isoformat()[:19] + "Z"


# Below 2**33 s (the year 2242) a double holds a time to better than half a microsecond, so
# the whole second is int(value) unless the rounding carries. The fast path spells the
# time from a cached hour and a table of MM:SS (chat exports carry a time per message).
_FAST_EPOCH_END = float(2**33)


@functools.lru_cache(maxsize=1 << 14)
def _epoch_hour(hour: int) -> str:
    """``YYYY-MM-DDTHH:`` of an hour since the epoch."""
    return datetime.fromtimestamp(hour * 3600, UTC).isoformat()[:14]


@functools.cache
def _minutes_seconds() -> tuple[str, ...]:
    """``MM:SSZ`` of each second of an hour (made on first use: imports stay cheap)."""
    return tuple(f"{m:02d}:{s:02d}Z" for m in range(60) for s in range(60))


def from_epoch_ms(ms: float | int | str) -> str:
    return format_timestamp_utc(datetime.fromtimestamp(float(ms) / 1000.0, UTC))


_ISO_FAST = pattern(
    r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?$"
)
_ISO_DATE = pattern(r"(\d{4})-(\d{2})-(\d{2})")


def parse_datetime(text: str, zone: tzinfo | None = None, *, complete: bool = False) -> datetime:
    """Parse any date/time a source writes; naive values are read in ``zone`` (default UTC).

    ISO 8601 takes a fast path; anything else goes through dateutil. Raises ValueError,
    also for a value without its own year, month and day (``10:05``, ``March 6``):
    dateutil would take them from today, and a record's time (and the id hashed from it)
    would depend on the day of the import. ``complete=True`` (what a person types:
    ``--since 'March 6'``) lets today complete them.
    """
    text = text.strip()
    m = _ISO_FAST.match(text)
    if m:
        y, mo, d, h, mi, s, off = m.groups()
        dt = datetime(int(y), int(mo), int(d), int(h), int(mi), int(s or 0))
        if off:
            if off == "Z":
                return dt.replace(tzinfo=UTC)
            sign = -1 if off[0] == "-" else 1
            off = off[1:].replace(":", "")
            delta = timedelta(hours=int(off[:2]), minutes=int(off[2:]))
            return (dt - sign * delta).replace(tzinfo=UTC)
        return to_utc(dt, zone)
    m = _ISO_DATE.fullmatch(text)
    if m:  # a day (`--since 2024-03-06`): its first moment, as dateutil reads it
        try:
            return to_utc(datetime(int(m[1]), int(m[2]), int(m[3])), zone)
        except (ValueError, OverflowError):
            raise ValueError(f"unreadable date {text!r}") from None
    from dateutil import parser

    try:
        if complete:
            dt = parser.parse(text)
        else:
            dt, other = (parser.parse(text, default=d) for d in DATE_PROBES)
            if dt.date() != other.date():
                raise ValueError(f"unreadable date {text!r}: no year, month and day of its own")
    except (ValueError, OverflowError) as e:
        raise ValueError(f"unreadable date {text!r}") from e
    return to_utc(dt, zone)


CANONICAL = pattern(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def is_canonical(value: object) -> bool:
    """``value`` is spelled ``YYYY-MM-DDTHH:MM:SSZ`` (digits where digits go; not range-checked)."""
    return isinstance(value, str) and len(value) == 20 and CANONICAL.fullmatch(value) is not None


def normalize_timestamp(value: str | None) -> str:
    """Bring a timestamp from any record (TypeAgent's may carry fractions or offsets) to
    convo's form. Raises ValueError for an impossible date or time (month 13, hour 99).

    A canonical string is only range-checked: 6.68× less CPU than parsing and formatting
    it (noise ±20%; 100k timestamps, ``benchmarks/bench_fastpaths.py``); a property test
    (``tests/core/test_timestamps.py``) holds the two equal."""
    if not value or value == EPOCH_STR:  # unknown: every undated record (a fast path)
        return EPOCH_STR
    if is_canonical(value):
        # The common case (every importer writes this form): a range check is all it needs
        # (fromisoformat, in C, checks the ranges of a string the pattern has shaped).
        datetime.fromisoformat(value[:19])
        return value
    return format_timestamp_utc(parse_datetime(value))


_RELATIVE = pattern(
    r"(\d+)\s*(s|sec|m|min|h|hr|d|day|days|w|wk|week|weeks|mo|month|months|y|yr|year|years)$"
)
_UNIT_SECONDS = {
    "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600,
    "d": 86400, "day": 86400, "days": 86400,
    "w": 604800, "wk": 604800, "week": 604800, "weeks": 604800,
    "mo": 2592000, "month": 2592000, "months": 2592000,
    "y": 31536000, "yr": 31536000, "year": 31536000, "years": 31536000,
}  # fmt: skip


_PARTIAL_DATE = pattern(r"(\d{4})(?:-(\d{1,2}))?")


def _partial_date(text: str, zone: tzinfo | None) -> str | None:
    """``2024`` is 2024-01-01T00:00, ``2024-03`` is March 1st (in ``zone``); else None.

    dateutil would fill the missing month and day from today, so ``--since 2024`` would
    start in December; a year or a month means its first moment.
    """
    m = _PARTIAL_DATE.fullmatch(text.strip())
    if m is None:
        return None
    year, month = int(m[1]), int(m[2] or 1)
    if not 1 <= month <= 12 or year < 1:
        raise ValueError(f"unreadable date {text!r}")
    return format_timestamp_utc(datetime(year, month, 1, tzinfo=zone or UTC))


def parse_when(text: str, *, now: datetime | None = None, zone: tzinfo | None = None) -> str:
    """A ``--since``/``--until`` value to a record timestamp string.

    Accepts ISO dates and times (naive ones in ``zone``), a year (``2024``) or a month
    (``2024-03``) meaning its first moment, ``now``, ``today``, ``yesterday`` and
    relative ages ``30m``, ``3h``, ``7d``, ``2w``, ``6mo``, ``1y`` (``m`` is minutes;
    months are 30 days).
    """
    partial = _partial_date(text, zone)
    if partial is not None:
        return partial
    now = now or datetime.now(UTC)
    t = text.strip().lower()
    if t == "now":
        return format_timestamp_utc(now)
    if t in ("today", "yesterday"):
        local_now = now.astimezone(zone or UTC)
        day: date = local_now.date() - timedelta(days=1 if t == "yesterday" else 0)
        return format_timestamp_utc(datetime(day.year, day.month, day.day, tzinfo=zone or UTC))
    m = _RELATIVE.fullmatch(t)
    if m:
        try:
            return format_timestamp_utc(now - timedelta(seconds=int(m[1]) * _UNIT_SECONDS[m[2]]))
        except OverflowError:
            raise ValueError(f"{text!r} reaches before the year 1") from None
    return format_timestamp_utc(parse_datetime(text, zone, complete=True))


# Lenient readers for importers: a record timestamp, or None when the value is unusable.


def epoch_ts(value: Any, ms: bool = False) -> str | None:
    """Epoch seconds (or ms) as a record timestamp; None when missing or out of range."""
    if isinstance(value, bool) or value is None or value == "":
        return None
    try:
        return from_epoch_ms(value) if ms else from_epoch(value)
    except (ValueError, OverflowError, OSError, TypeError):
        return None


# A UTC ISO time as exporters write it (DiscordChatExporter, JavaScript's toISOString):
# the record timestamp is its first 19 characters and a Z.
_ISO_UTC = pattern(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|\+00:00)")


def iso_ts(value: Any, zone: tzinfo | None = None) -> str | None:
    """An ISO/other date string as a record timestamp; None when unreadable."""
    if not isinstance(value, str) or not value.strip():
        return None
    if _ISO_UTC.fullmatch(value):  # the common case, range-checked without a datetime parse
        try:
            datetime(int(value[:4]), int(value[5:7]), int(value[8:10]),
                     int(value[11:13]), int(value[14:16]), int(value[17:19]))  # fmt: skip
        except ValueError:
            return None
        return value[:19] + "Z"
    try:
        return format_timestamp_utc(parse_datetime(value, zone))
    except (ValueError, OverflowError):
        return None


def naive_ts(dt: datetime, zone: tzinfo) -> str | None:
    try:
        return format_timestamp_utc(dt.replace(tzinfo=zone))
    except (ValueError, OverflowError):
        return None


def parse_any(value: Any, zone: tzinfo = UTC) -> str | None:
    """ISO strings, AgentScope's naive local ``YYYY-MM-DD HH:MM:SS.fff`` and epoch numbers
    (seconds, or milliseconds when larger than 1e11). Raises ValueError when unreadable."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError(f"unreadable time {value!r}")
    if isinstance(value, (int, float)):
        seconds = value / 1000.0 if abs(value) > 1e11 else float(value)
        try:
            return format_timestamp_utc(datetime.fromtimestamp(seconds, UTC))
        except (OverflowError, OSError, ValueError):
            raise ValueError(f"time out of range {value!r}") from None
    if isinstance(value, str):
        text = value.strip()
        if _EPOCH_TEXT.fullmatch(text):
            return parse_any(float(text), zone)
        try:
            return format_timestamp_utc(parse_datetime(text, zone))
        except (OverflowError, ValueError):
            raise ValueError(f"unreadable time {value!r}") from None
    raise ValueError(f"unreadable time {value!r}")


# Two defaults that differ in year, month and day: a date dateutil completes from its default
# (a month it could not read, "2 janv. 2024"; no year) reads differently under each
# (parse_datetime, core.maildates).
DATE_PROBES = (datetime(2001, 2, 3), datetime(2002, 3, 4))
