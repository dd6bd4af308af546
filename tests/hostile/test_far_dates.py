"""One record dated far away (a ``9999-12-31`` "never" sentinel, a year 1 placeholder)
stretched the timeline's time axis to every month between: 95,000 buckets of zeros in
``stats -f json``, the MCP stats tool and the web API, and a 16 MB report for 300
messages. Past fifty years the axis counts years."""

from __future__ import annotations

import orjson

from convo.analysis.stats import compute
from convo.cli.app import app

from .helpers import record, write_store


def test_the_whole_calendar_is_under_ten_thousand_buckets():
    s = compute(
        [record(0, timestamp="0001-01-01T00:00:00Z"), record(1, timestamp="9999-12-31T23:59:59Z")]
    )
    unit, buckets = s.timeline()
    assert unit == "year"
    assert len(buckets) == 9999
    assert buckets[0] == ("0001", 1) and buckets[-1] == ("9999", 1)


def test_stats_and_report_of_a_never_sentinel_stay_small(runner, tmp_path):
    store = write_store(tmp_path / "s.jsonl", 300)
    with store.open("ab") as f:
        f.write(orjson.dumps(record(300, timestamp="9999-12-31T00:00:00Z")) + b"\n")
    r = runner.invoke(app, ["--store", str(store), "stats", "-f", "json"])
    assert r.exit_code == 0, r.output
    timeline = orjson.loads(r.stdout)["timeline"]
    assert timeline["unit"] == "year" and len(timeline["buckets"]) == 9999 - 2024 + 1
    out = tmp_path / "r.html"
    r = runner.invoke(app, ["--store", str(store), "report", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert out.stat().st_size < 3_000_000
