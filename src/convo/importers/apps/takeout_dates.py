"""Dates Google Takeout writes in the account's language: Google Chat's ``created_date``
is ``Tuesday, March 1, 2022 at 10:00:00 AM UTC`` for an English account, but
``2015. február 15., vasárnap 21:54:36 UTC`` for a Hungarian one (a user's export quoted
in mrwoof/google-chat-takeout-reader issue 3), and so on in every language Takeout
speaks.

The rule is the language's words read as little as possible: the four-digit year, the
``H:MM:SS`` time (an AM/PM or East Asian day period beside it), the zone after ``UTC``
or ``GMT``, the month as a name in one of the languages below (its stem: ``März``,
``mars``, ``marzo``, ``március`` and ``marca`` all start ``mar``; ``mai``/``maj``/
``may``...), or as the number before ``月``/``월`` or between dots (``2022. 3. 1.``), and
the day as the number left. Weekdays and words such as ``at``, ``um``, ``de`` are passed
over. A string this cannot read whole is None (never a guess).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo

from convo.core.timestamps import format_timestamp_utc

# Month names by stem, as the languages Takeout writes in spell them (nominative and
# genitive: English, German, French, Spanish, Portuguese, Italian, Dutch, the Nordic
# languages, Finnish, Hungarian, Polish, Czech, Russian, Ukrainian, Turkish, Romanian,
# Greek): the first letters that tell a month apart within its language.
_MONTHS = (
    "jan ene gen jän tammi sty led січ янв oca ian ιαν",
    "feb fév fev helmi lut úno лют фев şub φεβ",
    "mar mär maa bře бер мар μαρ",
    "apr ápr avr abr huhti kwi dub кві апр nis απρ",
    "may mai maj mei mag máj touko kvě тра мая май μαΐ μαι",
    "jun jún juin giu kesä cze červn чер июн haz ιουν",
    "jul júl juil lug heinä lip červe лип июл tem ιουλ",
    "aug aoû ago elo sie srp сер авг ağu αυγ",
    "sep szep set syys wrz zář вер сен eyl σεπ",
    "oct okt ott out loka paź říj жов окт eki οκτ",
    "nov marras lis лис ноя kas νοε",
    "dec dez déc dic joulu gru pro гру дек ara δεκ",
)
_STEMS = {stem: n for n, names in enumerate(_MONTHS, 1) for stem in names.split()}
# The longest stem decides ("červn" June before "čer"...).
_BY_LENGTH = sorted(_STEMS, key=len, reverse=True)
# Weekdays that start like a month: Spanish and Italian Tuesday (``martes``,
# ``martedì``), French (``mardi``), Romanian (``marți``), Dutch and Finnish Monday
# (``maandag``, ``maanantai``), Ukrainian Wednesday (``середа``).
_WEEKDAYS = ("marte", "mard", "maan", "серед", "marț", "marţ")

_TIME = re.compile(
    r"(?:(?P<pre>上午|下午|午前|午後|오전|오후)\s*)?(?P<h>\d{1,2})[:.](?P<mi>\d{2})[:.](?P<s>\d{2})"
    r"(?:\s*(?P<ap>[AaPp])\.?\s?[Mm]\.?(?![A-Za-z])"
    r"|\s*(?P<post>上午|下午|午前|午後|오전|오후|[πμ]\.\s?μ\.))?"
)
_ZONE = re.compile(r"\b(?:UTC|GMT)(?:\s*(?P<sign>[+-])(?P<zh>\d{1,2})(?::?(?P<zm>\d{2}))?)?")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_CJK_MONTH = re.compile(r"(?<!\d)(\d{1,2})\s*(?:月|월)")
_NUMBER = re.compile(r"(?<!\d)(\d{1,2})(?!\d)")
_WORD = re.compile(r"[^\W\d_]+")
_PM = ("下午", "午後", "오후", "μ.μ.")  # Greek: π.μ. and μ.μ. (before and after noon)


def _month_name(text: str) -> int | None:
    """The month a word of ``text`` names (by its stem), else None; two months named is
    None too."""
    found = set()
    for word in _WORD.findall(text.lower()):
        if word.startswith(_WEEKDAYS):
            continue
        for stem in _BY_LENGTH:
            if word.startswith(stem):
                found.add(_STEMS[stem])
                break
    return found.pop() if len(found) == 1 else None


def _zone(text: str, default: tzinfo) -> tzinfo | None:
    """The zone ``text`` names (``default`` when none); None when it names none there
    is."""
    m = _ZONE.search(text)
    if m is None:
        return default
    if not m["sign"]:
        return UTC
    minutes = int(m["zh"]) * 60 + int(m["zm"] or 0)
    if minutes >= 24 * 60:
        return None  # ``UTC+24``, ``GMT-99:99``: the date is not read (was a ValueError)
    return timezone(timedelta(minutes=minutes if m["sign"] == "+" else -minutes))


def _hour(m: re.Match[str]) -> int | None:
    hour = int(m["h"])
    period = m["ap"] or m["pre"] or m["post"]
    if not period:
        return hour
    if not 1 <= hour <= 12:
        return None
    pm = period.replace(" ", "") in _PM or period in "pP"
    return hour % 12 + (12 if pm else 0)


def localized_date(value: str, zone: tzinfo = UTC) -> str | None:
    """A Takeout date in any language as a record timestamp (UTC), else None."""
    time = _TIME.search(value)
    if time is None:
        return None
    rest = value[: time.start()] + " " + value[time.end() :]
    zone_in = _zone(rest, zone)
    if zone_in is None:
        return None
    rest = _ZONE.sub(" ", rest)
    year = _YEAR.findall(rest)
    if len(year) != 1:
        return None
    rest = _YEAR.sub(" ", rest)
    cjk = _CJK_MONTH.search(rest)
    if cjk:
        month: int | None = int(cjk[1])
        rest = rest[: cjk.start()] + " " + rest[cjk.end() :]
    else:
        month = _month_name(rest)
    numbers = _NUMBER.findall(rest)
    if month is None and len(numbers) == 2:  # ``2022. 3. 1.``: year, month, day
        month, numbers = int(numbers[0]), numbers[1:]
    hour = _hour(time)
    if month is None or len(numbers) != 1 or hour is None:
        return None
    try:
        stamp = datetime(
            int(year[0]), month, int(numbers[0]), hour, int(time["mi"]), int(time["s"]),
            tzinfo=zone_in,
        )  # fmt: skip
    except ValueError:
        return None
    return format_timestamp_utc(stamp)
