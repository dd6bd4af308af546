import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core.timestamps import (
    LocalZone,
    epoch_plus,
    format_timestamp_utc,
    from_epoch,
    from_epoch_ms,
    get_zone,
    iso_ts,
    normalize_timestamp,
    parse_datetime,
    parse_when,
    to_utc,
)

NOW = datetime(2024, 3, 10, 12, 30, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-06", "2024-03-06T00:00:00Z"),
        ("2024-03-06T10:02:30Z", "2024-03-06T10:02:30Z"),
        ("2024-03-06 10:02", "2024-03-06T10:02:00Z"),
        ("2024-03-06T10:02:30.999+01:00", "2024-03-06T09:02:30Z"),
        ("2024-03-06T10:02:30-0500", "2024-03-06T15:02:30Z"),
        ("Wed, 06 Mar 2024 10:02:30 +0100", "2024-03-06T09:02:30Z"),
        ("March 6, 2024 10:02 PM", "2024-03-06T22:02:00Z"),
    ],
)
def test_parse_datetime(text, expected):
    assert format_timestamp_utc(parse_datetime(text)) == expected


def test_parse_datetime_naive_in_zone():
    berlin = get_zone("Europe/Berlin")
    assert (
        format_timestamp_utc(parse_datetime("2024-03-06 10:00", berlin)) == "2024-03-06T09:00:00Z"
    )
    assert (
        format_timestamp_utc(parse_datetime("2024-07-06 10:00", berlin)) == "2024-07-06T08:00:00Z"
    )


def test_parse_datetime_rejects_garbage():
    with pytest.raises(ValueError):
        parse_datetime("not a date at all")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7d", "2024-03-03T12:30:00Z"),
        ("2w", "2024-02-25T12:30:00Z"),
        ("3h", "2024-03-10T09:30:00Z"),
        ("30m", "2024-03-10T12:00:00Z"),
        ("yesterday", "2024-03-09T00:00:00Z"),
        ("today", "2024-03-10T00:00:00Z"),
        ("now", "2024-03-10T12:30:00Z"),
        ("2024-01-01", "2024-01-01T00:00:00Z"),
    ],
)
def test_parse_when(text, expected):
    assert parse_when(text, now=NOW) == expected


def test_zones():
    assert get_zone(None) is UTC
    assert get_zone("+02:00").utcoffset(None).total_seconds() == 7200
    assert get_zone("-0530").utcoffset(None).total_seconds() == -(5 * 3600 + 1800)
    with pytest.raises(ValueError, match="unknown time zone"):
        get_zone("Mars/Olympus")


def test_epoch_helpers():
    assert epoch_plus(83.9) == "1970-01-01T00:01:23Z"
    assert from_epoch("1700000000.000100") == "2023-11-14T22:13:20Z"
    assert from_epoch_ms(1700000000123) == "2023-11-14T22:13:20Z"


def test_normalize_timestamp():
    assert normalize_timestamp(None) == "1970-01-01T00:00:00Z"
    assert normalize_timestamp("2024-01-01T12:34:56.789+00:00") == "2024-01-01T12:34:56Z"
    assert normalize_timestamp("2024-01-01T12:34:56Z") == "2024-01-01T12:34:56Z"


_TWO = st.integers(0, 99).map("{:02d}".format)
_SPELLED = st.tuples(st.integers(0, 9999).map("{:04d}".format), _TWO, _TWO, _TWO, _TWO, _TWO)
_REAL = st.datetimes(min_value=datetime(1, 1, 1)).map(
    lambda d: (f"{d.year:04d}", *(f"{x:02d}" for x in (d.month, d.day, d.hour, d.minute, d.second)))
)


@given(st.one_of(_REAL, _SPELLED))
def test_canonical_fast_path_equals_the_full_parse(parts):
    """``normalize_timestamp`` only range-checks a canonical string (its fast path,
    benchmarks/bench_fastpaths.py); the full parse and format must give the same string,
    or both refuse it."""
    year, month, day, hour, minute, second = parts
    text = f"{year}-{month}-{day}T{hour}:{minute}:{second}Z"

    def outcome(fn):
        try:
            return fn(text)
        except ValueError:
            return ValueError

    assert outcome(normalize_timestamp) == outcome(
        lambda t: format_timestamp_utc(parse_datetime(t))
    )


