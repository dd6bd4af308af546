"""Stamps: what tells two messages given one id apart, across sources (docs/ids.md).

An id a source gives is held to one message *within* the source by ``importers.build.OwnIds``
(other text, speaker or time: another message). *Across* sources (two files of one
ingest, or a save and what the store already holds) an id still names its message when
that message was edited, or exported with its time in another zone or precision, so the
test is looser: two messages are two only when both are timed (neither the epoch) at
other seconds *and* their texts differ (``other_message``). A mail test suite reusing one
``Message-ID``, or a tool numbering from 1 in files that were renamed, gives such pairs;
the later message is then given its content hash (``core.record.content_id``, with no
source-specific part, so a save and an ``ingest -o`` of the same files agree).

A stamp is 64 bits: the time to the second (high 32, 0 when untimed) and the text (low
32), CRC-32 of their UTF-8, the same in every process (a split file's ranges and a
folder's files are read in worker processes; their parent compares what they send).
``id_key`` is an id's 64-bit key on the same terms. The one home of these rules:
``store.dedup`` (saves and ``compact``) and ``pipeline`` (the sources of one ingest).
"""

from __future__ import annotations

import zlib
from typing import Any

try:  # hashlib's own blake2b, without hashlib's OpenSSL (as core.record takes it)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

_M32 = (1 << 32) - 1
_EPOCH_SECOND = "1970-01-01T00:00:00"
_KEYED = blake2b(digest_size=8)  # copied, never updated itself


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate is stamped too


def when(timestamp: object) -> int:
    """The high half of a stamp: a canonical UTC time to the second as 32 bits, 0 for
    the epoch or anything that is not a time string."""
    if isinstance(timestamp, str) and timestamp and not timestamp.startswith(_EPOCH_SECOND):
        return zlib.crc32(_utf8(timestamp[:19])) or 1
    return 0


def stamp(timestamp: object, chunks: object) -> int:
    """The stamp of a message's time (a canonical UTC string; the epoch or anything
    else: untimed) and text chunks (a list of strings; anything else by its repr)."""
    if isinstance(chunks, list) and all(type(c) is str for c in chunks):
        text = chunks[0] if len(chunks) == 1 else "\x1e".join(chunks)
    else:
        text = repr(chunks)
    return when(timestamp) << 32 | zlib.crc32(_utf8(text))


def record_stamp(record: dict[str, Any]) -> int:
    """``stamp`` of a JSONL record (its text under ``textChunks``, or ``text_chunks`` as
    a store written by another tool has it), its time read as the index reads it
    (``core.fields.timestamp``: UTC; one instant spelled in another zone or precision
    is one time, an unreadable one none), so a save decides alike with the index and
    without it."""
    from convo.core import fields

    chunks = record.get("textChunks")
    if chunks is None:
        chunks = record.get("text_chunks")
    return stamp(fields.timestamp(record), chunks)


def other_message(held: int, new: int) -> bool:
    """Whether stamps ``held`` and ``new`` are two messages: both timed, at other
    seconds, with other texts."""
    held_time, new_time = held >> 32, new >> 32
    return bool(held_time and new_time and held_time != new_time and (held ^ new) & _M32)


def renamed(line: bytes, where: str = "") -> tuple[str, bytes]:
    """A record's line under its content hash (``core.record.content_id`` of the record,
    nothing of its source: a save, a compaction and an ingest of the same message agree,
    and a re-ingest finds it), for an id that names another message."""
    import orjson

    from convo.core.jsonl import dumps
    from convo.core.record import content_id, parse_record

    record = orjson.loads(line)
    msg = parse_record(record, where)
    msg.id = None
    rid = content_id(msg)
    record["id"] = rid
    return rid, dumps(record)


def id_key(rid: str) -> int:
    """An id as 64 bits, the same in every process: BLAKE2b of its UTF-8 (two ids whose
    keys meet, at odds of about one in 2^64 a pair, are taken for one: the later
    message would get its content hash if its stamp is another's; nothing is lost)."""
    h = _KEYED.copy()
    h.update(_utf8(rid))
    return int.from_bytes(h.digest(), "little")


class RunIds:
    """The ids the sources of one run gave (``id_key`` -> the source's number and the
    message's stamp; ``core.spillmap``: bounded, past 262,144 ids the older go to disk).

    ``claim`` says whether a message may keep its id: yes when no earlier *source* gave
    it, or gave it to the same message (``other_message``); what one source repeats is
    its own rule's (``OwnIds``). ``crossed`` counts the refusals."""

    def __init__(self) -> None:
        from convo.core.spillmap import SpillMap

        self._seen: SpillMap[int, int] = SpillMap()
        self.crossed = 0

    def claim(self, source: int, key: int, mark: int) -> bool:
        held = self._seen.get(key)
        if held is None:
            self._seen.set(key, source << 64 | mark)
            return True
        if held >> 64 == source or not other_message(held & ((1 << 64) - 1), mark):
            return True
        self.crossed += 1
        return False

    def close(self) -> None:
        self._seen.close()
