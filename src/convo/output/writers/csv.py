"""``csv``: flat columns for spreadsheets; every cell goes through ``core.text.markup.csv_cell``.

Lists are joined with ``; `` and text chunks with newlines (quoted by the csv module).
Times are UTC. No cell can start a formula (``=HYPERLINK(...)`` is written ``'=HYPERLINK(...)``);
on a terminal the cells are also escaped for it.
"""

from __future__ import annotations

import csv
from typing import IO

from convo.core import fields
from convo.core.text.markup import csv_cell
from convo.core.text.terminal import printable
from convo.output.writers.base import RecordWriter
from convo.query.scan import Match

# The one CSV of a record: ``-f csv`` and ``convo export --to csv`` write these columns.
COLUMNS = ("timestamp", "speaker", "role", "listeners", "tags", "thread", "subject",
           "text", "id", "source_id", "format")  # fmt: skip


def row(record: dict) -> list[str]:
    """The CSV cells of a record, in ``COLUMNS`` order, not yet escaped."""
    return [
        fields.timestamp(record),
        fields.speaker(record) or "",
        fields.role(record) if record.get("role") else "",
        "; ".join(fields.listeners(record)),
        "; ".join(fields.tags(record)),
        fields.string(record, "thread") or "",
        fields.string(record, "subject") or "",
        fields.text(record),
        fields.record_id(record) or "",
        fields.string(record, "source_id") or "",
        fields.string(record, "format") or "",
    ]


class CsvWriter(RecordWriter):
    def __init__(self, out: IO[str], *, tty: bool = False):
        self.csv = csv.writer(out, lineterminator="\n")
        self.csv.writerow(COLUMNS)
        self.tty = tty

    def write(self, m: Match) -> None:
        self.count += 1
        cells = (csv_cell(v) for v in row(m.record))
        self.csv.writerow([printable(c) for c in cells] if self.tty else cells)
