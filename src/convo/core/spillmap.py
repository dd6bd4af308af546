"""``SpillMap``: the lookups of a plain dict, in memory bounded whatever its size.

A reader that must remember something of every record it has read (the occurrence
counter of each content hash, ``convo.core.counts``; the author and story of each Hacker
News item a later reply may name, ``convo.importers.forums.hackernews``) holds memory
proportional to the input somewhere. Past a bound it is kept on disk:

- The most recently set keys (up to ``limit``, 262,144 by default) are a dict. A source
  with fewer keys never leaves it (no file, no ``sqlite3`` import, no time lost).
- When the dict is full it is written into a temporary SQLite table (``kept``: key ->
  value; an on-disk database sqlite3 deletes when it is closed, its page cache bounded
  at 2 MiB) and emptied; the keys written go into a Bloom filter of fixed size (4 MiB,
  two bits a key from Python's ``hash``), so a key never set before is answered
  without asking the table. The filter only saves lookups: a false positive costs one
  query that finds nothing.
- The dict is consulted first: what it holds is newer than the table.

Keys are ``str`` or ``int``, values ``str`` or ``int`` (SQLite keeps both as they are:
the column has no type, so ``1`` and ``"1"`` stay two keys, as in a dict; an int past
64 bits is kept as a blob of its digits). Memory is
then the dict, the filter and SQLite's cache, whatever the input size; the answers are
the ones a plain dict gives (``tests/core/test_spillmap.py`` holds them equal on random
sequences with a small ``limit``).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from convo.core.errors import InputError

LIMIT = 1 << 18  # keys kept in memory before they go to the table
BLOOM_BITS = 1 << 25  # 4 MiB
_MASK = BLOOM_BITS - 1
_MIX = 0x9E3779B97F4A7C15  # spreads the hash of small ints over both filter bits
_U64 = (1 << 64) - 1

K = TypeVar("K", str, int)
V = TypeVar("V", str, int)


def _sql(x: Any) -> Any:
    """``x`` as SQLite keeps it: an int past 64 bits (a hostile id) as a blob of its
    digits, a type no ``str`` key or value ever has."""
    return str(x).encode() if isinstance(x, int) and not -(1 << 63) <= x < 1 << 63 else x


def _py(x: Any) -> Any:
    return int(x) if isinstance(x, bytes) else x


def _bits(key: Any) -> tuple[int, int]:
    h = (hash(key) * _MIX) & _U64
    return h & _MASK, (h >> 32) & _MASK


class SpillMap(Generic[K, V]):
    """``get`` and ``set`` of a dict whose older keys go to disk (see the module docstring)."""

    def __init__(self, limit: int | None = None):
        self.limit = LIMIT if limit is None else limit
        self.recent: dict[K, V] = {}
        self._db: Any = None  # sqlite3.Connection once the dict has spilled
        self._bloom: bytearray | None = None

    def get(self, key: K) -> V | None:
        """The value last set for ``key``, or None."""
        value = self.recent.get(key)
        if value is None and self._db is not None:
            return self._stored(key)
        return value

    def set(self, key: K, value: V) -> None:
        """``key`` is ``value`` from now on (the dict spills first when it is full)."""
        recent = self.recent
        if key not in recent and len(recent) >= self.limit:
            self._spill()
        recent[key] = value

    @property
    def spilled(self) -> bool:
        """Whether some keys are in the temporary table."""
        return self._db is not None

    def close(self) -> None:
        """Drop the temporary table (its file goes with the connection)."""
        if self._db is not None:
            self._db.close()
            self._db = None
            self._bloom = None
        self.recent.clear()

    def _stored(self, key: K) -> V | None:
        bloom = self._bloom
        assert bloom is not None
        a, b = _bits(key)
        if not (bloom[a >> 3] >> (a & 7)) & 1 or not (bloom[b >> 3] >> (b & 7)) & 1:
            return None
        row = self._db.execute("SELECT value FROM kept WHERE key = ?", (_sql(key),)).fetchone()
        return None if row is None else _py(row[0])

    def store(self, items: dict[K, V]) -> None:
        """Write ``items`` into the table (newer than what it holds), not into the dict:
        what ``convo.core.counts`` keeps there itself."""
        if self._db is None:
            self._open()
        try:
            with self._db:
                self._db.executemany(
                    "INSERT INTO kept VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    ((_sql(k), _sql(v)) for k, v in items.items()),
                )
        except Exception as e:  # sqlite3.Error, imported lazily
            raise no_room(e) from None
        bloom = self._bloom
        assert bloom is not None
        for key in items:
            a, b = _bits(key)
            bloom[a >> 3] |= 1 << (a & 7)
            bloom[b >> 3] |= 1 << (b & 7)

    def _spill(self) -> None:
        self.store(self.recent)
        self.recent.clear()

    def _open(self) -> None:
        import sqlite3

        try:
            db = sqlite3.connect("")  # a private on-disk database, deleted on close
            db.execute("PRAGMA journal_mode = OFF")
            db.execute("PRAGMA synchronous = OFF")
            db.execute("PRAGMA cache_size = -2048")
            db.execute("CREATE TABLE kept (key PRIMARY KEY, value) WITHOUT ROWID")
        except sqlite3.Error as e:
            raise no_room(e) from None
        self._db = db
        self._bloom = bytearray(BLOOM_BITS >> 3)


def no_room(e: Exception) -> InputError:
    return InputError(
        f"cannot keep what a large source's later records refer to on disk ({e})",
        hint="set TMPDIR (or SQLITE_TMPDIR) to a folder with free space",
    )