@given(
    st.datetimes(
        min_value=datetime(1971, 1, 1), max_value=datetime(9000, 1, 1), timezones=st.just(UTC)
    )
)
def test_format_is_fixed_width_and_ordered(dt):
    s = format_timestamp_utc(dt)
    assert len(s) == 20 and s.endswith("Z")
    assert parse_datetime(s) == dt.replace(microsecond=0)


@settings(max_examples=200, deadline=None)
@given(st.one_of(_REAL, _SPELLED), st.sampled_from([None, UTC, timezone(timedelta(hours=-5))]))
def test_a_day_alone_is_read_as_dateutil_reads_it(parts, zone):
    """``parse_datetime``'s fast path for a day alone (``--since 2024-03-06``) gives
    what dateutil's parse gives it, or refuses what dateutil refuses."""
    from dateutil import parser

    text = "-".join(parts[:3])

    def outcome(fn):
        try:
            return fn()
        except ValueError:
            return ValueError

    plain = outcome(lambda: to_utc(parser.parse(text), zone))
    assert outcome(lambda: parse_datetime(text, zone)) == plain


# tzlocal's rules, in zones with daylight time (north and south, a half hour's shift),
# one without, and one whose offset changed (Moscow: tzlocal reads today's offsets).
_ZONES = ["Europe/Berlin", "America/Sao_Paulo", "Australia/Lord_Howe", "Asia/Kolkata", "Europe/Moscow"]  # fmt: skip
_LOCAL_CHECK = """
import sys
from datetime import UTC, datetime, timedelta
from dateutil.tz import tzlocal
from convo.core.timestamps import LocalZone

mine, theirs = LocalZone(), tzlocal()
assert mine.utcoffset(None) == theirs.utcoffset(None) and mine.dst(None) == theirs.dst(None)
for start in (datetime(1985, 1, 1), datetime(2019, 1, 1)):
    for i in range(365 * 24 * 2):  # every half hour of a year, both folds
        for fold in (0, 1):
            wall = (start + timedelta(minutes=30 * i)).replace(fold=fold)
            a, b = wall.replace(tzinfo=mine), wall.replace(tzinfo=theirs)
            assert (a.utcoffset(), a.dst(), a.tzname(), a.astimezone(UTC)) == (
                b.utcoffset(), b.dst(), b.tzname(), b.astimezone(UTC)), wall
            u = wall.replace(tzinfo=UTC)
            x, y = u.astimezone(mine), u.astimezone(theirs)
            assert (x.replace(tzinfo=None), x.fold) == (y.replace(tzinfo=None), y.fold), wall
"""


@pytest.mark.parametrize("zone", _ZONES)
def test_local_zone_is_tzlocal(zone):
    """``LocalZone`` (the query's local zone, without importing dateutil.tz) answers as
    dateutil's ``tzlocal`` in the zone ``$TZ`` names: offsets, names, and the wall time
    of a UTC time with its fold. In a child process: ``$TZ`` is read at start-up."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    proc = subprocess.run(
        [sys.executable, "-c", _LOCAL_CHECK], capture_output=True, text=True, timeout=120,
        env={**os.environ, "TZ": zone, "PYTHONPATH": src},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_local_zone_reads_a_naive_since(monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        assert get_zone("local").utcoffset(datetime(2024, 7, 1)) == timedelta(hours=2)
        assert parse_when("2024-03-06", zone=LocalZone()) == "2024-03-05T23:00:00Z"
        assert parse_when("2024-07", zone=LocalZone()) == "2024-06-30T22:00:00Z"
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize("text", ["10:05", "March 6", "6 Mar 10:05", "Tuesday 10:05"])
def test_a_time_without_its_own_date_is_unreadable_on_import_but_complete_for_since(text):
    """dateutil fills a missing year, month or day from today: a record's time, and the
    id hashed from it, would depend on the day of the import. --since may use today."""
    with pytest.raises(ValueError):
        parse_datetime(text)
    assert iso_ts(text) is None
    now = datetime(2030, 5, 17, 12, 0, tzinfo=UTC)
    assert parse_when(text, now=now)  # read, completed from today
