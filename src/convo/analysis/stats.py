"""``convo stats``: counts per speaker, tag and format, and a timeline.

Decisions:
- Words are whitespace-separated runs in the text chunks (the subject is not counted).
- Times on 1970-01-01 (the unknown-time sentinel, or a transcript without a start date,
  stored as epoch + offset) are "undated": counted, but left out of first/last and the
  timeline, which would otherwise stretch back to 1970.
- The timeline unit follows the span of dated messages: days up to 62 days, ISO weeks
  (starting Monday) up to two years, months beyond. Empty buckets inside the span are
  shown with 0 so the chart keeps its time axis.
- Memory: one counter per speaker/tag/format and per day, never per message.

JSON (``--format json``; stable keys, lists sorted by messages then name)::

    {"messages": int, "words": int, "first": ts|null, "last": ts|null, "undated": int,
     "speakers": [{"name", "messages", "words", "first", "last"}], "tags": [...],
     "formats": [...],
     "timeline": {"unit": "day"|"week"|"month", "buckets": [{"start": "YYYY-MM-DD"|"YYYY-MM",
                                                             "messages": int}]}}
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from convo.core import fields

STATS_FORMATS = ("table", "text", "json", "jsonl")
TOP = 20


@dataclass(slots=True)
class Tally:
    messages: int = 0
    words: int = 0
    first: str | None = None
    last: str | None = None

    def add(self, words: int, ts: str | None) -> None:
        self.messages += 1
        self.words += words
        if ts is not None:
            if self.first is None or ts < self.first:
                self.first = ts
            if self.last is None or ts > self.last:
                self.last = ts


@dataclass
class Stats:
    total: Tally = field(default_factory=Tally)
    undated: int = 0
    speakers: dict[str, Tally] = field(default_factory=dict)
    tags: dict[str, Tally] = field(default_factory=dict)
    formats: dict[str, Tally] = field(default_factory=dict)
    days: dict[str, int] = field(default_factory=dict)

    def add(self, record: dict[str, Any]) -> None:
        chunks = record.get("textChunks")
        if chunks is None:
            chunks = record.get("text_chunks") or []
        n = sum(len(c.split()) for c in chunks if isinstance(c, str))
        ts: str | None = fields.timestamp(record)
        if ts.startswith("1970-01-01"):
            self.undated += 1
            ts = None
        else:
            self.days[ts[:10]] = self.days.get(ts[:10], 0) + 1
        self.total.add(n, ts)
        _tally(self.speakers, fields.speaker(record) or "(none)").add(n, ts)
        tags = {t for t in record.get("tags") or () if isinstance(t, str)}
        for t in tags:
            _tally(self.tags, t).add(n, ts)
        fmt = record.get("format")
        _tally(self.formats, fmt if isinstance(fmt, str) else "(none)").add(n, ts)

    def timeline(self) -> tuple[str, list[tuple[str, int]]]:
        if not self.days:
            return "day", []
        first = date.fromisoformat(min(self.days))
        last = date.fromisoformat(max(self.days))
        span = (last - first).days
        unit = "day" if span <= 62 else "week" if span <= 730 else "month"
        counts: dict[str, int] = {}
        for day, n in self.days.items():
            key = _bucket(date.fromisoformat(day), unit)
            counts[key] = counts.get(key, 0) + n
        keys = []
        cur = date.fromisoformat(_bucket(first, unit) + ("-01" if unit == "month" else ""))
        end = _bucket(last, unit)
        while True:
            key = _bucket(cur, unit)
            keys.append(key)
            if key >= end:
                break
            cur = _next(cur, unit)
        return unit, [(k, counts.get(k, 0)) for k in keys]

    def to_json(self) -> dict[str, Any]:
        unit, buckets = self.timeline()
        return {
            "messages": self.total.messages,
            "words": self.total.words,
            "first": self.total.first,
            "last": self.total.last,
            "undated": self.undated,
            "speakers": _rows(self.speakers),
            "tags": _rows(self.tags),
            "formats": _rows(self.formats),
            "timeline": {
                "unit": unit,
                "buckets": [{"start": k, "messages": n} for k, n in buckets],
            },
        }


def _tally(table: dict[str, Tally], key: str) -> Tally:
    t = table.get(key)
    if t is None:
        t = table[key] = Tally()
    return t


def _rows(table: dict[str, Tally]) -> list[dict[str, Any]]:
    items = sorted(table.items(), key=lambda kv: (-kv[1].messages, kv[0]))
    return [
        {"name": k, "messages": t.messages, "words": t.words, "first": t.first, "last": t.last}
        for k, t in items
    ]


def _bucket(d: date, unit: str) -> str:
    if unit == "day":
        return d.isoformat()
    if unit == "week":
        return (d - timedelta(days=d.weekday())).isoformat()
    return f"{d.year:04d}-{d.month:02d}"


def _next(d: date, unit: str) -> date:
    if unit == "day":
        return d + timedelta(days=1)
    if unit == "week":
        return d + timedelta(days=7)
    return date(d.year + (d.month == 12), d.month % 12 + 1, 1)


def compute(records: Iterable[dict[str, Any]]) -> Stats:
    """Stats of parsed records (library form)."""
    stats = Stats()
    for r in records:
        stats.add(r)
    return stats


# -- terminal view ----------------------------------------------------------------------


def render(stats: Stats, console, *, utc: bool = False) -> None:
    """Summary line, one table per grouping (top entries), and the timeline as bars."""
    from rich.text import Text

    from convo.output.render import display_time

    t = stats.total

    def when(ts: str | None) -> str:
        return display_time(ts, utc=utc) if ts else "—"

    head = Text()
    head.append(f"{t.messages:,} messages", style="bold")
    head.append(f", {t.words:,} words")
    if t.first:
        head.append(f", {when(t.first)} to {when(t.last)}")
    if stats.undated:
        head.append(f" ({stats.undated:,} undated)", style="dim")
    console.print(head)
    for title, table in (
        ("speaker", stats.speakers),
        ("tag", stats.tags),
        ("format", stats.formats),
    ):
        if table:
            console.print(_group_table(title, table, when, speakers=title == "speaker"))
    unit, buckets = stats.timeline()
    if buckets:
        console.print(_timeline(unit, buckets, console.width))


def _group_table(title: str, table: dict[str, Tally], when, *, speakers: bool):
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from convo.core.text.terminal import one_line
    from convo.output.render import speaker_style

    rows = _rows(table)
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    t.add_column(title, overflow="ellipsis", no_wrap=True, max_width=40)
    for col in ("messages", "words"):
        t.add_column(col, justify="right")
    t.add_column("first", no_wrap=True)
    t.add_column("last", no_wrap=True)
    for r in rows[:TOP]:
        style = speaker_style(r["name"]) if speakers else ("yellow" if title == "tag" else "")
        t.add_row(
            Text(one_line(r["name"]), style=style),
            Text(f"{r['messages']:,}"),
            Text(f"{r['words']:,}"),
            Text(when(r["first"]), style="dim"),
            Text(when(r["last"]), style="dim"),
        )
    if len(rows) > TOP:
        t.caption = f"{len(rows) - TOP} more {title}s (--format json lists all)"
    return t


def _timeline(unit: str, buckets: list[tuple[str, int]], width: int):
    from rich import box
    from rich.table import Table
    from rich.text import Text

    peak = max(n for _, n in buckets) or 1
    bar_width = max(10, min(60, width - 30))
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, title=f"messages per {unit}")
    t.add_column(unit, no_wrap=True)
    t.add_column("", no_wrap=True)
    t.add_column("messages", justify="right")
    for key, n in buckets:
        length = n * bar_width / peak
        bar = "█" * int(length) + ("▌" if length - int(length) >= 0.5 else "")
        t.add_row(Text(key), Text(bar, style="cyan"), Text(f"{n:,}"))
    return t


def run_stats(args, env, store: str | None, reporter) -> int:
    """The ``stats`` command: read with the shared options, print the view or JSON."""
    import orjson

    from convo.core.errors import UsageError

    fmt = args.format or ("table" if env.stdout_isatty else "json")
    if fmt not in STATS_FORMATS:
        raise UsageError(f"stats cannot write {fmt}", hint="choose " + "|".join(STATS_FORMATS))
    stats = Stats()
    for m in args.matches(env, reporter, default_store=store):
        stats.add(m.record)
    if fmt in ("json", "jsonl"):
        option = orjson.OPT_INDENT_2 if fmt == "json" else 0
        env.safe_stdout_bytes().write(orjson.dumps(stats.to_json(), option=option) + b"\n")
    else:
        render(stats, env.console(), utc=args.utc)
    return 0
