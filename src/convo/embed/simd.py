"""A search's ranking without numpy: the int8 pre-rank on simsimd's kernels and the
float32 rescoring of the few rows that can be among the best. The same ranking as
``convo.embed.quantized``'s (its plain twin, run by numpy), up to ties within ``slack``.

Why: a fresh ``convo search`` spent 86 to 140 ms of CPU importing numpy, most of its
150 ms budget (docs/search.md); simsimd (Apache-2.0, in the ``[embed]`` extra) imports
in about 1 ms. ``usable`` says when this path can run: simsimd installed, and ``dims`` a
multiple of 4 (the records' floats aligned) and at most 1024 (the int8 sums exact in
float32); ``chosen`` when it does: below ``LARGE`` rows scanned. Otherwise numpy's path
runs, as before.

The scan. simsimd's int8 kernel needs an int8 query, so the float32 query ``q`` is
quantised twice (``Query``): ``q = s1 c1 + s2 c2 + d``, ``c2`` the codes of what ``c1``
lost, so ``|d|`` is about a hundredth of one quantisation's loss. A record's approximate
score is ``A_r = s_r (s1 c_r.c1 + s2 c_r.c2)``: the two int8 dot products are exact
integers (simsimd's kernel; the tests check it against Python's integers), the rest is
float32 (``simsimd.wsum``, ``simsimd.fma``). Each record is passed whole, its 8 bytes of
scale and error facing 8 zero codes of the query, so the memory-mapped copy is scanned
in place, ``BLOCK`` records at a time, its pages given back after each.

The bound. ``r.q - A_r = (r - s_r c_r).q + s_r c_r.d``, so ``|r.q - A_r| <= e_r |q| +
127 s_r sqrt(dims) |d|`` (no code exceeds 127 in size), plus the float32 rounding of
``A_r`` (``rounding``) and of the two dot products compared (``quantized.slack``).
``width`` is that with the largest ``e_r`` and ``s_r`` scanned; the rows within twice
of it from the ``want``-th best ``A_r`` are read from the float32 file and scored
(``exact``), usually a few hundred, as in ``convo.embed.quantized``.

Scores: a row's score is the dot product of its float32 values with the float32 query
as simsimd's float32 kernel sums it (a Python float); the search prints it rounded to 6
decimals (``convo.embed.nearest``). numpy's float32 sum may differ from it by up to
``quantized.slack``: two rows whose scores lie that close may come in either order, and a
printed score may differ from numpy's in its last decimal (``tests/embed/test_simd.py``
compares the rankings up to such ties).
"""

from __future__ import annotations

import contextlib
import heapq
import importlib.util
import itertools
import math
import mmap
import os
import sys
from array import array
from typing import TYPE_CHECKING, Any

from convo.embed import quantized

if TYPE_CHECKING:
    from convo.embed.vectors import VectorFile

LARGE = 500_000  # rows from which numpy's scan is chosen (``chosen``)
BLOCK = 1 << 16  # records scored per kernel call (17 MB of codes at 256 dims)
PAD = 8  # a record's bytes after its codes: its scale and its error
ULP = 2.0**-24  # float32's unit roundoff
_FOUND: list[bool] = []


def usable(dims: int) -> bool:
    """Whether this path can rank vectors of ``dims``: simsimd installed, ``dims`` a
    multiple of 4 and at most 1024 (``|c_r.c| <= (dims + 8) 127**2 < 2**24``, exact
    in float32)."""
    if not _FOUND:
        _FOUND.append(importlib.util.find_spec("simsimd") is not None)
    return _FOUND[0] and dims % 4 == 0 and 0 < dims <= 1024


def floats(q: Any) -> array:
    """A query vector (numpy's float32 vector or an ``array('f')``) as ``array('f')``."""
    if isinstance(q, array) and q.typecode == "f":
        return q
    view = memoryview(q)
    if view.format == "f" and view.c_contiguous:
        out = array("f")
        out.frombytes(view.cast("B"))
        return out
    return array("f", view.tolist())


def chosen(dims: int, rows: int) -> bool:
    """Whether a scan of ``rows`` rows runs here rather than on numpy: when it can
    (``usable``) and ``rows`` is below ``LARGE``. This path's passes over the scores run
    in Python, about 0.15 ms of CPU a thousand rows more than numpy's, which import costs
    about 100 ms: measured on the benchmark store (BENCHMARKS.md), a fresh search of 100k
    rows took a third less CPU here, one of 1M a tenth more; above ``LARGE`` numpy's
    path runs, its ranking the same up to ties within ``quantized.slack``."""
    return usable(dims) and rows < LARGE


