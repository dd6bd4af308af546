"""``text``: ``time  speaker → listeners: text``, continuation lines indented; for grep and eyes."""

from __future__ import annotations

from typing import IO

from convo.core import fields
from convo.core.text.terminal import printable
from convo.output.views.common import record_time, who
from convo.output.writers import WriteOptions
from convo.output.writers.base import RecordWriter
from convo.query.scan import Match


class TextWriter(RecordWriter):
    def __init__(self, out: IO[str], options: WriteOptions):
        self.out = out
        self.options = options

    def write(self, m: Match) -> None:
        self.count += 1
        r = m.record
        lines = printable(fields.searchable_text(r)).splitlines() or [""]
        when = record_time(r, utc=self.options.utc, zone=self.options.zone)
        head = f"{when}  {printable(who(r), newlines=False)}: "
        self.out.write(head + lines[0] + "\n")
        for line in lines[1:]:
            self.out.write("    " + line + "\n")
