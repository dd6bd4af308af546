"""The default model's tokenizer compiled once into a lookup file in the user's cache,
so a search reads its query's tokens without parsing the tokenizer's JSON.

``convo.embed.bpe`` reads a ``tokenizers`` JSON file (1.8 MB: 32,000 tokens, 61,249
merges) into dicts: 12 to 26 ms of every fresh search's CPU, on the thread whose work
is a hybrid search's longest (docs/search.md). Kept as Python objects (``marshal``,
``pickle``) the tables cost as much to load, since loading them makes their 93,000
strings. This file holds them as two hash tables of UTF-8 bytes (``Table``) that a
lookup reads in place from the memory-mapped file: loading it is a small header and a
few ``memoryview`` casts, and a query's few hundred lookups cost about a microsecond
each (0.4 ms in all). The ids are ``bpe.Tokenizer``'s own: the same algorithm, its
vocabulary and merge ranks looked up here (``tests/embed/test_bpe_table.py`` checks
the ids against the JSON tokenizer's on random texts).

The file: ``$XDG_CACHE_HOME/convo/tokenizers/`` (else ``~/.cache/convo/...``), named
for the source file's path and keyed by the source's size and modification time (as
Python's own ``.pyc`` files are), this format's version and the machine's byte order. Any difference, or a file that does not
load or is another user's, and it is made again from the JSON and replaced atomically
(a temporary file renamed over it). A cache that cannot be written (a read-only home)
is not an error: the tokenizer is then the JSON one, as before.
"""

from __future__ import annotations

import contextlib
import marshal
import mmap
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from zlib import crc32

from convo.embed import bpe

VERSION = 3
MAGIC = "convo-bpe-table"
EMPTY = 0xFFFFFFFF  # a free slot
Buffer = bytes | memoryview


class Table(Mapping[str, int]):
    """A read-only ``str -> int`` map over bytes: the keys' UTF-8 end to end (``keys``),
    where each starts (``starts``, one more than the keys), each value (``values``) and
    an open-addressed table of key numbers (``slots``, a power of two, linear probing
    from the CRC-32 of the key's bytes; no key lies more than ``probes`` slots past its
    own, so a lookup ends however the file was changed). Parts of the wrong sizes are a
    ``ValueError``."""

    def __init__(self, keys: Buffer, starts: Buffer, values: Buffer, slots: Buffer, probes: int):
        self._keys = memoryview(keys)
        self._starts = memoryview(starts).cast("I")
        self._values = memoryview(values).cast("i")
        self._slots = memoryview(slots).cast("I")
        self._mask = len(self._slots) - 1
        self._probes = range(probes + 1)
        n = len(self._values)
        if (
            len(self._starts) != n + 1
            or self._starts[n] != len(keys)
            or len(self._slots) < 2 * n
            or len(self._slots) & self._mask
        ):
            raise ValueError("a table of the wrong shape")

    @classmethod
    def parts(cls, items: Mapping[str, int]) -> tuple[bytes, bytes, bytes, bytes, int]:
        """What ``Table(*parts)`` is made from, for ``items``."""
        from array import array

        encoded = [k.encode("utf-8", "surrogatepass") for k in items]
        starts = array("I", [0])
        for k in encoded:
            starts.append(starts[-1] + len(k))
        size = 1 << max(4, (2 * len(encoded)).bit_length())  # at most half full
        slots = array("I", [EMPTY]) * size
        mask = size - 1
        probes = 0
        for n, k in enumerate(encoded):
            i = crc32(k) & mask
            run = 0
            while slots[i] != EMPTY:
                i = (i + 1) & mask
                run += 1
            slots[i] = n
            probes = max(probes, run)
        values = array("i", items.values())
        return b"".join(encoded), starts.tobytes(), values.tobytes(), slots.tobytes(), probes

    def _find(self, key: str) -> int:
        """The key's number, or -1."""
        if type(key) is not str:
            return -1
        b = key.encode("utf-8", "surrogatepass")
        slots, starts, keys, mask = self._slots, self._starts, self._keys, self._mask
        i = crc32(b) & mask
        for _ in self._probes:
            n = slots[i]
            if n == EMPTY:
                return -1
            if keys[starts[n] : starts[n + 1]] == b:
                return n
            i = (i + 1) & mask
        return -1

    def __contains__(self, key: object) -> bool:
        return self._find(key) >= 0  # type: ignore[arg-type]

    def __getitem__(self, key: str) -> int:
        n = self._find(key)
        if n < 0:
            raise KeyError(key)
        return self._values[n]

    def get(self, key: str, default: Any = None) -> Any:
        n = self._find(key)
        return default if n < 0 else self._values[n]

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[str]:
        starts, keys = self._starts, self._keys
        for n in range(len(self._values)):
            yield bytes(keys[starts[n] : starts[n + 1]]).decode("utf-8", "surrogatepass")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "convo" / "tokenizers"


