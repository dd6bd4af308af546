"""``IntMap``: 64-bit int keys to 64-bit int values in compact, bounded memory.

No ``hashlib`` and no ``sqlite3`` until a table is full: the ingest path holds its
sources' own ids in one (``importers.build.OwnIds``; tests/cli/test_startup.py).
"""

from __future__ import annotations

from array import array
from typing import Any


def zeros(n: int, code: str = "Q") -> array[int]:
    """``n`` zeroed slots (64-bit unless ``code`` says), made in place: no bytes object
    of their size beside them (which, while a table grows, held the peak at twice the
    table's memory)."""
    return array(code, [0]) * n


_M64 = (1 << 64) - 1


class IntMap:
    """A map of 64-bit int keys to 64-bit int values (a hash's key to a digest: the
    own ids of ``importers.build.OwnIds``) in bounded memory. Up to ``limit`` keys
    (262,144) it is a dict, the fastest there is; past them its keys move into an
    open-addressing table of 16 bytes a slot, at most two thirds full, up to ``table``
    slots (2^21: 1,398,101 keys in 32 MB); the keys past those go to a
    ``core.spillmap`` (on disk). Keys and values are taken modulo 2^64 (a negative
    ``hash`` too); key 0 is key 1.

    ``OwnIds`` kept a ``SpillMap``, a dict that spills to SQLite past 262,144 keys: the
    parent of a split mbox (``pipeline.split.FileNumbers``) holding the 405,261 ids of
    the first 600 MB of the benchmark's mailbox spent 2.9 s of its CPU in one
    ``executemany`` of the spill, and 700,000 claims cost 3.8-4.6 us each against
    1.9-2.0 us in the table (below the limit both are the dict: 0.4-0.5 us)."""

    def __init__(self, limit: int | None = None, table: int | None = None) -> None:
        """``limit``: keys in the dict (``core.spillmap.LIMIT``, the one bound of what
        a map keeps in memory); ``table``: slots of the table (8 × ``limit``)."""
        from convo.core import spillmap

        self._limit = spillmap.LIMIT if limit is None else limit
        self._table = 8 * max(self._limit, 1) if table is None else table
        self._recent: dict[int, int] | None = {}
        self._keys = self._values = zeros(1)
        self._mask = self._n = 0
        self._more: Any = None  # a SpillMap of the keys past a full table
        self._spilled = 0  # the keys it holds

    def __len__(self) -> int:
        if self._recent is not None:
            return len(self._recent)
        return self._n + self._spilled

    def setdefault(self, key: int, value: int) -> int | None:
        """The value ``key`` has, else None after giving it ``value``."""
        key = key & _M64 or 1
        recent = self._recent
        if recent is not None:
            held = recent.get(key)
            if held is not None:
                return held
            if len(recent) < self._limit:
                recent[key] = value & _M64
                return None
            self._to_table(recent)
        keys, mask = self._keys, self._mask
        i = (key >> 32 ^ key) & mask
        while (k := keys[i]) != key:
            if not k:
                return self._add(i, key, value & _M64)
            i = (i + 1) & mask
        return self._values[i]

    def get(self, key: int) -> int | None:
        key = key & _M64 or 1
        if self._recent is not None:
            return self._recent.get(key)
        keys, mask = self._keys, self._mask
        i = (key >> 32 ^ key) & mask
        while (k := keys[i]) != key:
            if not k:
                return None if self._more is None else self._more.get(key)
            i = (i + 1) & mask
        return self._values[i]

    def _add(self, i: int, key: int, value: int) -> int | None:
        """``key`` is not in the table (``i``: its empty slot): add it, or, the table
        full, the spillmap answers (every key missing from a full table is asked there)."""
        if (self._n + 1) * 3 > len(self._keys) * 2:
            if len(self._keys) >= self._table:
                return self._past(key, value)
            self._grow(2 * len(self._keys))
            return self.setdefault(key, value)
        self._keys[i], self._values[i] = key, value
        self._n += 1
        return None

    def _past(self, key: int, value: int) -> int | None:
        more = self._more
        if more is None:
            from convo.core.spillmap import SpillMap

            more = self._more = SpillMap()
        held = more.get(key)
        if held is None:
            more.set(key, value)
            self._spilled += 1
        return held

    def _to_table(self, recent: dict[int, int]) -> None:
        size = 1 << 3
        while size * 2 < len(recent) * 3 + 3:
            size *= 2
        self._table = max(self._table, size)
        self._recent = None
        self._keys, self._values = zeros(1), zeros(1)
        self._grow(max(size, 2), recent.items())

    def _grow(self, size: int, items: Any = None) -> None:
        old = zip(self._keys, self._values, strict=True) if items is None else items
        self._keys, self._values = new_keys, new_values = zeros(size), zeros(size)
        self._mask = mask = size - 1
        n = 0
        for key, value in old:
            if key:
                i = (key >> 32 ^ key) & mask
                while new_keys[i]:
                    i = (i + 1) & mask
                new_keys[i], new_values[i] = key, value
                n += 1
        self._n = n

    def close(self) -> None:
        self._recent = {}
        self._keys = self._values = zeros(1)
        self._mask = self._n = 0
        if self._more is not None:
            self._more.close()
            self._more = None
        self._spilled = 0
