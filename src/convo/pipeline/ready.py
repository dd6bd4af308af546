"""Messages finished in another process, carried as the JSONL lines it wrote.

A ``--jobs`` worker (``pipeline.parallel``) finishes and checks each message exactly as
one process does (``Finisher``: format, ``source_id``, id, ``check_message``) and encodes
it once; the parent hands the line on as a ``ReadyLine``, which the sinks write as it
is, so the parent neither decodes, re-validates nor re-encodes it.
"""

from __future__ import annotations

from typing import Any

import orjson

from convo.core.jsonl import dumps


class ReadyLine:
    """One finished, checked message as its JSONL line (with its newline)."""

    __slots__ = ("line",)

    def __init__(self, line: bytes):
        self.line = line

    def serialize(self) -> dict[str, Any]:
        """The record, for a consumer that wants it as a dict."""
        return orjson.loads(self.line)


def jsonl_line(msg: Any) -> bytes:
    """The JSONL line of a message or a ``ReadyLine`` (with its newline)."""
    if type(msg) is ReadyLine:
        return msg.line
    return dumps(msg.serialize())
