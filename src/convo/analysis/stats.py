"""Stats of records for ``convo stats``: counts per speaker, tag and format, and a timeline.

``convo.output.views.stats`` shows them; this module only counts.

Decisions:
- Words are whitespace-separated runs in the text chunks (the subject is not counted).
- Times on 1970-01-01 (the unknown-time sentinel, or a transcript without a start date,
  stored as epoch + offset) are "undated": counted, but left out of first/last and the
  timeline, which would otherwise stretch back to 1970. So is a time whose date does not
  exist (``2019-13-01T...``: ``core.fields.timestamp`` checks the form, not the range).
- The timeline unit follows the span of dated messages: days up to 62 days, ISO weeks
  (starting Monday) up to two years, months up to 50 years, years beyond. Empty buckets
  inside the span are kept with 0 so the chart keeps its time axis (the table view folds
  long runs); years keep that axis under 10,000 buckets when one record is dated far
  away (a ``9999-12-31`` "never" sentinel made 95,000 months: 6 MB of ``stats -f json``,
  16 MB of report).
- Memory: one counter per speaker/tag/format and per day, never per message.
- Large JSONL files and the store are counted on several cores (``compute_parallel``
  over ``convo.analysis.parallel`` ranges): ``Stats.merge`` is exact, so the result is
  the one-core result.

JSON (``--format json``; stable keys, lists sorted by messages then name)::

    {"messages": int, "words": int, "first": ts|null, "last": ts|null, "undated": int,
     "speakers": [{"name", "messages", "words", "first", "last"}], "tags": [...],
     "formats": [...],
     "timeline": {"unit": "day"|"week"|"month"|"year",
                  "buckets": [{"start": "YYYY-MM-DD"|"YYYY-MM"|"YYYY", "messages": int}]}}
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from convo.analysis import parallel
from convo.analysis.parallel import RangeReport, RangeTask
from convo.core import fields
from convo.core.pool import ordered_map
from convo.core.timestamps import UNDATED_DAY
from convo.query.filters import Filters

EPOCH_DAY = UNDATED_DAY


@dataclass(slots=True)
class Tally:
    messages: int = 0
    words: int = 0
    first: str | None = None
    last: str | None = None

    def merge(self, other: Tally) -> None:
        self.messages += other.messages
        self.words += other.words
        if other.first is not None and (self.first is None or other.first < self.first):
            self.first = other.first
        if other.last is not None and (self.last is None or other.last > self.last):
            self.last = other.last


@dataclass
class Stats:
    total: Tally = field(default_factory=Tally)
    undated: int = 0
    speakers: dict[str, Tally] = field(default_factory=dict)
    tags: dict[str, Tally] = field(default_factory=dict)
    formats: dict[str, Tally] = field(default_factory=dict)
    days: dict[str, int] = field(default_factory=dict)

    def add(self, record: dict[str, Any]) -> None:
        chunks = fields.chunks(record)
        n = len(" ".join(chunks).split()) if chunks else 0  # one split, the same words
        ts = self._dated(fields.timestamp(record))
        tallies = [
            self.total,
            _tally(self.speakers, fields.speaker_label(record)),
            _tally(self.formats, fields.string(record, "format") or "(none)"),
        ]
        tags = fields.tags(record)
        if tags:
            tallies.extend(_tally(self.tags, t) for t in set(tags))
        for t in tallies:  # Tally.add, inlined: this loop is most of a stats run
            t.messages += 1
            t.words += n
            if ts is not None:
                if t.first is None or ts < t.first:
                    t.first = ts
                if t.last is None or ts > t.last:
                    t.last = ts

    def _dated(self, stamp: str) -> str | None:
        """Count the message's day and give its time, or count it undated and give None."""
        day = stamp[:10]
        seen = self.days.get(day)
        if seen is None and (day == EPOCH_DAY or not real_day(day)):
            self.undated += 1
            return None
        self.days[day] = (seen or 0) + 1
        return stamp

    def merge(self, other: Stats) -> None:
        """Add the stats of more records: exactly the stats of one pass over both."""
        self.total.merge(other.total)
        self.undated += other.undated
        for mine, theirs in (
            (self.speakers, other.speakers),
            (self.tags, other.tags),
            (self.formats, other.formats),
        ):
            for key, tally in theirs.items():
                _tally(mine, key).merge(tally)
        for day, n in other.days.items():
            self.days[day] = self.days.get(day, 0) + n

    def timeline(self) -> tuple[str, list[tuple[str, int]]]:
        if not self.days:
            return "day", []
        first = date.fromisoformat(min(self.days))
        last = date.fromisoformat(max(self.days))
        span = (last - first).days
        unit = "day" if span <= 62 else "week" if span <= 730 else _long(span)
        counts: dict[str, int] = {}
        for day, n in self.days.items():
            key = _bucket(date.fromisoformat(day), unit)
            counts[key] = counts.get(key, 0) + n
        keys = []
        cur = date.fromisoformat(_bucket(first, unit) + _DAY_OF.get(unit, ""))
        end = _bucket(last, unit)
        while True:
            key = _bucket(cur, unit)
            keys.append(key)
            if key >= end:
                break
            try:
                cur = _next(cur, unit)
            except (OverflowError, ValueError):  # the year 9999 has no next bucket
                break
        return unit, [(k, counts.get(k, 0)) for k in keys]

    def to_json(self, top: int | None = None) -> dict[str, Any]:
        """The JSON of the module docstring; ``top``: at most this many rows a grouping."""
        unit, buckets = self.timeline()
        return {
            "messages": self.total.messages,
            "words": self.total.words,
            "first": self.total.first,
            "last": self.total.last,
            "undated": self.undated,
            "speakers": rows(self.speakers)[:top],
            "tags": rows(self.tags)[:top],
            "formats": rows(self.formats)[:top],
            "timeline": {
                "unit": unit,
                "buckets": [{"start": k, "messages": n} for k, n in buckets],
            },
        }


