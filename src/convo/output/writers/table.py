"""``table``: the list view, a rich table printed in batches so that long output streams.

Everything from a record is escaped for the terminal (``one_line``) and handed to rich as
``Text`` (never markup).
"""

from __future__ import annotations

from typing import Any

from convo.core import fields
from convo.core.text.terminal import one_line
from convo.output.views.common import display_time, speaker_style, who
from convo.output.writers import WriteOptions
from convo.output.writers.base import RecordWriter
from convo.query.scan import Match


class TableWriter(RecordWriter):
    BATCH = 200

    def __init__(self, console, options: WriteOptions):
        self.console = console
        self.options = options
        self.rows: list[dict[str, Any]] = []
        self.printed_header = False

    def write(self, m: Match) -> None:
        self.count += 1
        self.rows.append(m.record)
        if len(self.rows) >= self.BATCH:
            self._flush()

    def _table(self):
        from rich import box
        from rich.table import Table

        table = Table(
            box=box.SIMPLE_HEAD if not self.printed_header else None,
            show_header=not self.printed_header,
            pad_edge=False,
            expand=True,
        )
        table.add_column("time", no_wrap=True, width=20)
        table.add_column("speaker → listeners", no_wrap=True, ratio=3, overflow="ellipsis")
        table.add_column("tags", no_wrap=True, ratio=1, overflow="ellipsis")
        table.add_column("text", no_wrap=True, ratio=5, overflow="ellipsis")
        return table

    def _flush(self) -> None:
        from rich.text import Text

        table = self._table()
        for r in self.rows:
            when = display_time(fields.timestamp(r), utc=self.options.utc, zone=self.options.zone)
            table.add_row(
                Text(when, style="dim"),
                Text(one_line(who(r)), style=speaker_style(fields.speaker(r))),
                Text(one_line(", ".join(fields.tags(r))), style="yellow"),
                Text(one_line(fields.searchable_text(r), 300)),
            )
        self.console.print(table)
        self.printed_header = True
        self.rows.clear()

    def close(self) -> None:
        if self.rows:
            self._flush()
