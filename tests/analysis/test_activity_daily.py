"""``activity.DailyActivity`` (the report's one-pass form, ``web.report.report_of_records``)
against its plain twin ``activity.activity``: any records, zone, timeline unit and busiest
speakers give the same figures, the series' order included (the page lists them so)."""

from __future__ import annotations

from datetime import UTC, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.analysis.activity import DailyActivity, activity
from convo.analysis.stats import bucket_of

_SPEAKERS = st.sampled_from(["Ann", "Bob", "Cy", None])


@st.composite
def _record(draw) -> dict:
    from convo.core.timestamps import from_epoch

    epoch = draw(st.booleans()) and draw(st.integers(0, 9)) == 0
    stamp = "1970-01-01T00:00:00Z" if epoch else from_epoch(1_700_000_000 + draw(st.integers(0, 3 * 365 * 86400)))  # fmt: skip
    record: dict = {"textChunks": ["x"], "metadata": {"speaker": draw(_SPEAKERS), "listeners": []},
                    "tags": [], "timestamp": stamp, "format": draw(st.sampled_from(["slack", "mbox", ""]))}  # fmt: skip
    thread = draw(st.sampled_from([None, "t1", "t2"]))
    if thread:
        record["thread"] = thread
        if draw(st.booleans()):
            record["subject"] = draw(st.sampled_from(["s", "other"]))
    return record


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_record(), max_size=40),
    st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))]),
    st.sampled_from(["day", "week", "month"]),
    st.lists(st.sampled_from(["Ann", "Bob", "Cy", "(none)", "Nobody"]), max_size=3),
)
def test_the_one_pass_form_equals_activity(records, zone, unit, speakers):
    bucket = lambda d: bucket_of(d, unit)  # noqa: E731
    want = activity(records, zone, speakers, bucket)
    daily = DailyActivity(zone)
    for record in records:
        daily.add(record)
    got = daily.finish(bucket, speakers)
    assert got.hours == want.hours
    assert list(got.per_format.items()) == list(want.per_format.items())
    assert [(k, list(v.items())) for k, v in got.per_speaker.items()] == [
        (k, list(v.items())) for k, v in want.per_speaker.items()
    ]
    assert [(k, list(v.items())) for k, v in got.per_format.items()] == [
        (k, list(v.items())) for k, v in want.per_format.items()
    ]
    assert got.responses == want.responses and got.overall == want.overall
    assert got.busiest_threads(10) == want.busiest_threads(10)
