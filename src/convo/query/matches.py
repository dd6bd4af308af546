"""What a scan selects: ``Match`` (one record), ``Runs`` and ``RawBatch`` (many, as bytes).

A scan that passes lines through (``need_record=False``) and a scan worker
(``convo.query.parallel``) keep no ``Match`` per line: ``Runs`` records where each run of
adjacent matched lines starts and ends, how many lines it holds and (counted scans) the
number of its first line. ``RawBatch`` is the bytes those runs were read from with the
runs in them: a sequence of ``Match`` made on access for writers that want records, and
``joined``, the lines with their newlines in one piece, for writers that pass them
through (a run is one slice, not a line each). On the benchmark store (BENCHMARKS.md)
``--since`` matches 80% of the lines in about a fifth as many runs.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from itertools import compress, repeat
from operator import add, ne, sub

from convo.core.heap import MMAP_THRESHOLD
from convo.core.lazy import pattern

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any

# A run is not grown past this many bytes by joining the lines after it: the parent of a
# parallel scan reads a run back in one piece (``parallel._matches``), and a piece above
# the C heap's mmap threshold (``core/heap.py``) is a fresh mapping, every page of it
# faulted in and zeroed. Measured on ``role:user`` over the 1M-record benchmark store
# (every line matches: one run per 16 MiB range before), the parent's CPU 0.81 → 0.2 s.
RUN_MAX = MMAP_THRESHOLD // 2
_ONES = pattern(rb"\x01+")  # runs of matched lines in a mask of 0/1 bytes


class Match:
    """A selected record: its line (for pass-through), where it came from, and the parsed dict.

    ``record`` is parsed on first use when the selector passed the line through unparsed;
    ``at`` is the line's offset in the buffer it was scanned from (-1 when unknown).
    """

    __slots__ = ("_record", "at", "line", "name", "raw")

    def __init__(
        self, raw: bytes, record: dict[str, Any] | None, name: str, line: int = 0, at: int = -1
    ):
        self.raw = raw
        self._record = record
        self.name = name
        self.line = line
        self.at = at

    @property
    def where(self) -> str:
        return f"{self.name}:{self.line}" if self.line else self.name

    @property
    def record(self) -> dict[str, Any]:
        if self._record is None:
            from convo.core.jsonl import Line, parse_record_line  # (orjson: when parsed)

            self._record = parse_record_line(Line(self.line, self.raw), self.name)
        return self._record


class Runs:
    """Runs of matched lines, in order: ``starts[i]:ends[i]`` is run ``i``'s bytes without
    its last newline, offset by ``base`` (set per block by the caller)."""

    __slots__ = ("base", "counts", "ends", "numbers", "starts")

    def __init__(self, counted: bool):
        self.base = 0
        self.starts = array("q")
        self.ends = array("q")
        self.counts = array("q")
        self.numbers = array("q") if counted else None  # the first line's number per run

    def __len__(self) -> int:
        return len(self.starts)

    def add(self, s: int, e: int, number: int = 0, count: int = 1) -> None:
        """``count`` adjacent lines ``[s, e)`` of the current block (no last newline), the
        first numbered ``number``."""
        s += self.base
        e += self.base
        ends = self.ends
        # right after the previous run's newline, within RUN_MAX (``_joins``, inlined)
        if ends and ends[-1] + 1 == s and e - self.starts[-1] <= RUN_MAX:
            ends[-1] = e
            self.counts[-1] += count
            return
        self.starts.append(s)
        ends.append(e)
        self.counts.append(count)
        if self.numbers is not None:
            self.numbers.append(number)

    def _joins(self, s: int, e: int) -> bool:
        """Lines ``[s, e)`` (offset by ``base`` already) join the last run: they start right
        after its newline and the run stays within ``RUN_MAX``."""
        ends = self.ends
        return bool(ends) and ends[-1] + 1 == s and e - self.starts[-1] <= RUN_MAX

    def add_lines(self, starts: list[int], ends: list[int]) -> None:
        """Lines ``[s, e)`` of the current block, in order, uncounted (number 0).

        A run ends where the next line does not start right after its newline; the runs
        are found in C loops over the lines, not a Python step per line (a third of
        matched lines join the one before on the benchmark store's ``--text budget``).
        """
        n = len(starts)
        if not n:
            return
        base = self.base
        opens = [True, *map(ne, starts[1:], map(add, ends, repeat(1)))]  # line i opens a run
        shuts = [*opens[1:], True]  # line i ends one
        run_s = list(map(add, compress(starts, opens), repeat(base)))
        run_e = list(map(add, compress(ends, shuts), repeat(base)))
        firsts = [*compress(range(n), opens), n]
        counts = list(map(sub, firsts[1:], firsts))  # lines per run
        if self._joins(run_s[0], run_e[0]):  # right after the previous run
            self.ends[-1] = run_e[0]
            self.counts[-1] += counts[0]
            del run_s[0], run_e[0], counts[0]
        self.starts.extend(run_s)
        self.ends.extend(run_e)
        self.counts.extend(counts)
        if self.numbers is not None:
            self.numbers.extend(repeat(0, len(run_s)))

    def add_mask(self, offsets: list[int], mask: bytes, first: int) -> None:
        """The lines whose ``mask`` byte is 1; line ``i`` starts at ``offsets[i]`` (one
        more offset than lines: where the line after the last would start) and has
        number ``first + i``."""
        spans = [m.span() for m in _ONES.finditer(mask)]
        if not spans:
            return
        i, j = spans[0]
        self.add(offsets[i], offsets[j] - 1, first + i, j - i)  # may join the previous run
        base = self.base
        rest = spans[1:]
        self.starts.extend([base + offsets[i] for i, _ in rest])
        self.ends.extend([base + offsets[j] - 1 for _, j in rest])
        self.counts.extend([j - i for i, j in rest])
        if self.numbers is not None:
            self.numbers.extend([first + i for i, _ in rest])

    def size(self) -> int:
        return sum(self.counts)


class RawBatch:
    """Runs read back (``window`` holds bytes ``[window_at, ...)`` of their source): a
    sequence of ``Match`` made on access, and ``joined``, the lines with their newlines.

    It stands where a ``list[Match]`` does (``len``, iteration, indexing).
    """

    __slots__ = ("_size", "hi", "lo", "name", "runs", "window", "window_at")

    def __init__(self, window: bytes, window_at: int, runs: Runs, lo: int, hi: int, name: str):
        self.window = window
        self.window_at = window_at
        self.runs = runs  # runs lo..hi are this batch's
        self.lo = lo
        self.hi = hi
        self.name = name
        self._size = -1

    def __len__(self) -> int:
        if self._size < 0:
            counts = self.runs.counts
            self._size = (
                counts[self.lo] if self.hi - self.lo == 1 else sum(counts[self.lo : self.hi])
            )
        return self._size

    def __iter__(self) -> Iterator[Match]:
        w, w0, name, runs, lo = self.window, self.window_at, self.name, self.runs, self.lo
        numbers = runs.numbers
        for k in range(lo, self.hi):
            first = 0 if numbers is None else numbers[k]
            for i, raw in enumerate(w[runs.starts[k] - w0 : runs.ends[k] - w0].split(b"\n")):
                yield Match(raw, None, name, first + i if first else 0)

    def __getitem__(self, i: int) -> Match:
        return list(self)[i]

    @property
    def joined(self) -> bytes:
        """Every line followed by a newline, as one piece (a slice per run)."""
        w, w0, lo, hi = self.window, self.window_at, self.lo, self.hi
        starts, ends = self.runs.starts, self.runs.ends
        if hi - lo == 1 and starts[lo] == w0:  # one run, the whole window
            size = ends[lo] - w0
            if size == len(w) - 1 and w[size] == 10:  # read with its newline
                return w
            if size == len(w):
                return w + b"\n"
        view = memoryview(w)
        cuts = map(slice, map(sub, starts[lo:hi], repeat(w0)), map(sub, ends[lo:hi], repeat(w0)))
        pieces: list[bytes | memoryview] = list(map(view.__getitem__, cuts))  # C loops
        pieces.append(b"")
        return b"\n".join(pieces)