def _kernels() -> Any:
    """The simsimd module (its stubs know numpy arrays, not the buffers given here)."""
    return importlib.import_module("simsimd")


def _f32(x: float) -> float:
    return array("f", [x])[0]


def _codes(values: list[float]) -> tuple[list[int], float]:
    """Int8 codes of ``values`` and their scale (a float32 value), ``values ~ scale * codes``."""
    top = max((abs(v) for v in values), default=0.0)
    scale = _f32(top / 127)
    if not scale or not math.isfinite(scale):
        return [0] * len(values), 0.0
    return [max(-127, min(127, round(v / scale))) for v in values], scale


class Query:
    """The query twice quantised: ``c1``, ``c2`` (each a 1-row int8 matrix of a record's
    width, its last ``PAD`` codes zero), ``s1``, ``s2``, and ``lost``, an upper bound on
    ``|q - s1 c1 - s2 c2|``; ``norm``: ``|q|``; ``sizes``: ``s1 |c1| + s2 |c2|``."""

    def __init__(self, q: array) -> None:
        self.q = q
        values = q.tolist()
        self.norm = math.sqrt(math.fsum(v * v for v in values))
        c1, self.s1 = _codes(values)
        c2, self.s2 = _codes([v - self.s1 * c for v, c in zip(values, c1, strict=True)])
        d = [v - self.s1 * a - self.s2 * b for v, a, b in zip(values, c1, c2, strict=True)]
        # Float64 arithmetic on float32 values: its error is far below the margin.
        self.lost = math.sqrt(math.fsum(x * x for x in d)) * 1.0001 + 1e-12
        self.sizes = self.s1 * math.hypot(*c1) + self.s2 * math.hypot(*c2)
        width = len(values) + PAD
        self.c1 = memoryview(array("b", c1 + [0] * PAD).tobytes()).cast("b", shape=[1, width])
        self.c2 = memoryview(array("b", c2 + [0] * PAD).tobytes()).cast("b", shape=[1, width])


