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
    # A terminal too narrow for them all leaves participants out, then the title (the
    # thread id would fold a letter a line), and says so.
    shown_cols = [c for c, _ in _OPTIONAL]
    fixed = time_width + count_width + THREAD_MIN + 2 * _GAP
    while shown_cols and fixed + sum(_MIN[c] + _GAP for c in shown_cols) > console.width:
        shown_cols.pop()
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, expand=True)
    t.add_column("latest", no_wrap=True, min_width=time_width)
    t.add_column("msgs", justify="right", no_wrap=True, min_width=count_width)
    if "title" in shown_cols:
        t.add_column("title", ratio=3, overflow="ellipsis", no_wrap=True, min_width=12)
    if "participants" in shown_cols:
        t.add_column("participants", ratio=2, overflow="ellipsis", no_wrap=True, min_width=10)
    # An id is never cut: it is what `show --thread` takes (a long one folds).
    t.add_column("thread", ratio=3, overflow="fold", min_width=THREAD_MIN)
    for row, latest in zip(rows, times, strict=True):
        people = row.participants()
        shown = ", ".join(people[:SHOWN_PEOPLE])
        if len(people) > SHOWN_PEOPLE:
            shown += f" +{len(people) - SHOWN_PEOPLE}"
        cells = {"title": Text(one_line(row.title)), "participants": Text(one_line(shown))}
        t.add_row(
            Text(latest, style="dim"), Text(f"{row.messages:,}"),
            *(cells[c] for c in shown_cols), Text(one_line(row.thread)),
        )  # fmt: skip
    left_out = [c for c, _ in _OPTIONAL if c not in shown_cols]
    if left_out:
        t.caption = (f"{', '.join(left_out)} left out: {console.width} columns are too few"
                     " (-f csv or json has them)")  # fmt: skip
    console.print(t)


_OPTIONAL = (("title", 12), ("participants", 10))  # left out from the right
_MIN = dict(_OPTIONAL)
_GAP = 3  # the space between two columns
THREAD_MIN = 8  # the thread id's narrowest (it folds)
