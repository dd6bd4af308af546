"""The ``threads`` view: one row per conversation, newest first."""

from __future__ import annotations

from convo.analysis.threads import Thread
from convo.core.text.terminal import one_line
from convo.output.views.common import display_time
from convo.output.writers import WriteOptions

SHOWN_PEOPLE = 3


def render(rows: list[Thread], console, options: WriteOptions) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    def when(ts: str) -> str:
        return display_time(ts, utc=options.utc, zone=options.zone)

    times = [when(r.latest) for r in rows]
    time_width = max([len("latest"), *map(len, times)])
    count_width = max([len("msgs"), *(len(f"{r.messages:,}") for r in rows)])
    # Times and counts are never cut; the text columns share what is left, title first.
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, expand=True)
    t.add_column("latest", no_wrap=True, min_width=time_width)
    t.add_column("msgs", justify="right", no_wrap=True, min_width=count_width)
    t.add_column("title", ratio=3, overflow="ellipsis", no_wrap=True, min_width=12)
    t.add_column("participants", ratio=2, overflow="ellipsis", no_wrap=True, min_width=10)
    # An id is never cut: it is what `show --thread` takes (a long one folds).
    t.add_column("thread", ratio=3, overflow="fold", min_width=8)
    for row, latest in zip(rows, times, strict=True):
        people = row.participants()
        shown = ", ".join(people[:SHOWN_PEOPLE])
        if len(people) > SHOWN_PEOPLE:
            shown += f" +{len(people) - SHOWN_PEOPLE}"
        t.add_row(
            Text(latest, style="dim"), Text(f"{row.messages:,}"),
            Text(one_line(row.title)), Text(one_line(shown)), Text(one_line(row.thread)),
        )  # fmt: skip
    console.print(t)
