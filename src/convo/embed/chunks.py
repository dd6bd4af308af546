"""What of a message is embedded, and long messages cut into chunks.

A message is embedded as ``SPEAKER: `` and its subject and text
(``core.fields.searchable_text``, what the keyword search indexes). The speaker's name
makes "what did Dan say about token expiry" near Dan's messages: on the retrieval set
(benchmarks/retrieval/) it raised hybrid recall@10 on such questions from 0.81 to 1.00
and on paraphrases from 0.79 to 0.83. A text of more than ``WORDS`` words is cut into windows
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
    speaker = fields.speaker(record)
    text = fields.searchable_text(record).strip()
    return f"{speaker}: {text}" if speaker and text else text


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
