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
import os
from collections.abc import Callable, Iterator
from typing import IO, Any

from convo.core import fields

WORDS = 160
OVERLAP = 32
BATCH = 1024  # messages read, looked up and embedded together
Progress = Callable[[int, int], None]  # (bytes read, bytes in all)


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


def texts_of(
    f: IO[bytes], start: int = 0, progress: Progress | None = None
) -> Iterator[list[tuple[str, str]]]:
    """``(id, text)`` of the records of the open store ``f`` from ``start``, ``BATCH`` at
    a time (a line that is not a record, or has no id, which a store does not hold, is
    passed over; within a batch an id's first record counts)."""
    from convo.index.rows import iter_spans, parse

    total = os.fstat(f.fileno()).st_size
    batch: list[tuple[str, str]] = []
    seen: set[str] = set()
    for offset, _, line in iter_spans(f, start):
        record = parse(line)
        ident = fields.record_id(record) if record is not None else None
        if record is None or ident is None or ident in seen:
            continue
        seen.add(ident)
        batch.append((ident, message_text(record)))
        if len(batch) >= BATCH:
            if progress is not None:
                progress(offset, total)
            yield batch
            batch = []
            seen.clear()
    if batch:
        yield batch
    if progress is not None:
        progress(total, total)