class Scan:
    """The approximate scores of records (``approx``, float32) and the largest scale and
    error among them, built a block at a time (``add``)."""

    def __init__(self, query: Query, dims: int) -> None:
        self.query = query
        self.dims = dims
        self.approx = array("f")
        self.scale = 0.0
        self.error = 0.0

    def add(self, records: memoryview) -> None:
        """Score the records in ``records`` (bytes, whole records)."""
        simsimd = _kernels()
        dims, query = self.dims, self.query
        size = dims + PAD
        n = len(records) // size
        if not n:
            return
        codes = records.cast("b", shape=[n, size])
        one = simsimd.cdist(codes, query.c1, "dot", dtype="int8", out_dtype="float32")
        two = simsimd.cdist(codes, query.c2, "dot", dtype="int8", out_dtype="float32")
        values = records.cast("f")
        scales = array("f")
        scales.frombytes(values[dims // 4 :: size // 4].tobytes())
        errors = array("f")
        errors.frombytes(values[dims // 4 + 1 :: size // 4].tobytes())
        summed = simsimd.wsum(_flat(one), _flat(two), alpha=query.s1, beta=query.s2)
        scored = simsimd.fma(scales, summed, summed, alpha=1.0, beta=0.0)
        self.approx.frombytes(memoryview(scored).cast("B"))
        self.scale = max(self.scale, largest(scales))
        self.error = max(self.error, largest(errors))

    def width(self) -> float:
        """How far a record's approximate score can be from its float32 score."""
        q = self.query
        reach = 127 * self.scale * math.sqrt(self.dims)  # bounds s_r |c_r|
        spread = self.error * q.norm + reach * q.lost
        return spread + rounding(reach * q.sizes) + quantized.slack(self.dims)


def rounding(terms: float) -> float:
    """What float32 arithmetic can add to ``A_r`` when ``s_r (s1 |c_r.c1| + s2 |c_r.c2|)``
    is at most ``terms``: a few roundings of each product and sum, counted as 16."""
    return 16 * ULP * terms


def _flat(tensor: Any) -> Any:
    return memoryview(tensor).cast("B").cast("f")


def within(approx: array | list[float], wide: float, want: int) -> list[int]:
    """Indices (ascending) of the entries that can be among the ``want`` highest by their
    float32 scores: those within ``2 * wide`` of the ``want``-th highest. The ``want``-th
    highest of a sample is at most the whole's, so the entries above the sample's (less
    the margin) hold every candidate; the floor is then found among them."""
    n = len(approx)
    if n <= want:
        return list(range(n))
    step = 8 if n >= 64 * want else 1
    low = heapq.nlargest(want, approx[::step])[-1]
    rough = at_least(approx, low - 2 * wide)
    floor = heapq.nlargest(want, [approx[i] for i in rough])[-1]
    cut = floor - 2 * wide
    return [i for i in rough if approx[i] >= cut]


def at_least(values: array | list[float], floor: float) -> list[int]:
    """Indices (ascending) of the entries of ``values`` that are at least ``floor``.

    A float32 array of more than ``FEW`` entries is not read value by value in Python
    (100k rows: 5 to 7 ms): simsimd subtracts from each a float32 at most ``floor``
    (``wsum``), the sign bits of the differences are read as bytes (a difference is
    negative exactly when its entry is below that float32: rounding keeps a sign, and
    ``x - x`` is ``+0``), and only the entries found so, usually a few thousand, are
    compared with ``floor`` itself, as the plain comprehension compares them all (so a
    NaN is never kept). That float32 is never zero nor subnormal: ``-0 - 0`` is ``-0``,
    and a kernel may flush subnormals to zero."""
    n = len(values)
    below = _f32(floor)
    gap = abs(floor) * 2.0**-20 + 2.0**-126
    while below > floor:  # rounded up: the next float32 below it will do
        below = _f32(floor - gap)
        gap *= 2
    if abs(below) < 2.0**-125:
        below = -(2.0**-125)  # at most floor: floor >= below > -2**-125
    if n <= FEW or not isinstance(values, array) or not math.isfinite(below):
        return [i for i, v in enumerate(values) if v >= floor]
    simsimd = _kernels()
    ones = array("f", [1.0]) * n
    diff = simsimd.wsum(values, ones, alpha=1.0, beta=-below)
    # One byte an entry: 1 where its difference is not negative (a run of 0s between).
    signs = memoryview(diff).cast("B").tobytes()[_SIGN_BYTE::4].translate(_NOT_NEGATIVE)
    out: list[int] = []
    at = -1
    for run in signs.split(b"\x01")[:-1]:
        at += len(run) + 1
        if values[at] >= floor:
            out.append(at)
    return out


def largest(values: array) -> float:
    """``max(values)`` of a float32 array, not read value by value in Python: the
    largest of a sample, then the largest of the entries at least that (``at_least``:
    every entry as large as the largest is among them)."""
    if len(values) <= FEW:
        return max(values)
    top = max(values[::64])
    found = max((values[i] for i in at_least(values, top)), default=math.nan)
    return found if found >= top else max(values)  # NaN: as max() takes it


FEW = 4096  # entries from which ``at_least`` leaves the reading to simsimd
_SIGN_BYTE = 3 if sys.byteorder == "little" else 0  # a float32's byte with its sign bit
_NOT_NEGATIVE = bytes(1 if b < 0x80 else 0 for b in range(256))  # that byte's sign bit, 0


def exact(vf: VectorFile, rows: list[int], q: array) -> list[float]:
    """The float32 scores of the rows numbered in ``rows`` (sorted, distinct), read
    ``quantized.GATHER`` rows at a time (memory stays flat however many can be among
    the best)."""
    out: list[float] = []
    for at in range(0, len(rows), quantized.GATHER):
        out += _exact(vf, rows[at : at + quantized.GATHER], q)
    return out


def _exact(vf: VectorFile, rows: list[int], q: array) -> list[float]:
    """``exact`` for a few rows: each run of adjacent rows read with one ``pread``,
    scored by simsimd's float32 kernel."""
    simsimd = _kernels()
    if not rows:
        return []
    dims = vf.dims
    size = dims * 4
    data = bytearray(len(rows) * size)
    with open(vf.matrix_path, "rb") as f:
        fd = f.fileno()
        at = 0
        for _, run in itertools.groupby(enumerate(rows), key=lambda p: p[1] - p[0]):
            these = [r for _, r in run]
            got = os.pread(fd, len(these) * size, these[0] * size)
            data[at * size : at * size + len(got)] = got
            at += len(these)
    matrix = memoryview(data).cast("f", shape=[len(rows), dims])
    query = memoryview(q).cast("B").cast("f", shape=[1, dims])
    scores = simsimd.cdist(matrix, query, "dot", dtype="float32")  # float64 values
    out = array("d")
    out.frombytes(memoryview(scores).cast("B"))
    return out.tolist()


def _release(m: mmap.mmap, start: int, end: int) -> None:
    """Give back the pages of bytes ``start`` to ``end`` of the map."""
    advice = getattr(mmap, "MADV_DONTNEED", None)
    lo = start // mmap.PAGESIZE * mmap.PAGESIZE
    hi = end // mmap.PAGESIZE * mmap.PAGESIZE
    if advice is not None and hi > lo:
        with contextlib.suppress(OSError, ValueError):
            m.madvise(advice, lo, hi - lo)


def _mapped(vf: VectorFile) -> tuple[mmap.mmap | None, int]:
    """The int8 copy memory-mapped, and how many of the catalogue's rows it holds."""
    try:
        f = open(vf.quantized_path, "rb")  # noqa: SIM115
    except FileNotFoundError:
        return None, 0
    with f:
        have = min(quantized.rows_in(f, vf.dims), vf.rows)
        if not have:
            return None, 0
        return mmap.mmap(f.fileno(), have * quantized.size(vf.dims), access=mmap.ACCESS_READ), have


def top_rows(vf: VectorFile, q: Any, want: int) -> tuple[list[int], list[float]]:
    """``(rows, scores)``: the ``want`` rows with the highest float32 scores, best first
    (ties in row order), as ``convo.embed.quantized.top_rows``. Rows the int8 copy lacks
    are all rescored."""
    q = floats(q)
    scan = Scan(Query(q), vf.dims)
    m, have = _mapped(vf)
    if m is not None:
        size = quantized.size(vf.dims)
        try:
            with memoryview(m) as view:
                for start in range(0, have, BLOCK):
                    stop = min(start + BLOCK, have)
                    with view[start * size : stop * size] as part:
                        scan.add(part)
                    _release(m, start * size, stop * size)
        finally:
            m.close()
    rows = within(scan.approx, scan.width(), want) + list(range(have, vf.rows))
    return _best(rows, exact(vf, rows, q), want)


def _best(keys: list[int], scores: list[float], n: int) -> tuple[list[int], list[float]]:
    """The ``n`` highest of ``scores`` with their keys, best first, ties in key order."""
    order = sorted(range(len(keys)), key=lambda i: (-scores[i], keys[i]))[:n]
    return [keys[i] for i in order], [scores[i] for i in order]


def best_of_spans(
    vf: VectorFile, q: Any, spans: list[tuple[int, int]], limit: int
) -> tuple[list[int], list[float]]:
    """For messages whose rows are the ``(row, count)`` ``spans`` (ascending rows, each
    count at least 1): ``(messages, scores)``, the indices of the ``limit`` messages with
    the highest best-row float32 score, best first (ties in message order), with those
    scores, as ``convo.embed.quantized.best_of_spans``."""
    q = floats(q)
    scan = Scan(Query(q), vf.dims)
    m, have = _mapped(vf)
    size = quantized.size(vf.dims)
    if m is not None:
        try:
            with memoryview(m) as view:
                copied = [(r, min(n, have - r)) for r, n in spans if r < have]
                for at in range(0, len(copied), BLOCK // 4):
                    part = b"".join(
                        view[r * size : (r + n) * size] for r, n in copied[at : at + BLOCK // 4]
                    )
                    scan.add(memoryview(part))
        finally:
            m.close()
    # Rows the copy lacks (past ``have``): their float32 scores stand in for approximate
    # ones (no further from themselves than any approximation), as numpy's path does.
    tail = iter(exact(vf, [r for row, n in spans for r in range(max(row, have), row + n)], q))
    approx = iter(scan.approx)
    best: list[float] = []
    for row, n in spans:
        inside = max(0, min(n, have - row))
        best.append(max(itertools.chain(itertools.islice(approx, inside),
                                        itertools.islice(tail, n - inside))))  # fmt: skip
    messages = within(best, scan.width(), limit)
    rows = [r for i in messages for r in range(spans[i][0], spans[i][0] + spans[i][1])]
    found = iter(exact(vf, rows, q))
    scores = [max(itertools.islice(found, spans[i][1])) for i in messages]
    return _best(messages, scores, limit)


def mean_of(vf: VectorFile, row: int, count: int) -> array:
    """The unit-length mean of rows ``row`` to ``row + count`` (``similar``'s query):
    summed in float64, normalised, rounded to float32."""
    with open(vf.matrix_path, "rb") as f:
        data = os.pread(f.fileno(), count * vf.dims * 4, row * vf.dims * 4)
    values = array("f")
    values.frombytes(data[: len(data) // 4 * 4])
    dims = vf.dims
    total = [math.fsum(values[i::dims]) for i in range(dims)]
    norm = math.sqrt(math.fsum(v * v for v in total))
    return array("f", [v / norm for v in total] if norm else total)
