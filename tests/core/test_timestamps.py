from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from convo.core.timestamps import (
    epoch_plus,
    format_timestamp_utc,
    from_epoch,
    from_epoch_ms,
    get_zone,
    normalize_timestamp,
    parse_datetime,
    parse_when,
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