def real_day(day: str) -> bool:
    """``YYYY-MM-DD`` names a day of the calendar (a canonical-looking time may not)."""
    try:
        date.fromisoformat(day)
    except ValueError:
        return False
    return True


def _tally(table: dict[str, Tally], key: str) -> Tally:
    t = table.get(key)
    if t is None:
        t = table[key] = Tally()
    return t


def rows(table: dict[str, Tally]) -> list[dict[str, Any]]:
    """A grouping's rows, sorted by messages (most first), then name."""
    items = sorted(table.items(), key=lambda kv: (-kv[1].messages, kv[0]))
    return [
        {"name": k, "messages": t.messages, "words": t.words, "first": t.first, "last": t.last}
        for k, t in items
    ]


def bucket_of(day: str, unit: str) -> str:
    """The timeline bucket (of ``unit``, see ``Stats.timeline``) of a ``YYYY-MM-DD`` day."""
    return _bucket(date.fromisoformat(day), unit)


_DAY_OF = {"month": "-01", "year": "-01-01"}  # a bucket's key to its first day
_MONTHS_UP_TO = 50 * 365 + 12  # days: fifty years of months, then years


def _long(span: int) -> str:
    return "month" if span <= _MONTHS_UP_TO else "year"


def _bucket(d: date, unit: str) -> str:
    if unit == "day":
        return d.isoformat()
    if unit == "week":
        return (d - timedelta(days=d.weekday())).isoformat()
    if unit == "year":
        return f"{d.year:04d}"
    return f"{d.year:04d}-{d.month:02d}"


def _next(d: date, unit: str) -> date:
    if unit == "day":
        return d + timedelta(days=1)
    if unit == "week":
        return d + timedelta(days=7)
    if unit == "year":
        return date(d.year + 1, 1, 1)
    return date(d.year + (d.month == 12), d.month % 12 + 1, 1)


def compute(records: Iterable[dict[str, Any]]) -> Stats:
    """Stats of parsed records (library form)."""
    stats = Stats()
    for r in records:
        stats.add(r)
    return stats


def stats_of_range(task: RangeTask) -> tuple[Stats, RangeReport]:
    """The stats of one byte range of a JSONL file (a worker's part of ``compute_parallel``).

    Without filters the lines of convo's layout are counted on their bytes
    (``convo.analysis.rawstats``), the others parsed; the result is the same."""
    from convo.analysis.rawstats import RawStats

    report = RangeReport()
    if not task.filters.is_empty():
        return compute(parallel.range_records(task, report)), report
    raw = RawStats()
    stats = compute(parallel.range_lines(task, report, raw))
    stats.merge(raw.to_stats(task.people))
    return stats, report


def stats_of_parts(
    parts: Iterable[Any], filters: Filters, *, on_error=None, jobs: int | None = None,
    people: Any = None,
) -> Stats:  # fmt: skip
    """The stats of the records ``filters`` select in ``parts`` (``inputs.record_parts``):
    on several cores when ``parallel.plan`` says the inputs are worth it; with ``people``
    (a core.people.People) each name counted as its person. Files read without filters
    take the range readers' path in this process too (``parallel.whole_files``)."""
    parts = list(parts)
    tasks = parallel.plan(parts, filters, jobs, people)
    if tasks is not None:
        return compute_parallel(tasks, parallel.workers(tasks, jobs), on_error)
    whole = parallel.whole_files(parts, filters, people) if filters.is_empty() else None
    if whole is not None:
        return compute_parallel(whole, 1, on_error)
    return compute(parallel.selected(parts, filters, on_error, people))


def compute_parallel(tasks: list[RangeTask], jobs: int, on_error=None) -> Stats:
    """The stats of the records of ``tasks`` (``parallel.plan``), on ``jobs`` processes.

    Equal to ``compute`` over the same records in one process, bad lines reported the same.
    """
    stats = Stats()
    rebase = parallel.Rebase(on_error)
    for task, (part, report) in zip(tasks, ordered_map(stats_of_range, tasks, jobs), strict=True):
        stats.merge(part)
        rebase.add(task, report)
    return stats
