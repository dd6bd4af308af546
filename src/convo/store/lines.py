"""Messages finished in another process, carried as the JSONL lines it wrote.

A ``--jobs`` worker (``pipeline.parallel``) finishes and checks each message exactly as
one process does (``Finisher``: format, ``source_id``, id, ``check_message``) and encodes
it once; the parent hands the line on as a ``ReadyLine``, which the sinks write as it
is, so the parent neither decodes, re-validates nor re-encodes it. Where the consumer is
a sink (``convo ingest``, ``pipeline.run``), a worker's block of lines goes on as one
``ReadyBlock``: one write for hundreds of messages.
"""

from __future__ import annotations

from typing import Any

import orjson


class ReadyLine:
    """One finished, checked message as its JSONL line (with its newline)."""

    __slots__ = ("line",)
    count = 1  # messages in ``line`` (as ``ReadyBlock.count``)

    def __init__(self, line: bytes):
        self.line = line

    def serialize(self) -> dict[str, Any]:
        """The record, for a consumer that wants it as a dict."""
        return orjson.loads(self.line)


class ReadyBlock:
    """Finished, checked messages as their JSONL lines, ``count`` of them, one after the
    other in ``line``: what a sink writes as it is (no ``serialize()``: not a message).
    ``done``: bytes of the run's input whose messages are through with this block (for
    a progress bar: the parent of ``--jobs`` reads no input itself)."""

    __slots__ = ("count", "done", "line")

    def __init__(self, line: bytes, count: int, done: int | None = None):
        self.line = line
        self.count = count
        self.done = done


#: The stream items whose ``line`` is written as it is.
READY = (ReadyLine, ReadyBlock)


def jsonl_line(msg: Any) -> bytes:
    """The JSONL line(s) of a message, a ``ReadyLine`` or a ``ReadyBlock`` (with newlines)."""
    if type(msg) in READY:
        return msg.line
    return msg.jsonl()
