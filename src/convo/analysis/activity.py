"""When people talk and how fast they answer: the figures of ``convo report`` that
``stats`` and ``knowledge`` do not hold.

``activity(records, zone, speakers, buckets)`` reads the selected records once and
counts:

- ``hours``: a weekday x hour grid (Monday = 0) of dated messages in ``zone`` (the
  report's ``--tz``; undated messages, see ``convo.analysis.stats``, are left out);
- ``per_speaker`` / ``per_format``: messages per timeline bucket (``stats``'s timeline
  unit, so the series line up with ``stats``'s timeline) for the ``speakers`` given (the
  report passes ``stats``'s busiest) and for every format;
- ``responses``: for each message in a thread that follows a message by someone else,
  the time since that message, as a histogram per responder (``RESPONSE_BANDS``) and
  overall. Messages are taken in the order they are read (the store's order); a message
  that is earlier than the one before it in its thread is not counted;
- ``threads``: the busiest threads (``Frequent``: bounded; exact while the store has at
  most ``2 * THREADS`` threads, an underestimate by at most n / (THREADS + 1) after).

Memory: the grid, one counter per (speaker, bucket) and (format, bucket), the bounded
thread counts, and the last message of at most ``OPEN_THREADS`` threads (the least
recently seen are forgotten first: a reply to a thread not seen for that long is not
counted as a response), never one entry per message.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

from convo.analysis.frequent import Frequent
from convo.analysis.stats import EPOCH_DAY, real_day
from convo.core import fields
from convo.core.timestamps import record_datetime

THREADS = 50
OPEN_THREADS = 100_000
RESPONSE_BANDS: tuple[tuple[str, int], ...] = (
    ("< 1 min", 60),
    ("< 5 min", 300),
    ("< 1 h", 3600),
    ("< 1 day", 86400),
    ("< 1 week", 7 * 86400),
    ("longer", 1 << 62),
)


@dataclass
class Activity:
    hours: list[list[int]] = field(default_factory=lambda: [[0] * 24 for _ in range(7)])
    per_speaker: dict[str, dict[str, int]] = field(default_factory=dict)
    per_format: dict[str, dict[str, int]] = field(default_factory=dict)
    responses: dict[str, list[int]] = field(default_factory=dict)
    overall: list[int] = field(default_factory=lambda: [0] * len(RESPONSE_BANDS))
    threads: Frequent[str] = field(default_factory=lambda: Frequent(THREADS))
    subjects: dict[str, str] = field(default_factory=dict)

    def busiest_threads(self, n: int) -> list[tuple[str, int, str]]:
        """``(thread, messages, subject)``, busiest first, ties by thread id."""
        top = sorted(self.threads.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
        return [(t, c, self.subjects.get(t, "")) for t, c in top]


def _band(seconds: float) -> int:
    return next(i for i, (_, limit) in enumerate(RESPONSE_BANDS) if seconds < limit)


class _Counter:
    """``speakers`` None: a series for every speaker."""

    def __init__(
        self, zone: tzinfo, speakers: set[str] | None, bucket: Callable[[str], str]
    ) -> None:
        self.result = Activity()
        self.zone, self.speakers, self.bucket = zone, speakers, bucket
        self.last: OrderedDict[str, tuple[str, datetime]] = OrderedDict()

    def add(self, record: dict[str, Any]) -> None:
        stamp = fields.timestamp(record)
        day = stamp[:10]
        when = None
        speaker = fields.speaker(record) or "(none)"
        if day != EPOCH_DAY and real_day(day):
            when = record_datetime(stamp)
            local = when.astimezone(self.zone)
            self.result.hours[local.weekday()][local.hour] += 1
            key = self.bucket(day)
            fmt = fields.string(record, "format") or "(none)"
            series = self.result.per_format.setdefault(fmt, {})
            series[key] = series.get(key, 0) + 1
            if self.speakers is None or speaker in self.speakers:
                series = self.result.per_speaker.setdefault(speaker, {})
                series[key] = series.get(key, 0) + 1
        thread = fields.conversation(record)
        if thread is not None:
            self._thread(record, thread, speaker, when)

    def _thread(self, record: dict[str, Any], thread: str, speaker: str, when) -> None:
        self.result.threads.add(thread)
        if thread not in self.result.subjects and len(self.result.subjects) < OPEN_THREADS:
            subject = fields.string(record, "subject")
            if subject:
                self.result.subjects[thread] = subject
        if when is None:
            return
        before = self.last.get(thread)
        if before is not None and before[0] != speaker and when >= before[1]:
            band = _band((when - before[1]).total_seconds())
            self.result.responses.setdefault(speaker, [0] * len(RESPONSE_BANDS))[band] += 1
            self.result.overall[band] += 1
        self.last[thread] = (speaker, when)
        self.last.move_to_end(thread)
        if len(self.last) > OPEN_THREADS:
            self.last.popitem(last=False)


def activity(
    records: Iterable[dict[str, Any]],
    zone: tzinfo,
    speakers: Iterable[str],
    bucket: Callable[[str], str],
) -> Activity:
    """The figures above for ``records``; ``bucket(day)`` names a day's timeline bucket."""
    counter = _Counter(zone, set(speakers), bucket)
    for record in records:
        counter.add(record)
    return counter.result


class DailyActivity:
    """``activity`` in the same pass as ``stats``, before the timeline's unit and the
    busiest speakers are known: ``add`` each record, then ``finish(bucket, speakers)``.
    The series are counted by day for every speaker (at most one entry per speaker and
    day, never one per message) and folded into ``bucket`` at the end; the result equals
    ``activity(records, zone, speakers, bucket)`` (``tests/web/test_report.py``)."""

    def __init__(self, zone: tzinfo) -> None:
        self._counter = _Counter(zone, None, str)

    def add(self, record: dict[str, Any]) -> None:
        self._counter.add(record)

    def finish(self, bucket: Callable[[str], str], speakers: Iterable[str]) -> Activity:
        result = self._counter.result
        keep = set(speakers)
        result.per_format = {k: _fold(v, bucket) for k, v in result.per_format.items()}
        result.per_speaker = {
            k: _fold(v, bucket) for k, v in result.per_speaker.items() if k in keep
        }
        return result


def _fold(days: dict[str, int], bucket: Callable[[str], str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for day, n in days.items():
        key = bucket(day)
        out[key] = out.get(key, 0) + n
    return out
