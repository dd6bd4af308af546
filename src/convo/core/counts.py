"""``Counts``: exact counts of strings, in memory bounded whatever their number.

The occurrence counter of content-hash ids (``convo.importers.build.ContentIds``) must
count every distinct message of a source exactly: a count too low gives two different
messages one id (the store then drops the second as a duplicate), a count too high
changes an id that a store already holds. Counting n distinct strings exactly takes
memory proportional to n somewhere, so it is kept on disk past a bound:

- The most recently counted strings (up to ``limit``, 262,144 by default: about 28 MB
  of 26-character hashes) are a dict. A source of fewer distinct strings never leaves
  it (no file, no ``sqlite3`` import, no time lost: 200k strings counted took 0.09 s
  of CPU in the dict alone, 0.44 s with a limit of 65,536, three spills of which the
  SQLite inserts took half).
- When the dict is full it is written into a temporary SQLite table (``seen``: string
  -> count; an on-disk database sqlite3 deletes when it is closed, its page cache
  bounded at 2 MiB) and emptied; the strings written go into a Bloom filter of fixed
  size (4 MiB, two bits a string from Python's ``hash``), so a string never counted
  before, the common case, is answered without asking the table. The filter only
  saves lookups: a false positive costs one query that finds nothing.
- The dict is consulted first: what it holds is newer than the table.

Memory is then the dict, the filter and sqlite's cache, whatever the input size; the
counts are the ones a plain dict gives (``tests/core/test_counts.py`` holds them equal
on random sequences with a small ``limit``).
"""

from __future__ import annotations

from typing import Any

from convo.core.errors import InputError

LIMIT = 1 << 18  # strings kept in memory before they go to the table
BLOOM_BITS = 1 << 25  # 4 MiB
_MASK = BLOOM_BITS - 1


class Counts:
    """``next(s)``: how many times ``s`` was counted before (see the module docstring)."""

    def __init__(self, limit: int | None = None):
        self.limit = LIMIT if limit is None else limit
        self.recent: dict[str, int] = {}
        self._db: Any = None  # sqlite3.Connection once the dict has spilled
        self._bloom: bytearray | None = None

    def next(self, key: str) -> int:
        """The count of ``key`` so far, then counted once more."""
        recent = self.recent
        k = recent.get(key)
        if k is None:
            k = self._stored(key) if self._db is not None else 0
            if len(recent) >= self.limit:
                self._spill()
        recent[key] = k + 1
        return k

    @property
    def spilled(self) -> bool:
        """Whether some counts are in the temporary table."""
        return self._db is not None

    def close(self) -> None:
        """Drop the temporary table (its file goes with the connection)."""
        if self._db is not None:
            self._db.close()
            self._db = None
            self._bloom = None
        self.recent.clear()

    def _stored(self, key: str) -> int:
        bloom = self._bloom
        assert bloom is not None
        h = hash(key)
        a, b = h & _MASK, (h >> 25) & _MASK
        if not (bloom[a >> 3] >> (a & 7)) & 1 or not (bloom[b >> 3] >> (b & 7)) & 1:
            return 0
        row = self._db.execute("SELECT n FROM seen WHERE key = ?", (key,)).fetchone()
        return 0 if row is None else int(row[0])

    def _spill(self) -> None:
        if self._db is None:
            self._open()
        bloom = self._bloom
        assert bloom is not None
        try:
            with self._db:
                self._db.executemany(
                    "INSERT INTO seen VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET n = excluded.n",
                    self.recent.items(),
                )
        except Exception as e:  # sqlite3.Error, imported lazily
            raise _no_room(e) from None
        for key in self.recent:
            h = hash(key)
            a, b = h & _MASK, (h >> 25) & _MASK
            bloom[a >> 3] |= 1 << (a & 7)
            bloom[b >> 3] |= 1 << (b & 7)
        self.recent.clear()

    def _open(self) -> None:
        import sqlite3

        try:
            db = sqlite3.connect("")  # a private on-disk database, deleted on close
            db.execute("PRAGMA journal_mode = OFF")
            db.execute("PRAGMA synchronous = OFF")
            db.execute("PRAGMA cache_size = -2048")
            db.execute("CREATE TABLE seen (key TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID")
        except sqlite3.Error as e:
            raise _no_room(e) from None
        self._db = db
        self._bloom = bytearray(BLOOM_BITS >> 3)


def _no_room(e: Exception) -> InputError:
    return InputError(
        f"cannot keep the occurrence counts of a large source on disk ({e})",
        hint="set TMPDIR (or SQLITE_TMPDIR) to a folder with free space",
    )
