"""A stored record as a tool result: the fields an agent acts on, the text cut to a size.

Message text is untrusted: it is returned as a JSON string value, never placed in a
description, a prompt or the structure of the answer. A text longer than
``tools.TEXT_LIMIT`` characters is cut with ``"truncated": true`` and ``next_offset``;
``get_message`` with that offset returns the next piece.
"""

from __future__ import annotations

from typing import Any

from convo.core import fields
from convo.mcp.tools import TEXT_LIMIT


def message(
    record: dict[str, Any], *, score: float | None = None, offset: int = 0
) -> dict[str, Any]:
    """The result form of ``record`` (its text from ``offset``, at most ``TEXT_LIMIT``)."""
    text = fields.text(record)
    piece = text[offset : offset + TEXT_LIMIT]
    out: dict[str, Any] = {
        "id": fields.record_id(record),
        "speaker": fields.speaker(record),
        "listeners": fields.listeners(record),
        "time": fields.timestamp(record),
        "tags": fields.tags(record),
        "thread": fields.string(record, "thread"),
        "reply_to": fields.string(record, "replyTo"),
        "subject": fields.string(record, "subject"),
        "format": fields.string(record, "format"),
        "role": fields.string(record, "role"),
        "source_id": fields.string(record, "source_id"),
        "text": piece,
    }
    if score is not None:
        out["score"] = round(score, 4)
    end = offset + len(piece)
    if offset or end < len(text):
        out["text_length"] = len(text)
        out["offset"] = offset
    if end < len(text):
        out["truncated"] = True
        out["next_offset"] = end
    return out


def messages(records: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    """Up to ``limit`` of ``records`` (fetched one past the limit), and whether more match."""
    return {"messages": [message(r) for r in records[:limit]], "more": len(records) > limit}
