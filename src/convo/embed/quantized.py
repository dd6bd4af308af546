"""The vectors' int8 copy that a search scans, and the exact rescoring that makes its
ranking the float32 ranking.

``<store>.vectors.q8`` holds, for every row of ``<store>.vectors`` and in the same
order, one record of ``dims + 8`` bytes (``record``): the row's values as int8 codes, the
scale that turns the codes back into values (the row's largest magnitude / 127), and the
length of what that rounding lost (``error``, ``|row - scale * codes|``). At a million
messages of 256 dims it is 264 MB against the float32 file's 1 GB: a search memory-maps
it and scores every row from the codes (``approximate``), a few blocks at a time, giving
back the pages it has read (``madvise``), so its memory stays a block and two scores
per row whatever the store's size.

Exact, not approximate: a row's true score differs from its approximate one by at most
its ``error`` times the query's length (Cauchy-Schwarz), plus ``slack`` for float32
rounding (``width``, with the largest error of the rows scanned). So the rows that can
be among the best ``want`` are those within twice that of the ``want``-th best
approximate score (``within``); only they are read from the float32 file and scored
exactly (``top_rows``, ``best_of_spans``), usually a few hundred. The result is
the float32 ranking, ties in row order (``tests/embed/test_quantized.py`` checks it on
random vectors against a plain float32 scan). This is numpy's path: a search runs
``convo.embed.simd`` (the same ranking on simsimd's kernels, without numpy's import)
when it can, and this one when simsimd is missing or the vectors' dims do not suit it.

The copy is written with the float32 rows, before the catalogue commits them
(``convo.embed.vectors.Writer``), zeroed with them, and cut with them after an
interrupted run. Vectors made before the copy existed are upgraded by the next writer
(``convo embed``, or a search that finds no other writer: ``vectors.upgrade``); until
then the rows the copy lacks are scored from the float32 file, exactly as before.
"""

from __future__ import annotations

import contextlib
import mmap
import os
from typing import IO, TYPE_CHECKING, Any

from convo.embed.blas import alone

if TYPE_CHECKING:
    from convo.embed.protocol import Vectors
    from convo.embed.vectors import VectorFile

BLOCK = 2048  # rows converted to float32 at a time (2 MB at 256 dims: stays in cache)
RELEASE = 16 << 20  # bytes of the map read between two madvise(DONTNEED) calls
GATHER = 16384  # candidate rows read at a time
PARALLEL = 1 << 18  # rows from which a scan runs on two cores (64 MB of codes at 256 dims)


def _cores() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def record(dims: int) -> Any:
    """The numpy dtype of one row's record: codes, scale, error (``size(dims)`` bytes)."""
    import numpy as np

    return np.dtype([("codes", "i1", (dims,)), ("scale", "<f4"), ("error", "<f4")])


def size(dims: int) -> int:
    """The bytes of one row's record (``record``), known without numpy."""
    return dims + 8


def slack(dims: int) -> float:
    """What float32 rounding can add to the difference of two dot products of ``dims``
    terms (each sum's error is at most about ``dims * 2**-24`` of a unit score), tripled."""
    return 4e-7 * dims + 1e-6


def quantize(vectors: Vectors) -> Any:
    """The records of float32 ``vectors`` (rows), a structured array."""
    import numpy as np

    x = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
    out = np.zeros(len(x), dtype=record(x.shape[1]))
    if not len(x):
        return out
    top = np.abs(x).max(axis=1)
    scale = (top / 127).astype(np.float32)
    safe = np.where(scale > 0, scale, 1).astype(np.float32)
    codes = np.clip(np.rint(x / safe[:, None]), -127, 127).astype(np.int8)
    codes[scale == 0] = 0
    lost = x - scale[:, None] * codes.astype(np.float32)
    out["codes"] = codes
    out["scale"] = scale
    # Rounded up a little: the bound must hold for the values as float32 sums them.
    out["error"] = np.linalg.norm(lost, axis=1) * np.float32(1.0001)
    return out


def rows_in(f: IO[bytes], dims: int) -> int:
    """Whole records in the open copy ``f``."""
    return os.fstat(f.fileno()).st_size // size(dims)


def catch_up(vf: VectorFile, f: IO[bytes], upto: int) -> int:
    """Cut the open copy ``f`` to its whole records, at most ``upto``, then add the
    records of the float32 rows it lacks up to ``upto``; how many it added. Under the
    writer's lock (``convo.embed.vectors.Writer``)."""
    width = size(vf.dims)
    have = min(rows_in(f, vf.dims), upto)
    os.ftruncate(f.fileno(), have * width)
    f.seek(have * width)
    for start in range(have, upto, GATHER):
        f.write(quantize(vf.read_rows(start, min(GATHER, upto - start))).tobytes())
    f.flush()
    return upto - have


