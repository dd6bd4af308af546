"""Bounded, mergeable counts of the most frequent keys: the Misra-Gries summary.

``Frequent(capacity)`` counts keys like a ``Counter`` until it holds ``2 * capacity``
distinct keys; then it *reduces*: the ``capacity + 1``-th largest count ``c`` is
subtracted from every counter and the counters left at zero or below are dropped, so
at most ``capacity`` keys survive (Misra & Gries, "Finding repeated elements", 1982;
the batched form and the merge are from Agarwal et al., "Mergeable summaries", 2012).

What is exact and what is approximate, for ``n`` = the total of all increments:

- While no reduction has happened (``exact`` is True: at most ``2 * capacity``
  distinct keys were ever held), every count is exact.
- After a reduction, a count is an underestimate by at most ``error`` (the sum of the
  subtracted ``c``), and ``error <= n / (capacity + 1)``: each reduction takes ``c``
  from at least ``capacity + 1`` counters, and no more than ``n`` can be taken in all.
  So every key counted more than ``n / (capacity + 1)`` times is still held, and the
  ranking of keys far above the bound is right.
- ``merge(other)`` adds the counters and reduces when over the limit; the bound holds
  for the merged input (``n`` the sum of both), and a merge of exact summaries small
  enough to stay below the limit is exact, equal to one pass over both inputs.

Memory: at most ``2 * capacity`` keys, whatever the number of distinct keys seen.
"""

from __future__ import annotations

from collections import Counter, _count_elements  # type: ignore[attr-defined]
from collections.abc import Hashable, Iterable, Iterator
from itertools import compress, repeat
from operator import sub
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class Frequent(Generic[K]):
    """A Misra-Gries summary of at most ``2 * capacity`` counters (see the module docstring)."""

    __slots__ = ("capacity", "counts", "error", "total")

    def __init__(self, capacity: int):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.counts: dict[K, int] = {}
        self.error = 0  # the most any count here is below the true count
        self.total = 0  # n: every increment ever added

    @property
    def exact(self) -> bool:
        return self.error == 0

    def add(self, key: K, n: int = 1) -> None:
        counts = self.counts
        counts[key] = counts.get(key, 0) + n
        self.total += n
        if len(counts) > 2 * self.capacity:
            self._reduce()

    def update(self, keys: list[K]) -> None:
        """``add`` each key once, in order (the same counts and reductions)."""
        limit, counts = 2 * self.capacity, self.counts
        start, end = 0, len(keys)
        self.total += end
        while start < end:
            room = limit - len(counts)
            if room > 0:
                # Each key adds one counter at most, so the next ``room`` cannot reduce:
                # counted by ``Counter.update``'s C loop (``get(key, 0) + 1`` per key, as
                # ``add`` does), without its Mapping test.
                stop = min(end, start + room)
                _count_elements(counts, keys if stop - start == end else keys[start:stop])
                start = stop
                continue
            key = keys[start]  # full: a new key reduces (``add``)
            counts[key] = counts.get(key, 0) + 1
            start += 1
            if len(counts) > limit:
                self._reduce()
                counts = self.counts

    def _reduce(self) -> None:
        counts = self.counts
        c = _kth_largest(counts.values(), self.capacity + 1)
        self.error += c
        # ``{k: v - c for k, v in counts.items() if v > c}`` in C loops.
        kept = list(map(c.__lt__, counts.values()))
        self.counts = dict(
            zip(
                compress(counts, kept),
                map(sub, compress(counts.values(), kept), repeat(c)),
                strict=True,
            )
        )

    def merge(self, other: Frequent[K]) -> None:
        """Add ``other``'s counts (the bound then holds for both inputs together)."""
        counts = self.counts
        for k, v in other.counts.items():
            counts[k] = counts.get(k, 0) + v
        self.total += other.total
        self.error += other.error
        if len(counts) > 2 * self.capacity:
            self._reduce()

    def __len__(self) -> int:
        return len(self.counts)

    def __contains__(self, key: object) -> bool:
        return key in self.counts

    def __iter__(self) -> Iterator[K]:
        return iter(self.counts)

    def get(self, key: K, default: int = 0) -> int:
        return self.counts.get(key, default)

    def items(self):
        return self.counts.items()


def _kth_largest(values: Iterable[int], k: int) -> int:
    """The ``k``-th largest of ``values`` (as ``heapq.nlargest(k, values)[-1]``), from
    their histogram: counts are small numbers with many ties, so a C loop counts them
    and a short walk down the distinct ones finds it."""
    histogram = Counter(values)
    seen = 0
    for value in sorted(histogram, reverse=True):
        seen += histogram[value]
        if seen >= k:
            return value
    raise ValueError("fewer than k values")
