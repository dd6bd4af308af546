"""A stored record as a tool result: the fields an agent acts on, the text cut to a size.

Message text is untrusted: it is returned as a JSON string value, never placed in a
description, a prompt or the structure of the answer. A text longer than
``tools.TEXT_LIMIT`` characters is cut with ``"truncated": true`` and ``next_offset``;
``get_message`` with that offset returns the next piece. Every other field is bounded
too (``bounded``, ``LIST_LIMIT``).
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
    listeners, tags = fields.listeners(record), fields.tags(record)
    out: dict[str, Any] = {
        "id": fields.record_id(record),
        "speaker": fields.speaker(record),
        "listeners": listeners[:LIST_LIMIT],
        "time": fields.timestamp(record),
        "tags": tags[:LIST_LIMIT],
        "thread": fields.string(record, "thread"),
        "reply_to": fields.string(record, "replyTo"),
        "subject": fields.string(record, "subject"),
        "format": fields.string(record, "format"),
        "role": fields.string(record, "role"),
        "source_id": fields.string(record, "source_id"),
        "text": piece,
    }
    for name, values in (("listeners", listeners), ("tags", tags)):
        if len(values) > LIST_LIMIT:
            out[f"{name}_total"] = len(values)
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


# A message's listeners and tags past this many are left out (``listeners_total``,
# ``tags_total`` say how many there were); any other string of an answer past
# ``TEXT_LIMIT`` characters is cut, "…" at its end, but for the ids an agent passes
# back (``KEEP``): a speaker of a megabyte (a base64 image read as a name) made every
# answer that named it a megabyte.
LIST_LIMIT = 50
KEEP = frozenset({"id", "thread", "reply_to", "source_id"})


def bounded(value: Any, key: str = "") -> Any:
    """``value`` (a tool's answer) with its long strings cut (see ``KEEP``)."""
    if isinstance(value, str):
        return value if len(value) <= TEXT_LIMIT or key in KEEP else value[:TEXT_LIMIT] + "…"
    if isinstance(value, dict):
        return {k: bounded(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [bounded(v, key) for v in value]
    return value


def messages(records: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    """Up to ``limit`` of ``records`` (fetched one past the limit), and whether more match."""
    return {"messages": [message(r) for r in records[:limit]], "more": len(records) > limit}