class Copy:
    """The int8 copy of an open ``VectorFile``, memory-mapped; ``rows``: how many of the
    catalogue's rows it holds (rows past them are scored from the float32 file)."""

    def __init__(self, vf: VectorFile) -> None:
        import numpy as np

        self.vf = vf
        self.dtype = record(vf.dims)
        self.map: mmap.mmap | None = None
        self.table: Any = np.zeros(0, dtype=self.dtype)
        self.rows = 0
        try:
            f = open(vf.quantized_path, "rb")  # noqa: SIM115
        except FileNotFoundError:
            return
        with f:
            self.rows = min(rows_in(f, vf.dims), vf.rows)
            if self.rows:
                self.map = mmap.mmap(
                    f.fileno(), self.rows * self.dtype.itemsize, access=mmap.ACCESS_READ
                )
                self.table = np.frombuffer(self.map, dtype=self.dtype, count=self.rows)

    def close(self) -> None:
        import numpy as np

        self.table = np.zeros(0, dtype=self.dtype)
        if self.map is not None:
            # A view still held (a traceback's frame, when a scan failed): the map is
            # closed when it goes; this error must not hide the one being raised.
            with contextlib.suppress(BufferError):
                self.map.close()
            self.map = None

    def release(self, start: int, end: int) -> None:
        """Give back the pages of records ``start`` to ``end`` (the file keeps them cached;
        the process's memory no longer counts them)."""
        advice = getattr(mmap, "MADV_DONTNEED", None)
        if self.map is None or end <= start or advice is None:
            return
        width = self.dtype.itemsize
        lo = start * width // mmap.PAGESIZE * mmap.PAGESIZE
        hi = end * width // mmap.PAGESIZE * mmap.PAGESIZE
        if hi > lo:
            with contextlib.suppress(OSError, ValueError):
                self.map.madvise(advice, lo, hi - lo)

    def approximate(self, q: Vectors) -> tuple[Any, float]:
        """The approximate score of every row the copy holds, and the largest error of
        one: each score within that error times ``|q|`` (plus ``slack``) of the row's
        float32 score. A large copy is scanned in two halves at once (numpy lets go of
        the interpreter while it converts and sums, so a second core halves the time)."""
        import numpy as np

        scores = np.empty(self.rows, dtype=np.float32)
        if self.rows < PARALLEL or _cores() < 2:
            return scores, self._scan(0, self.rows, q, scores)
        import threading

        half = self.rows // 2 // BLOCK * BLOCK
        found: list[Any] = [0.0, 0.0]

        def scan(i: int, start: int, end: int) -> None:
            try:
                found[i] = self._scan(start, end, q, scores)
            except BaseException as e:  # raised again by the caller, below
                found[i] = e

        other = threading.Thread(target=scan, args=(1, half, self.rows), daemon=True)
        other.start()
        scan(0, 0, half)
        other.join()
        for part in found:
            if isinstance(part, BaseException):
                raise part
        return scores, max(found)

    def _scan(self, start: int, end: int, q: Vectors, scores: Any) -> float:
        """Rows ``start`` to ``end`` scored into ``scores``; their largest error."""
        import numpy as np

        buffer = np.empty((min(BLOCK, end - start), self.vf.dims), dtype=np.float32)
        error = 0.0
        released = start
        for at in range(start, end, BLOCK):
            stop = min(at + BLOCK, end)
            error = max(error, self._score(self.table[at:stop], q, buffer, scores[at:stop]))
            if (stop - released) * self.dtype.itemsize >= RELEASE or stop == end:
                self.release(released, stop)
                released = stop
        return error

    def gather(self, rows: Any, q: Vectors) -> tuple[Any, float]:
        """The approximate scores of the rows numbered in ``rows`` (sorted; all below
        ``self.rows``) and their largest error, as ``approximate``."""
        import numpy as np

        scores = np.empty(len(rows), dtype=np.float32)
        buffer = np.empty((min(BLOCK, len(rows)), self.vf.dims), dtype=np.float32)
        error = 0.0
        released = 0
        for at in range(0, len(rows), BLOCK):
            these = rows[at : at + BLOCK]
            error = max(
                error, self._score(self.table[these], q, buffer, scores[at : at + len(these)])
            )
            end = int(these[-1]) + 1
            if (end - released) * self.dtype.itemsize >= RELEASE or at + BLOCK >= len(rows):
                self.release(released, end)
                released = end
        return scores, error

    @staticmethod
    def _score(part: Any, q: Vectors, buffer: Any, out: Any) -> float:
        """``out``: the records' approximate scores; returns their largest error."""
        import numpy as np

        block = buffer[: len(part)]
        np.copyto(block, part["codes"], casting="unsafe")
        if alone():  # BLAS on one thread: 0.6 of einsum's time (convo.embed.blas)
            np.matmul(block, q, out=out)
        else:  # a thread pool would cost several times the CPU: see scores_of
            np.einsum("ij,j->i", block, q, out=out)
        out *= part["scale"]
        return float(part["error"].max())


