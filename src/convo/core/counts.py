"""``Counts``: exact counts of strings, in memory bounded whatever their number.

The occurrence counter of content-hash ids (``convo.importers.build.ContentIds``) must
count every distinct message of a source exactly: a count too low gives two different
messages one id (the store then drops the second as a duplicate), a count too high
changes an id that a store already holds. Counting n distinct strings exactly takes
memory proportional to n somewhere; here it is on disk past a bound.

Each key may come with its *stamp*, a string the key is a function of (the time a content
hash hashes: equal keys have equal stamps). A key can then only be counted before if a
key of its stamp was. While the stamps rise (a transcript's cue offsets, a dated chat in
order), at most ``ORDERED_LIMIT`` strings (4,096) stay in a dict; the older ones are
pickled, a dict at a time, into an anonymous temporary file that is never read, since
no later key can be among them: only the keys of the highest stamp stay in the dict, and
a key of a stamp above the file's is known to be new without a look. So memory is flat
with a transcript's length (``tests/importers/test_counts_memory.py``: 5,000 and 40,000
WebVTT messages through the whole ingest) at the cost of one ``pickle.dump`` of 4,096
entries (measured below).

A key whose stamp may be in the file (a stamp that went back, or no stamp) needs it
indexed: the file is read into a ``convo.core.spillmap.SpillMap`` table (SQLite, behind
its Bloom filter of a fixed 4 MiB) and from then on the counts behave as a SpillMap's:
up to ``LIMIT`` strings (262,144: about 28 MB of 26-character hashes) in the dict,
older ones in the table. Keys of one stamp (sources without times, whose hashes all
share the epoch) go that way too; they are not spilled early, as the table costs about
6 µs a key (200k distinct keys counted, CPU, best of 3 in-process on 2026-12-04: 0.085 s
in the dict alone, 1.24 s spilling every 4,096 to the table, 0.10 s spilling every
4,096 to the file while the stamps rise), so such a source leaves the dict only past
``LIMIT``, as before. The counts are the ones a plain dict gives (``tests/core/test_counts.py``
holds them equal on random sequences with a small ``limit``, stamps rising, falling
and absent).
"""

from __future__ import annotations

from typing import IO

from convo.core.spillmap import SpillMap, no_room

LIMIT = 1 << 18  # strings kept in memory before they go to the table
ORDERED_LIMIT = 1 << 12  # strings kept in memory while the stamps rise


class Counts:
    """``next(s, stamp)``: how many times ``s`` was counted before (see the module
    docstring)."""

    def __init__(self, limit: int | None = None, ordered_limit: int | None = None):
        self.limit = LIMIT if limit is None else limit
        self.ordered_limit = min(
            self.limit, ORDERED_LIMIT if ordered_limit is None else ordered_limit
        )
        self.recent: dict[str, int] = {}
        self._half = self.ordered_limit // 2
        self._check_at = self.ordered_limit  # the size of ``recent`` _spill looks at next
        self._top: str | None = None  # the highest stamp counted
        self._at_top: list[str] = []  # the keys in ``recent`` of that stamp (at most half+1)
        self._unstamped = False  # some key in ``recent`` came without a stamp
        self._file: IO[bytes] | None = None  # the dicts spilled while the stamps rose
        self._map: SpillMap[str, int] | None = None  # the spilled keys, indexed
        self._reach: tuple[str, bool] | None = None  # stored stamps: < (True) or <= a stamp
        self._anything = False  # a key without a stamp is stored: any key may be

    def next(self, key: str, stamp: str | None = None) -> int:
        """The count of ``key`` so far, then counted once more. ``stamp``: what ``key``
        is a function of (see the module docstring); None when unknown."""
        recent = self.recent
        k = recent.get(key)
        if k is not None:
            recent[key] = k + 1
            return k
        k = self._stored(key, stamp) if self._reach is not None or self._anything else 0
        if len(recent) >= self._check_at:
            self._spill()
            recent = self.recent
        recent[key] = k + 1
        if stamp is None:
            self._unstamped = True
        elif stamp == self._top:
            if len(self._at_top) <= self._half:  # past it only its length matters
                self._at_top.append(key)
        elif self._top is None or stamp > self._top:
            self._top, self._at_top = stamp, [key]
        return k

    @property
    def spilled(self) -> bool:
        """Whether some counts are out of memory."""
        return self._file is not None or self._map is not None

    def close(self) -> None:
        """Drop the temporary file and table."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._map is not None:
            self._map.close()
            self._map = None
        self.recent.clear()

    def _stored(self, key: str, stamp: str | None) -> int:
        reach = self._reach
        if not self._anything and stamp is not None and reach is not None:
            top, below = reach
            if stamp > top or (below and stamp == top):
                return 0  # no stored key has this stamp
        if self._map is None:
            self._index()
        assert self._map is not None
        return self._map.get(key) or 0

    def _spill(self) -> None:
        """Spill ``recent`` when it is full: early to the file while the stamps rise,
        else (past ``limit``) all of it to the table."""
        ordered = not self._unstamped and self._map is None and len(self._at_top) <= self._half
        if not ordered and len(self.recent) < self.limit:
            self._check_at = min(self.limit, len(self.recent) + max(self._half, 1))
            return
        self._check_at = self.ordered_limit
        top = self._top
        if ordered and top is not None:
            kept = {k: self.recent.pop(k) for k in self._at_top}
            self._write(self.recent)
            self._widen(top, below=True)
            self.recent = kept
            return
        if self._unstamped:
            self._anything = True
        elif top is not None:
            self._widen(top, below=False)
        if self._map is None:
            self._index()
        assert self._map is not None
        self._map.store(self.recent)
        self.recent = {}
        self._at_top, self._unstamped = [], False

    def _widen(self, top: str, *, below: bool) -> None:
        reach = self._reach
        if reach is None or top > reach[0]:
            self._reach = (top, below)
        elif top == reach[0]:
            self._reach = (top, below and reach[1])

    def _write(self, items: dict[str, int]) -> None:
        import pickle  # here, not at the top: a chat ingest imports no pickle (test_startup)

        try:
            if self._file is None:
                import tempfile

                self._file = tempfile.TemporaryFile(prefix=".convo-counts-")  # noqa: SIM115
            pickle.dump(items, self._file, protocol=pickle.HIGHEST_PROTOCOL)
        except OSError as e:
            raise no_room(e) from None

    def _index(self) -> None:
        """The spilled dicts in a table, in the order they were written (newer counts
        replace older ones)."""
        import pickle

        table: SpillMap[str, int] = SpillMap(0)
        f, self._file = self._file, None
        if f is not None:
            with f:
                try:
                    f.seek(0)
                    while True:
                        try:
                            table.store(pickle.load(f))
                        except EOFError:
                            break
                except OSError as e:
                    raise no_room(e) from None
        self._map = table
