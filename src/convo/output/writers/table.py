"""``table``: the list view, a rich table printed in batches so that long output streams.

Everything from a record is escaped for the terminal (``one_line``) and handed to rich as
``Text`` (never markup).

Widths: the time column is as wide as its times; speaker → listeners and tags are as
wide as their longest value in the first batch (at most ``SPEAKER_MAX`` and ``TAGS_MAX``
columns, and together at most 4/9 of the width after the time; later batches keep
those widths, so the columns stay aligned); the text takes every column left. Cut values end in ``…``.
The columns are the config file's ``columns`` (``writers.columns``), this layout by default.
"""

from __future__ import annotations

from typing import Any

from convo.core import fields
from convo.core.text.terminal import one_line
from convo.output.views.common import speaker_style
from convo.output.writers import WriteOptions
from convo.output.writers.base import RecordWriter
from convo.output.writers.columns import COLUMNS, DEFAULT
from convo.query.scan import Match

SPEAKER_MAX = 40
TAGS_MAX = 24
TEXT_MIN = 20  # the text keeps this much, and 5/9 of the width after the time


class TableWriter(RecordWriter):
    BATCH = 200

    def __init__(self, console, options: WriteOptions):
        self.console = console
        self.options = options
        self.columns = [COLUMNS[n] for n in (options.columns or DEFAULT)]
        self.rows: list[dict[str, Any]] = []
        self.printed_header = False
        self.widths: list[int] | None = None  # of every column but the text

    def write(self, m: Match) -> None:
        self.count += 1
        self.rows.append(m.record)
        if len(self.rows) >= self.BATCH:
            self._flush()

    def _table(self, widths: list[int]):
        from rich import box
        from rich.table import Table

        table = Table(
            box=box.SIMPLE_HEAD if not self.printed_header else None,
            show_header=not self.printed_header,
            pad_edge=False,
            expand=True,
        )
        for column, width in zip(self.columns[:-1], widths, strict=True):
            if column.name == "time":  # as wide as its widest value: never cut
                table.add_column(column.header, no_wrap=True, width=width)
            else:
                table.add_column(column.header, no_wrap=True, width=width, overflow="ellipsis")
        table.add_column("text", no_wrap=True, ratio=1, overflow="ellipsis")
        return table

    def _widths(self, cells: list[list[str]]) -> list[int]:
        """The first batch's widths (see the module docstring): each column as wide as its
        header and values, at most its ``most``; the time is never narrowed; when the
        others leave the text less than 5/9 of the width after the time (and at least
        ``TEXT_MIN``), each but the first is narrowed to at most a 2k+1-th of the room
        (k: how many they are; at least 4), and the first takes what is left (at least 8)."""
        if self.widths is None:
            from rich.cells import cell_len

            widths = [
                min(c.most, max([cell_len(c.header), *(cell_len(row[i]) for row in cells)]))
                for i, c in enumerate(self.columns[:-1])
            ]
            fixed = [i for i, c in enumerate(self.columns[:-1]) if c.name == "time"]
            squeezed = [i for i in range(len(widths)) if i not in fixed]
            gaps = 3 * (len(self.columns) - 1) + 2
            rest = self.console.width - sum(widths[i] for i in fixed) - gaps
            room = rest - max(TEXT_MIN, -(-5 * rest // 9))
            if squeezed and sum(widths[i] for i in squeezed) > room:
                first, *others = squeezed
                for i in others:
                    widths[i] = max(4, min(widths[i], room // (2 * len(others) + 1)))
                widths[first] = max(8, room - sum(widths[i] for i in others))
            self.widths = widths
        return self.widths

    def _flush(self) -> None:
        from rich.text import Text

        cells = [
            [one_line(c.value(r, self.options), 1000) for c in self.columns]
            for r in self.rows
        ]  # fmt: skip
        table = self._table(self._widths(cells))
        for r, row in zip(self.rows, cells, strict=True):
            table.add_row(*(
                Text(value, style=speaker_style(fields.speaker(r))
                     if c.name in ("speaker", "from") else c.style)
                for c, value in zip(self.columns, row, strict=True)
            ))  # fmt: skip
        self.console.print(table)
        self.printed_header = True
        self.rows.clear()

    def close(self) -> None:
        if self.rows:
            self._flush()
