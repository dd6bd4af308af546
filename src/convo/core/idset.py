"""``IdSet``: a compact set of message ids, for dedup of stores of millions of messages."""

from __future__ import annotations

from array import array

try:  # hashlib's own blake2b, without hashlib's OpenSSL (as core.record takes it)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b


def zeros(n: int, code: str = "Q") -> array[int]:
    """``n`` zeroed slots (64-bit unless ``code`` says), made in place: no bytes object
    of their size beside them (which, while a table grows, held the peak at twice the
    table's memory)."""
    return array(code, [0]) * n


class IdSet:
    """A set of ids kept as 64-bit hashes in one open-addressing array.

    About 16 bytes an id instead of ~150 for a set of str, so dedup against a store of
    millions of messages stays within a few tens of MB. Two different ids collide with
    probability ~n²/2⁶⁵ (about 3 in a million for ten million ids); a collision would make
    the second id count as a duplicate.
    """

    def __init__(self, capacity: int = 1 << 12):
        self._table = zeros(capacity)
        self._mask = capacity - 1
        self._n = 0

    def __len__(self) -> int:
        return self._n

    @staticmethod
    def _key(rid: str) -> int:
        digest = blake2b(rid.encode("utf-8", "surrogatepass"), digest_size=8).digest()
        return int.from_bytes(digest, "little") or 1  # 0 marks an empty slot

    def _slot(self, key: int) -> int:
        """Where ``key`` is, or the empty slot where it would go (linear probing)."""
        table, mask = self._table, self._mask
        i = key & mask
        while table[i] not in (key, 0):
            i = (i + 1) & mask
        return i

    def __contains__(self, rid: str) -> bool:
        key = self._key(rid)
        return self._table[self._slot(key)] == key

    def add(self, rid: str) -> bool:
        """Add ``rid``; True when it was not there yet."""
        if (self._n + 1) * 3 > len(self._table) * 2:
            self._grow()
        return self._insert(self._key(rid))

    def _insert(self, key: int) -> bool:
        i = self._slot(key)
        if self._table[i] == key:
            return False
        self._table[i] = key
        self._n += 1
        return True

    def _grow(self) -> None:
        old = self._table
        self._table = zeros(2 * len(old))
        self._mask = len(self._table) - 1
        self._n = 0
        for key in old:
            if key:
                self._insert(key)


class IdStamps(IdSet):
    """``IdSet`` with a 64-bit value beside each id: the stamp of the message it names
    (``convo.store.dedup``: a save tells a repeated message from another one given the
    same id). 16 bytes an id at most two thirds full, as the set's table is 8."""

    def __init__(self, capacity: int = 1 << 12):
        super().__init__(capacity)
        self._values = zeros(capacity)

    def setdefault(self, rid: str, value: int) -> int | None:
        """The value ``rid`` has, else None after adding it with ``value``."""
        if (self._n + 1) * 3 > len(self._table) * 2:
            self._grow()
        key = self._key(rid)
        i = self._slot(key)
        if self._table[i] == key:
            return self._values[i]
        self._table[i] = key
        self._values[i] = value
        self._n += 1
        return None

    def get(self, rid: str) -> int | None:
        """The value ``rid`` has, None when it is not in the set."""
        key = self._key(rid)
        i = self._slot(key)
        return self._values[i] if self._table[i] == key else None

    def add(self, rid: str) -> bool:
        return self.setdefault(rid, 0) is None

    def _grow(self) -> None:
        old, values = self._table, self._values
        size = 2 * len(old)
        self._table = zeros(size)
        self._values = zeros(size)
        self._mask = size - 1
        for key, value in zip(old, values, strict=True):
            if key:
                i = self._slot(key)
                self._table[i] = key
                self._values[i] = value