def cache_file(source: Path) -> Path:
    """Where ``source``'s table is kept: named for its file and the CRC-32 of its path."""
    where = os.fspath(source.resolve()).encode("utf-8", "surrogateescape")
    return cache_dir() / f"{source.stem}-{crc32(where):08x}.bpe"


def _key(source: Path) -> tuple[Any, ...]:
    st = os.stat(source)
    return (MAGIC, VERSION, sys.byteorder, st.st_size, st.st_mtime_ns)


def load(source: Path) -> bpe.Tokenizer | None:
    """The tokenizer of the ``tokenizers`` JSON file ``source`` (None when it is not of
    ``convo.embed.bpe``'s shape), from its table when the table is current, else read
    from the JSON, its table written for the next time."""
    key = _key(source)
    cached = cache_file(source)
    try:
        return _read(cached, key)
    except (OSError, ValueError, EOFError, TypeError, KeyError, IndexError):
        pass  # none yet, stale, or not whole: made again below
    plain = bpe.load(source)
    if plain is not None:
        # A cache that cannot be written: the JSON tokenizer serves.
        with contextlib.suppress(OSError):
            _write(cached, key, plain)
    return plain


def _read(cached: Path, key: tuple[Any, ...]) -> bpe.Tokenizer:
    """The table's tokenizer, its parts read in place from the memory-mapped file (a
    copy of 2 MB costs a search more in page faults than the rest of the load); an
    error when it is not current or not whole, or another user's (``marshal`` is not
    for data another user could have written)."""
    with open(cached, "rb") as f:
        if hasattr(os, "getuid") and os.fstat(f.fileno()).st_uid != os.getuid():
            raise ValueError("another user's file")
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    size = int.from_bytes(m[:8], "little")
    head, fields, layout = marshal.loads(m[8 : 8 + size])
    if tuple(head[: len(key)]) != key:
        raise ValueError("stale")
    view = memoryview(m)
    vocab, ranks = (_table(view, spans, probes) for spans, probes in layout)
    specials, unk, fuse_unk, byte_fallback, longest = fields
    return bpe.Tokenizer(
        vocab, [], specials, unk, fuse_unk, byte_fallback, ranks=ranks, longest=longest
    )


def _table(view: memoryview, spans: list[tuple[int, int]], probes: int) -> Table:
    keys, starts, values, slots = (view[at : at + n] for at, n in spans)
    return Table(keys, starts, values, slots, probes)


def _write(cached: Path, head: tuple[Any, ...], tok: bpe.Tokenizer) -> None:
    """The table of ``tok``, written to a temporary file beside ``cached`` and renamed
    over it (a reader sees the old file or the new one, whole)."""
    fields = (tok.specials, tok.unk, tok.fuse_unk, tok.byte_fallback, tok.longest)
    tables = [Table.parts(tok.vocab), Table.parts(tok.ranks)]
    # The file: the header's size (8 bytes), the header (marshal: the key, the
    # tokenizer's fields and where each table's parts lie), then the parts, 8-aligned.
    layout: list[tuple[list[tuple[int, int]], int]] = []
    at = 0
    for *parts, probes in tables:
        spans = []
        for part in parts:
            spans.append((at, len(part)))
            at += -(-len(part) // 8) * 8
        layout.append((spans, probes))
    start = 0
    while True:  # the parts after the header, which says where they are
        placed = [([(a + start, n) for a, n in spans], probes) for spans, probes in layout]
        header = marshal.dumps((head, fields, placed))
        if 8 + len(header) <= start:
            break
        start = -(-(8 + len(header)) // 8) * 8
    cached.parent.mkdir(parents=True, exist_ok=True)
    from convo.core import scratch  # building the table is rare: not on a search's path

    fd, name = scratch.file(cached.parent, cached.name)
    tmp = Path(name)
    try:
        with open(fd, "wb") as f:
            f.write(len(header).to_bytes(8, "little") + header)
            for (*parts, _), (spans, _) in zip(tables, placed, strict=True):
                for part, (offset, _) in zip(parts, spans, strict=True):
                    f.write(bytes(offset - f.tell()) + part)
        os.replace(tmp, cached)
    finally:
        if tmp.exists():
            tmp.unlink()
