"""The ``stats`` view: a summary line, one table per grouping, and the timeline as bars.

Numeric and time columns never wrap and keep their width (``common.fit``), so an
80-column terminal cuts names, with ``…``, never counts or dates. Long runs of empty buckets in the timeline fold into one row.
"""

from __future__ import annotations

from typing import Any

from convo.analysis.stats import Stats, rows
from convo.core.plural import counted
from convo.core.text.terminal import one_line
from convo.output.views.common import display_time, fit, speaker_style
from convo.output.writers import WriteOptions

TOP = 20
FOLD = 3  # this many empty buckets in a row or more are shown as one row
NARROW = 100  # below this width first/last show the date only


def render(stats: Stats, console, options: WriteOptions, top: int | None = None) -> None:
    from rich.text import Text

    t = stats.total

    def when(ts: str | None) -> str:
        return display_time(ts, utc=options.utc, zone=options.zone) if ts else "—"

    def day(ts: str | None) -> str:  # narrow terminals: the date is enough in the tables
        return when(ts)[:10] if console.width < NARROW else when(ts)

    head = Text()
    head.append(counted(t.messages, "message", grouped=True), style="bold")
    head.append(f", {counted(t.words, 'word', grouped=True)}")
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
            group = _group_table(title, rows(table), day, top or TOP)
            console.print(fit(group, console, (0,)))
    unit, buckets = stats.timeline()
    if buckets:
        console.print(_timeline(unit, buckets, console.width))


def _style(title: str, name: str) -> str:
    if title == "speaker":
        return speaker_style(name)
    return "yellow" if title == "tag" else ""


def _group_table(title: str, data: list[dict[str, Any]], when, top: int):
    from rich import box
    from rich.table import Table
    from rich.text import Text

    t = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    t.add_column(title, overflow="ellipsis", no_wrap=True, max_width=40, min_width=8)
    for col in ("messages", "words"):
        width = max([len(col), *(len(f"{r[col]:,}") for r in data[:top])])
        t.add_column(col, justify="right", no_wrap=True, min_width=width)
    for col in ("first", "last"):
        t.add_column(col, no_wrap=True, min_width=10)
    for r in data[:top]:
        t.add_row(
            Text(one_line(r["name"]), style=_style(title, r["name"])),
            Text(f"{r['messages']:,}"),
            Text(f"{r['words']:,}"),
            Text(when(r["first"]), style="dim"),
            Text(when(r["last"]), style="dim"),
        )
    if len(data) > top:
        t.caption = f"{len(data) - top} more {title}s (--top N shows more; --format json lists all)"
    return t


def folded(buckets: list[tuple[str, int]]) -> list[tuple[str, int | None]]:
    """Buckets with each run of ``FOLD`` or more empty ones as one ``(label, None)`` row."""
    out: list[tuple[str, int | None]] = []
    i = 0
    while i < len(buckets):
        j = i
        while j < len(buckets) and buckets[j][1] == 0:
            j += 1
        if j - i >= FOLD:
            out.append((f"{buckets[i][0]} … {buckets[j - 1][0]}", None))
            i = j
            continue
        out.append(buckets[i])
        i += 1
    return out


def _timeline(unit: str, buckets: list[tuple[str, int]], width: int):
    from rich import box
    from rich.table import Table
    from rich.text import Text

    peak = max(n for _, n in buckets) or 1
    rows = folded(buckets)
    label = max(len(unit), *(len(k) for k, _ in rows))
    # The labels and the counts keep their width; the bars take what is left.
    bar_width = max(10, min(60, width - label - 8 - 8))
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, title=f"messages per {unit}")
    t.add_column(unit, no_wrap=True, min_width=label)
    t.add_column("", no_wrap=True)
    t.add_column("messages", justify="right", no_wrap=True, min_width=8)
    for key, n in rows:
        if n is None:
            t.add_row(Text(key, style="dim"), Text("(none)", style="dim"), Text("0"))
            continue
        length = n * bar_width / peak
        bar = "█" * int(length) + ("▌" if length - int(length) >= 0.5 else "")
        t.add_row(Text(key), Text(bar, style="cyan"), Text(f"{n:,}"))
    return t
