"""``-f NAME`` for a document format: its ``Document`` (``output.exporters.documents``),
the same object ``convo export --to NAME`` streams, written as the records arrive."""

from __future__ import annotations

from typing import IO

from convo.output.exporters.documents import Document
from convo.output.writers.base import RecordWriter
from convo.query.scan import Match


class DocumentWriter(RecordWriter):
    def __init__(self, out: IO[bytes], document: Document):
        self.out = out
        self.document = document
        self._put(document.start())

    def _put(self, text: str) -> None:
        if text:
            self.out.write(text.encode("utf-8", "surrogateescape"))

    def write(self, m: Match) -> None:
        self.count += 1
        self._put(self.document.feed(m.record))

    def close(self) -> None:
        self._put(self.document.finish())
