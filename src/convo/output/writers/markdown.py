"""``markdown``: one table row per message; every cell goes through ``core.text.markup``.

A cell is escaped with ``markdown_inline`` (HTML, emphasis, links, pipes), so a message
can neither inject HTML (``<img onerror=...>``) nor end its row and forge a header;
its lines are joined with ``<br>``, the only markup the writer adds.
"""

from __future__ import annotations

from typing import IO

from convo.core import fields
from convo.core.text.markup import markdown_inline
from convo.core.text.terminal import printable
from convo.output.views.common import display_time
from convo.output.writers import WriteOptions
from convo.output.writers.base import RecordWriter
from convo.query.scan import Match

HEADER = "| time | speaker | listeners | tags | text |\n|---|---|---|---|---|\n"


def cell(text: str) -> str:
    """One table cell: terminal-safe, Markdown-inert, on one line."""
    return markdown_inline(printable(text, newlines=False))


class MarkdownWriter(RecordWriter):
    def __init__(self, out: IO[str], options: WriteOptions):
        self.out = out
        self.options = options
        out.write(HEADER)

    def write(self, m: Match) -> None:
        self.count += 1
        r = m.record
        lines = fields.searchable_text(r).splitlines()
        cells = (
            display_time(fields.timestamp(r), utc=self.options.utc, zone=self.options.zone),
            cell(fields.speaker(r) or ""),
            cell(", ".join(fields.listeners(r))),
            cell(", ".join(fields.tags(r))),
            "<br>".join(cell(line) for line in lines),
        )
        self.out.write("| " + " | ".join(cells) + " |\n")
