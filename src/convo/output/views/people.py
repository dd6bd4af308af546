"""The ``people`` view: one row per person of a people file, one per name, then the
names that look like one person."""

from __future__ import annotations

from convo.analysis.people import Identity, Merge
from convo.core.text.terminal import one_line
from convo.output.views.common import display_time, fit, speaker_style
from convo.output.writers import WriteOptions


def render(
    idents: list[Identity],
    merges: list[Merge],
    console,
    options: WriteOptions,
    persons: list[Identity] | None = None,
) -> None:
    if persons:
        console.print(fit(_table(persons, options, "person", False), console, (5, 0)))
    named = any(i.person for i in idents)
    flexible = (6, 1, 0) if named else (5, 0)  # formats, person, name
    console.print(fit(_table(idents, options, "name", named), console, flexible))
    _print_merges(merges, console)


def _table(idents: list[Identity], options: WriteOptions, first: str, persons: bool):
    from rich import box
    from rich.table import Table
    from rich.text import Text

    def day(ts: str | None) -> str:
        return display_time(ts, utc=options.utc, zone=options.zone)[:10] if ts else "—"

    t = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    t.add_column(first, overflow="ellipsis", no_wrap=True, max_width=30, min_width=8)
    if persons:
        t.add_column("person", overflow="ellipsis", no_wrap=True, max_width=20)
    for col in ("messages", "heard"):
        width = max([len(col), *(len(f"{getattr(i, _COUNT[col]):,}") for i in idents)])
        t.add_column(col, justify="right", no_wrap=True, min_width=width)
    for col in ("first", "last"):
        t.add_column(col, no_wrap=True, min_width=10)
    t.add_column("formats", overflow="ellipsis", no_wrap=True, max_width=24, min_width=7)
    for i in idents:
        row = [Text(one_line(i.name), style=speaker_style(i.person or i.name))]
        if persons:
            row.append(Text(one_line(i.person or ""), style="bold"))
        row += [Text(f"{i.spoke:,}"), Text(f"{i.heard:,}"), Text(day(i.first), style="dim")]
        row += [Text(day(i.last), style="dim"), Text(one_line(", ".join(sorted(i.formats))))]
        t.add_row(*row)
    return t


def _print_merges(merges: list[Merge], console) -> None:
    from rich.text import Text

    if merges:
        console.print(
            Text("Likely the same person (settle in a people file, see --help):", style="bold")
        )
        for m in merges:
            line = Text("  ")
            line.append(" = ".join(one_line(n) for n in m.names))
            line.append(f"  ({one_line(m.reason)})", style="dim")
            console.print(line)


_COUNT = {"messages": "spoke", "heard": "heard"}
