"""The message header of a WhatsApp chat .txt: its date, time and day period, and the
day/month order of a file (``convo.importers.apps.whatsapp`` reads the rest).

Layouts: iOS ``[8/15/23, 9:12:33 AM] Name: text``, Android ``15/08/2023, 21:12 - Name:
text``; 12 or 24 h clock, 2- or 4-digit years (``yy`` is 20yy), ``/``, ``.`` or ``-``
separators, U+200E/U+202F marks tolerated; a word between date and time (Finnish
``13.6.2018 klo 21.25.15 - ``), ``13. 6. 2018. 21:25:15 Name: `` and ``13.06.18
21.25.15: Name: `` (no bracket, no dash: only dotted dates with seconds).

The day period is written as the phone's language writes it: ``AM``/``p. m.`` after the
time, and in East Asian and Arabic locales a word before or after it (``下午9:12``,
``오후 9:12``, ``9:12 م``: the markers ChatLab's WhatsApp parser lists, and Arabic's
ص/م). Arabic exports write the Arabic comma after the date, U+200F marks after each of
its numbers, and may write Arabic-Indic digits (``١٥‏/٨‏/٢٠٢٣، ٩:١٢ م - ``), as
mtln/chat-export's Arabic support (its pull request 30) describes; the header is
matched with those digits read as ASCII ones, and the text after it is the line's own.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from convo.core.timestamps import format_timestamp_utc

MARKS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
# Arabic-Indic and Extended Arabic-Indic (Persian) digits: one character each, so a
# header read with them as ASCII digits keeps its positions in the line.
ARABIC_DIGITS = "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669" + "".join(
    chr(c) for c in range(0x06F0, 0x06FA)
)
_ASCII_DIGITS = str.maketrans(ARABIC_DIGITS, "0123456789" * 2)
_HEAD = 64  # a header's date and time lie within this many characters
_AM = ("上午", "午前", "오전", "ص")
_PM = ("下午", "午後", "오후", "م")
_PERIOD = "|".join(_AM + _PM)
_M = f"[{MARKS}]*"
# ``13. 6. 2018.`` (Croatian, Serbian, Hungarian) has a space after each dot and one
# after the year; Arabic writes a U+200F mark after each number.
_DATE = (
    rf"(?P<a>\d{{1,4}}){_M}(?P<sep>[./-]){_M}\s?(?P<b>\d{{1,2}}){_M}[./-]{_M}\s?"
    rf"(?P<c>\d{{1,4}}){_M}\.?"
)
_COMMA = rf"[,.\u060c]?{_M}"
# A word between date and time (``klo``, ``à``), never a day period.
_AT = rf"(?:(?!{_PERIOD})[^\W\d_]{{1,4}}\.?\s+)?"
_TIME = (
    rf"(?:(?P<pre>{_PERIOD})\s?)?(?P<h>\d{{1,2}})[:.](?P<mi>\d{{2}})(?:[:.](?P<s>\d{{2}}))?"
    rf"(?:[\s\u202f\u00a0]*{_M}(?:(?P<ap>[AaPp])\.?\s?[Mm]\.?|(?P<post>{_PERIOD})))?{_M}"
)
# A dot after a 24 h time before the dash (``2022/12/14, 13:34. - ``: year-first exports
# as joweich/chat-miner's pull request 54 quotes them).
_DOT = r"\.?"
# A date and its time as a header writes them: the short date and time of a locale, which
# other exports print too (``discord_txt``: DiscordChatExporter's ``g`` format).
DATE_TIME = rf"{_DATE}{_COMMA}\s+{_AT}{_TIME}"
_IOS = re.compile(rf"^{_M}\[{_DATE}{_COMMA}\s+{_AT}{_TIME}\]\s?(?P<rest>.*)$")
_ANDROID = re.compile(rf"^{_M}{_DATE}{_COMMA}\s+{_AT}{_TIME}{_DOT}\s[-–]\s(?P<rest>.*)$")
# Older and some localised exports write neither brackets nor a dash: ``13.06.18
# 21.25.15: Ann: hi``, ``13. 6. 2018. 21:25:15 Ann: hi``, and the exports of 2012-2014
# ``3/24/14, 1:59:59 PM: Ann: hi``, ``09/12/2012 17:03:48: Ann: hi`` (as nmoya/
# whatsapp-parser lists them). Only with a day or month first (dots or slashes), the
# seconds and a ``Name: `` after them, so ISO-dated logs (IRC) are never taken for it.
_BARE = re.compile(
    rf"^{_M}(?P<a>\d{{1,2}})(?P<sep>[./])\s?(?P<b>\d{{1,2}})(?P=sep)\s?(?P<c>\d{{2,4}})\.?,?\s+"
    rf"(?P<h>\d{{1,2}})[:.](?P<mi>\d{{2}})[:.](?P<s>\d{{2}})(?P<pre>)"
    rf"(?:[\s\u202f\u00a0]?(?P<ap>[AaPp])\.?\s?[Mm]\.?)?(?P<post>)"
    rf"(?::\s|\s)(?P<rest>(?:[^:]{{1,100}}): .*)$"
)
# A line that starts like a header but does not parse (``1/23/23, 3:22_AM - User 1: hi``):
# the date is there, the rest is kept after the first " - " or "] ".
_DAMAGED = re.compile(
    rf"^{_M}\[?\d{{1,4}}{_M}[./-]{_M}\d{{1,2}}{_M}[./-]{_M}\d{{1,4}}{_M}[,\u060c]?\s.{{0,40}}?"
    rf"(?:\]\s?|\s[-–]\s)(.*)$"
)


_LEAD = MARKS + "["


def _ascii_head(line: str) -> str:
    """The line with the Arabic-Indic digits of its head read as ASCII (same length).
    Only a line whose first character after marks and ``[`` is such a digit is copied:
    every header starts with its date (the copy of every line's head cost WhatsApp ingest
    a quarter of its time)."""
    first = line[:4].lstrip(_LEAD)[:1]
    if not first or first not in ARABIC_DIGITS:
        return line
    return line[:_HEAD].translate(_ASCII_DIGITS) + line[_HEAD:]


def header(line: str) -> re.Match[str] | None:
    """The header match of a line (its groups read with ASCII digits), else None; the
    text after it is ``rest(m, line)``."""
    probe = _ascii_head(line)
    return _IOS.match(probe) or _ANDROID.match(probe) or _BARE.match(probe)


def rest(m: re.Match[str], line: str) -> str:
    """What follows the header, as the line writes it."""
    return line[m.start("rest") :]


def damaged(line: str) -> str | None:
    """What follows a header that starts like one but does not parse, else None."""
    m = _DAMAGED.match(_ascii_head(line))
    return line[m.start(1) :] if m else None


def _decisive_order(m: re.Match[str]) -> str:
    """The order a header's date settles alone: a 4-digit first field, a field above 12,
    or dots (``03.09.23``: day first wherever WhatsApp writes dotted dates, German,
    Russian, Polish, Turkish, Finnish...)."""
    if len(m["a"]) == 4:
        return "YMD"
    if int(m["a"]) > 12:
        return "DM"
    if int(m["b"]) > 12:
        return "MD"
    return "DM" if m["sep"] == "." else ""


class DateOrder:
    """The day/month order of a file, from the header dates seen one by one.

    A first field above 12 means D/M, a second above 12 means M/D; when no value decides,
    the order whose dates run forward with fewer steps back wins; a tie falls back to M/D
    for ``/`` dates with AM/PM (US) and D/M otherwise. Dotted dates are D/M
    (``03.09.23``). A year-first date is Y/M/D."""

    def __init__(self) -> None:
        self.decided = ""  # set by the first date that settles it
        self.ampm = self.slash = self.differ = False  # for the tie-break and its warning
        self.back = {"DM": 0, "MD": 0}  # steps back in time under each reading
        self.prev: dict[str, tuple[int, int, int] | None] = {"DM": None, "MD": None}

    def see(self, m: re.Match[str]) -> None:
        if self.decided:
            return
        self.decided = _decisive_order(m)
        if self.decided:
            return
        a, b, c = int(m["a"]), int(m["b"]), int(m["c"])
        self.ampm = self.ampm or bool(m["ap"])
        self.slash = self.slash or m["sep"] == "/"
        self.differ = self.differ or a != b
        for key, day in (("DM", (c, b, a)), ("MD", (c, a, b))):
            last = self.prev[key]
            if last is not None and day < last:
                self.back[key] += 1
            self.prev[key] = day

    def verdict(self) -> tuple[str, bool]:
        """The order, and whether it is a guess (a tie where day and month differed)."""
        if self.decided:
            return self.decided, False
        if self.back["DM"] != self.back["MD"]:
            return ("DM" if self.back["DM"] < self.back["MD"] else "MD"), False
        return ("MD" if self.slash and self.ampm else "DM"), self.differ


def _hour(m: re.Match[str]) -> int:
    """The header's hour on a 24 h clock, its day period read."""
    h = int(m["h"])
    period = m["ap"] or m["pre"] or m["post"]
    if not period:
        return h
    pm = period in _PM or period in "pP"
    return h % 12 + (12 if pm else 0)


def when(m: re.Match[str], order: str, zone: Any) -> str | None:
    """The header's time in UTC (naive times read in ``zone``), None when impossible."""
    a, b, c = int(m["a"]), int(m["b"]), int(m["c"])
    y, mo, d = (a, b, c) if order == "YMD" else (c, b, a) if order == "DM" else (c, a, b)
    if y < 100:
        y += 2000
    try:
        stamp = datetime(y, mo, d, _hour(m), int(m["mi"]), int(m["s"] or 0), tzinfo=zone)
        return format_timestamp_utc(stamp)
    except (ValueError, OverflowError):
        return None
