"""``Counts``: exact counts of strings, in memory bounded whatever their number.

The occurrence counter of content-hash ids (``convo.importers.build.ContentIds``) must
count every distinct message of a source exactly: a count too low gives two different
messages one id (the store then drops the second as a duplicate), a count too high
changes an id that a store already holds. Counting n distinct strings exactly takes
memory proportional to n somewhere, so the counts are a ``convo.core.spillmap.SpillMap``:
the most recently counted strings (up to 262,144: about 28 MB of 26-character hashes)
in a dict, older ones in a temporary SQLite table behind a Bloom filter. A source of
fewer distinct strings never leaves the dict (200k strings counted took 0.09 s of CPU
in the dict alone, 0.44 s with a limit of 65,536, three spills of which the SQLite
inserts took half). The counts are the ones a plain dict gives
(``tests/core/test_counts.py`` holds them equal on random sequences with a small
``limit``).
"""

from __future__ import annotations

from convo.core.spillmap import SpillMap

LIMIT = 1 << 18  # strings kept in memory before they go to the table


class Counts:
    """``next(s)``: how many times ``s`` was counted before (see the module docstring)."""

    def __init__(self, limit: int | None = None):
        self._map: SpillMap[str, int] = SpillMap(LIMIT if limit is None else limit)

    @property
    def recent(self) -> dict[str, int]:
        """The counts kept in memory."""
        return self._map.recent

    def next(self, key: str) -> int:
        """The count of ``key`` so far, then counted once more."""
        recent = self._map.recent
        k = recent.get(key)
        if k is None:  # a new string, or one in the table: set() spills when full
            k = self._map.get(key) or 0
            self._map.set(key, k + 1)
        else:
            recent[key] = k + 1
        return k

    @property
    def spilled(self) -> bool:
        """Whether some counts are in the temporary table."""
        return self._map.spilled

    def close(self) -> None:
        """Drop the temporary table (its file goes with the connection)."""
        self._map.close()
