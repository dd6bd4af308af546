"""``table``: the list view, a rich table printed in batches so that long output streams.

Everything from a record is escaped for the terminal (``one_line``) and handed to rich as
``Text`` (never markup).

Widths: the time column is as wide as its times; speaker → listeners and tags are as
wide as their longest value in the first batch (at most ``SPEAKER_MAX`` and ``TAGS_MAX``
columns, and together at most 4/9 of the width after the time; later batches keep
those widths, so the columns stay aligned); the text takes every column left. Cut values end in ``…``.
"""

from __future__ import annotations

from typing import Any

from convo.core import fields
from convo.core.text.terminal import one_line
from convo.output.views.common import display_time, speaker_style, who
from convo.output.writers import WriteOptions
from convo.output.writers.base import RecordWriter
from convo.query.scan import Match

SPEAKER_MAX = 40
TAGS_MAX = 24
TEXT_MIN = 20  # the text keeps this much, and 5/9 of the width after the time


class TableWriter(RecordWriter):
    BATCH = 200

    def __init__(self, console, options: WriteOptions):
        self.console = console
        self.options = options
        self.rows: list[dict[str, Any]] = []
        self.printed_header = False
        self.widths: tuple[int, int, int] | None = None  # time, speaker, tags

    def write(self, m: Match) -> None:
        self.count += 1
        self.rows.append(m.record)
        if len(self.rows) >= self.BATCH:
            self._flush()

    def _table(self, widths: tuple[int, int, int]):
        from rich import box
        from rich.table import Table

        table = Table(
            box=box.SIMPLE_HEAD if not self.printed_header else None,
            show_header=not self.printed_header,
            pad_edge=False,
            expand=True,
        )
        time, speaker, tags = widths
        table.add_column("time", no_wrap=True, width=time)
        table.add_column("speaker → listeners", no_wrap=True, width=speaker, overflow="ellipsis")
        table.add_column("tags", no_wrap=True, width=tags, overflow="ellipsis")
        table.add_column("text", no_wrap=True, ratio=1, overflow="ellipsis")
        return table

    def _widths(self, cells: list[tuple[str, str, str, str]]) -> tuple[int, int, int]:
        """The time, speaker and tags widths of the first batch (see the docstring)."""
        if self.widths is None:
            from rich.cells import cell_len

            def widest(i: int, head: str, most: int) -> int:
                return min(most, max([cell_len(head), *(cell_len(c[i]) for c in cells)]))

            time = widest(0, "time", 32)
            speaker = widest(1, "speaker → listeners", SPEAKER_MAX)
            tags = widest(2, "tags", TAGS_MAX) if any(c[2] for c in cells) else 4
            # 3 gaps of 3 columns and the 2 edges; the text keeps 5/9 of the rest
            rest = self.console.width - time - 11
            room = rest - max(TEXT_MIN, -(-5 * rest // 9))
            if speaker + tags > room:
                tags = max(4, min(tags, room // 3))
                speaker = max(8, room - tags)
            self.widths = (time, speaker, tags)
        return self.widths

    def _flush(self) -> None:
        from rich.text import Text

        cells = [
            (
                display_time(fields.timestamp(r), utc=self.options.utc, zone=self.options.zone),
                one_line(who(r)),
                one_line(", ".join(fields.tags(r))),
                one_line(fields.searchable_text(r), 1000),
            )
            for r in self.rows
        ]
        table = self._table(self._widths(cells))
        for r, (when, speaker, tags, text) in zip(self.rows, cells, strict=True):
            table.add_row(
                Text(when, style="dim"),
                Text(speaker, style=speaker_style(fields.speaker(r))),
                Text(tags, style="yellow"),
                Text(text),
            )
        self.console.print(table)
        self.printed_header = True
        self.rows.clear()

    def close(self) -> None:
        if self.rows:
            self._flush()
