"""What of a message is embedded, and long messages cut into chunks.

A message is embedded as ``SPEAKER: `` and its subject and text
(``core.fields.searchable_text``, what the keyword search indexes). The speaker's name
makes "what did Dan say about token expiry" near Dan's messages: on the retrieval set
(benchmarks/retrieval/) it raised hybrid recall@10 on such questions from 0.81 to 1.00
and on paraphrases from 0.79 to 0.83. A text of more than ``WORDS`` words is cut into windows
of ``WORDS`` words that overlap by ``OVERLAP``, each embedded on its own: a message's
score is its best chunk's (``convo.embed.nearest``), so one paragraph about the
question inside a long mail is found as well as a short message about it. The default
model's vector is an average of its tokens', so a window is about one paragraph: on
the real corpus's held-out questions (``tests/corpus/retrieval_questions.json``, round
1) windows of 80 words rather than 160 raised search by meaning's recall@10 from 0.74
to 0.76 (paraphrases 0.61 to 0.66, MRR 0.58 to 0.65); convo's own set, whose messages
are short, was unchanged. ``digest`` is what tells a changed message from an embedded
one (it is the text's, so vectors made with other windows stay valid).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from convo.core import fields

WORDS = 80
OVERLAP = 16
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


@dataclass
class PassedOver:
    """The lines a read of the store (``texts_of``) passed over, counted for the report."""

    not_records: int = 0  # not JSON, not a record, or a record without an id
    repeated: int = 0  # a later record of an id already read: the first one counts


def texts_of(
    f: IO[bytes],
    start: int = 0,
    progress: Progress | None = None,
    *,
    seen: Any = None,
    passed: PassedOver | None = None,
) -> Iterator[list[tuple[str, str]]]:
    """``(id, text)`` of the records of the open store ``f`` from ``start``, ``BATCH`` at
    a time. A line that is not a record, or has no id (a store holds none), is passed
    over; of the records of one id the first counts (a store holds each id once; if it
    does not, the index and every reader also keep the first). ``seen``: a SQLite
    connection whose ``temp.seen`` table (made here) holds the ids read, so repeats are
    found across batches on disk, not in memory; without it only within a batch.
    ``passed`` counts what was passed over."""
    from convo.index.rows import iter_spans, parse

    passed = passed if passed is not None else PassedOver()
    if seen is not None:
        seen.execute("CREATE TEMP TABLE IF NOT EXISTS seen (id TEXT PRIMARY KEY) WITHOUT ROWID")
    total = os.fstat(f.fileno()).st_size
    batch: list[tuple[str, str]] = []
    ids: set[str] = set()
    offset = start
    for offset, _, line in iter_spans(f, start):
        record = parse(line)
        ident = fields.record_id(record) if record is not None else None
        if record is None or ident is None:
            passed.not_records += 1
            continue
        if ident in ids:
            passed.repeated += 1
            continue
        ids.add(ident)
        batch.append((ident, message_text(record)))
        if len(batch) >= BATCH:
            if progress is not None:
                progress(offset, total)
            yield _first(seen, batch, passed)
            batch = []
            ids.clear()
    if batch:
        yield _first(seen, batch, passed)
    if progress is not None:
        progress(total, total)


def _first(conn: Any, batch: list[tuple[str, str]], passed: PassedOver) -> list[tuple[str, str]]:
    """``batch`` less the ids an earlier batch had (counted), its ids then noted as read."""
    if conn is None:
        return batch
    import orjson

    sql = "SELECT id FROM temp.seen WHERE id IN (SELECT value FROM json_each(?))"
    earlier = {row[0] for row in conn.execute(sql, (orjson.dumps([i for i, _ in batch]).decode(),))}
    if earlier:
        passed.repeated += sum(i in earlier for i, _ in batch)
        batch = [item for item in batch if item[0] not in earlier]
    conn.executemany("INSERT OR IGNORE INTO temp.seen VALUES (?)", [(i,) for i, _ in batch])
    return batch
