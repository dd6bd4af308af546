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
from typing import TYPE_CHECKING, Any

from convo.core.idset import zeros

if TYPE_CHECKING:
    from convo.core.spillmap import SpillMap

try:  # hashlib's own blake2b, without hashlib's OpenSSL (as core.record takes it)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

_M32 = (1 << 32) - 1
_M64 = (1 << 64) - 1
_crc32 = zlib.crc32
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
    # Every message of a run of several sources is stamped: one chunk, the common case,
    # is taken without a generator, and ``when`` and ``_utf8`` written out (on 170k
    # Discord messages 0.9 us a message against 1.3 us; the same stamps).
    if type(chunks) is list and len(chunks) == 1 and type(chunks[0]) is str:
        text = chunks[0]
    elif isinstance(chunks, list) and all(type(c) is str for c in chunks):
        text = "\x1e".join(chunks)
    else:
        text = repr(chunks)
    low = _crc32(text.encode("utf-8", "surrogatepass"))
    if isinstance(timestamp, str) and timestamp and not timestamp.startswith(_EPOCH_SECOND):
        return (_crc32(timestamp[:19].encode("utf-8", "surrogatepass")) or 1) << 32 | low
    return low


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
    message's stamp).

    ``claim`` says whether a message may keep its id: yes when no earlier *source* gave
    it, or gave it to the same message (``other_message``); what one source repeats is
    its own rule's (``OwnIds``). ``crossed`` counts the refusals.

    Every id of a run of several sources is claimed, so the ids are kept compactly: an
    open-addressing table of 20 bytes a slot (the key, the stamp, the source's number
    modulo 2^32), at most two thirds full, up to ``table`` slots (2^21: 1,398,101 ids in
    40 MB); the ids past them go to a ``core.spillmap`` (bounded: past 262,144 on disk).
    A dict spilling past 262,144 ids cost 4-7 us a claim, the run's largest cost
    (ingest of two 1M-record JSONL files: CPU 62 s against 38 s before the check); the
    table costs about 1 us, in less memory than the dict (15 MB against 30 MB for 340k
    ids)."""

    TABLE = 1 << 21

    def __init__(self, capacity: int = 1 << 12, table: int = TABLE) -> None:
        self._keys = zeros(capacity)
        self._marks = zeros(capacity)
        self._sources = zeros(capacity, "I")
        self._mask = capacity - 1
        self._n = 0
        self._table = max(table, capacity)
        self._more: SpillMap[int, int] | None = None  # the ids past a full table
        self.crossed = 0

    def claim(self, source: int, key: int, mark: int) -> bool:
        key = key or 1  # 0 marks an empty slot (key 0 and key 1 are one id)
        keys, mask = self._keys, self._mask
        i = (key >> 32 ^ key) & mask  # both halves of the key (BLAKE2b: any bits would do)
        while (k := keys[i]) != key:
            if not k:
                return self._new(i, source, key, mark)
            i = (i + 1) & mask
        return self._held(self._sources[i], self._marks[i], source, mark)

    def _held(self, held_source: int, held: int, source: int, mark: int) -> bool:
        if held_source == source & _M32 or not other_message(held, mark):
            return True
        self.crossed += 1
        return False

    def _new(self, i: int, source: int, key: int, mark: int) -> bool:
        """``key`` is not in the table (``i``: its empty slot): add it, or, the table
        full, hold it in the spillmap (every id missing from a full table is asked there)."""
        if (self._n + 1) * 3 > len(self._keys) * 2:
            if len(self._keys) < self._table:
                self._grow()
                return self.claim(source, key, mark)
            return self._past(source, key, mark)
        self._keys[i], self._marks[i], self._sources[i] = key, mark, source & _M32
        self._n += 1
        return True

    def _past(self, source: int, key: int, mark: int) -> bool:
        more = self._more
        if more is None:
            from convo.core.spillmap import SpillMap

            more = self._more = SpillMap()
        held = more.get(key)
        if held is None:
            more.set(key, (source & _M32) << 64 | mark)
            return True
        return self._held(held >> 64, held & _M64, source, mark)

    def _grow(self) -> None:
        keys, marks, sources = self._keys, self._marks, self._sources
        size = 2 * len(keys)
        self._keys, self._marks = new_keys, new_marks = zeros(size), zeros(size)
        self._sources = new_sources = zeros(size, "I")
        self._mask = mask = size - 1
        for key, mark, source in zip(keys, marks, sources, strict=True):
            if key:
                i = (key >> 32 ^ key) & mask
                while new_keys[i]:
                    i = (i + 1) & mask
                new_keys[i], new_marks[i], new_sources[i] = key, mark, source

    def close(self) -> None:
        self._keys, self._marks, self._sources = zeros(1), zeros(1), zeros(1, "I")
        self._mask = self._n = 0
        if self._more is not None:
            self._more.close()
            self._more = None