def width(error: float, q: Vectors, dims: int) -> float:
    """How far an approximate score with this error can be from the float32 one."""
    import numpy as np

    return error * float(np.linalg.norm(q)) + slack(dims)


def exact(vf: VectorFile, rows: Any, q: Vectors) -> Any:
    """The float32 scores of the rows numbered in ``rows`` (sorted, distinct)."""
    import numpy as np

    out = np.empty(len(rows), dtype=np.float32)
    for at in range(0, len(rows), GATHER):
        out[at : at + GATHER] = scores_of(vf.gather(rows[at : at + GATHER]), q)
    return out


def within(approx: Any, wide: float, want: int) -> Any:
    """Indices (ascending) of the entries that can be among the ``want`` highest by their
    float32 scores, each of which lies within ``wide`` of its ``approx``: those within
    twice that of the ``want``-th highest approximate score."""
    import numpy as np

    if len(approx) <= want:
        return np.arange(len(approx))
    floor = np.partition(approx, len(approx) - want)[len(approx) - want]
    return np.flatnonzero(approx >= floor - 2 * wide)


def best_first(scores: Any, n: int) -> Any:
    """Indices of the ``n`` highest ``scores``, best first, ties in index order."""
    import numpy as np

    return np.argsort(-scores, kind="stable")[:n]


def top_rows(vf: VectorFile, q: Vectors, want: int) -> tuple[Any, Any]:
    """``(rows, scores)``: the ``want`` rows with the highest float32 scores, best first
    (ties in row order), with those scores."""
    import numpy as np

    copy = Copy(vf)
    try:
        approx, error = copy.approximate(q)
    finally:
        copy.close()
    tail = np.arange(copy.rows, vf.rows, dtype=np.int64)  # rows the copy lacks: exact
    if len(tail):
        approx = np.concatenate([approx, exact(vf, tail, q)])
    rows = within(approx, width(error, q, vf.dims), want)
    found = exact(vf, rows, q)
    order = best_first(found, want)
    return rows[order], found[order]


def best_of_spans(vf: VectorFile, q: Vectors, rows: Any, offsets: Any, limit: int) -> Any:
    """For messages whose rows are ``rows`` (sorted; message ``i``'s from ``offsets[i]``
    to the next offset): ``(messages, scores)``, the ``limit`` messages with the highest
    best-row float32 score, best first (ties in message order), with those scores."""
    import numpy as np

    copy = Copy(vf)
    try:
        inside = int(np.searchsorted(rows, copy.rows))
        approx, error = copy.gather(rows[:inside], q)
    finally:
        copy.close()
    if inside < len(rows):
        approx = np.concatenate([approx, exact(vf, rows[inside:], q)])
    best = np.maximum.reduceat(approx, offsets)
    messages = within(best, width(error, q, vf.dims), limit)
    ends = np.append(offsets[1:], len(rows))
    counts = ends[messages] - offsets[messages]
    starts = np.repeat(offsets[messages] - (np.cumsum(counts) - counts), counts)
    picked = np.arange(int(counts.sum()), dtype=np.int64) + starts
    found = exact(vf, rows[picked], q)
    best = np.maximum.reduceat(found, np.cumsum(counts) - counts) if len(found) else found
    order = best_first(best, limit)
    return messages[order], best[order]


def scores_of(rows: Vectors, q: Vectors) -> Vectors:
    """Each row's dot product with ``q`` (cosine: both are unit length). ``einsum``, not
    ``@``: the same sums without a BLAS thread pool, which on a busy 2-core machine took
    1.3 to 2.5 times as long over a million rows (measured)."""
    import numpy as np

    return np.einsum("ij,j->i", rows, q)
