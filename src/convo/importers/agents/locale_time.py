"""Times as JavaScript's ``toLocaleString`` (``toLocaleDateString``,
``toLocaleTimeString``) writes them in the user's locale, in the files agent apps export:
Cursor's Export Chat (``8/21/2025 at 18:13:28 GMT+2``), Continue's shared sessions
(``2/19/2024, 11:38:46 AM``, no zone).

The date's three numbers: a four-digit first is the year (``2025/8/21``, Korean
``2025. 6. 27.``); a first over 12 is the day (``19/10/2025``); else with ``/`` month
first (en-US, JavaScript's default), with ``.`` or ``-`` day first (``21.8.2025``). The
clock: hours, minutes, seconds; ``PM``/``AM`` and their Korean, Chinese and Japanese
words; the zone ``GMT+2``, ``UTC-05:30`` or a common abbreviation (``PDT``, ``CEST``),
else the caller's.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo

from convo.core.timestamps import naive_ts

_NUMBERS = re.compile(r"\d+")
_OFFSET = re.compile(r"(?:GMT|UTC)(?:(?P<sign>[+\u2212-])(?P<h>\d{1,2})(?::?(?P<m>\d\d))?)?\b")
_PM = re.compile(r"(?i)\bp\.?\s?m\.?|오후|下午|午後")
_AM = re.compile(r"(?i)\ba\.?\s?m\.?|오전|上午|午前")
# the zone abbreviations toLocaleTimeString writes for the commonest locales, in hours
_ZONES = {
    "PST": -8, "PDT": -7, "MST": -7, "MDT": -6, "CST": -6, "CDT": -5, "EST": -5, "EDT": -4,
    "AKST": -9, "AKDT": -8, "HST": -10, "AST": -4, "ADT": -3, "NST": -3.5, "NDT": -2.5,
    "GMT": 0, "UTC": 0, "WET": 0, "WEST": 1, "BST": 1, "CET": 1, "CEST": 2, "EET": 2,
    "EEST": 3, "MSK": 3, "IST": 5.5, "JST": 9, "KST": 9, "AEST": 10, "AEDT": 11,
    "ACST": 9.5, "ACDT": 10.5, "AWST": 8, "NZST": 12, "NZDT": 13,
}  # fmt: skip


def _zone(text: str) -> tzinfo | None:
    """The zone a time's text names: ``GMT+2``, ``UTC-05:30``, ``GMT``, ``PDT``; else None."""
    found = _OFFSET.search(text)
    if found:
        if not found["sign"]:
            return UTC
        minutes = int(found["h"]) * 60 + int(found["m"] or 0)
        return timezone(timedelta(minutes=-minutes if found["sign"] != "+" else minutes))
    for word in re.findall(r"\b[A-Z]{2,5}\b", text):
        if word in _ZONES:
            return timezone(timedelta(hours=_ZONES[word]))
    return None


def _day(date: str) -> tuple[int, int, int] | None:
    """(year, month, day) of a locale's date: ``8/21/2025``, ``21.8.2025``, ``2025/8/21``,
    ``2025. 6. 27.``; a day and month that could be either way round: month first with
    ``/``, day first otherwise."""
    numbers = [int(n) for n in _NUMBERS.findall(date)][:3]
    if len(numbers) != 3:
        return None
    a, b, c = numbers
    if a > 31:
        return a, b, c
    if a > 12 or (b <= 12 and "/" not in date):
        return c, b, a
    return c, a, b


def local_time(date: str, time: str, fallback: tzinfo) -> tuple[str | None, bool]:
    """(the time a locale's date and clock say, as a record time; whether the zone was
    ``fallback``, the clock naming none convo knows): ``("8/21/2025", "18:13:28 GMT+2")``,
    ``("2025. 6. 27.", "14시 17분 35초 GMT+9")``, ``("2/19/2024", "11:38:46 AM")``."""
    day = _day(date)
    clock = [int(n) for n in _NUMBERS.findall(_OFFSET.sub("", time))][:3]
    if day is None or len(clock) < 2:
        return None, False
    hour = clock[0]
    if _PM.search(time) and hour < 12:
        hour += 12
    elif _AM.search(time) and hour == 12:
        hour = 0
    zone = _zone(time)
    try:
        when = datetime(*day, hour, clock[1], clock[2] if len(clock) > 2 else 0)
    except ValueError:
        return None, False
    return naive_ts(when, zone or fallback), zone is None
