"""What of a message is embedded, and long messages cut into chunks.

A message is embedded as its subject and its text (``core.fields.searchable_text``, what
the keyword search indexes too). A text of more than ``WORDS`` words is cut into windows
of ``WORDS`` words that overlap by ``OVERLAP``, each embedded on its own: a message's
score is its best chunk's (``convo.embed.nearest``), so one paragraph about the
question inside a long mail is found as well as a short message about it. ``digest`` is
what tells a changed message from an embedded one.
"""

from __future__ import annotations

import hashlib
from typing import Any

from convo.core import fields

WORDS = 160
OVERLAP = 32


def message_text(record: dict[str, Any]) -> str:
    return fields.searchable_text(record).strip()


def chunks(text: str, words: int = WORDS, overlap: int = OVERLAP) -> list[str]:
    """``text`` as one chunk, or as overlapping windows of ``words`` words; none when empty."""
    parts = text.split()
    if not parts:
        return []
    if len(parts) <= words:
        return [text]
    step = words - overlap
    out = []
    for start in range(0, len(parts), step):
        out.append(" ".join(parts[start : start + words]))
        if start + words >= len(parts):
            break
    return out


def digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
