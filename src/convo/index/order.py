"""``--latest N``, ``--sort time|-time`` and ``--count`` without an index, in flat memory.

With a fresh index these come from SQL (``lookup(order=..., latest=...)``, ``count``).
Without one, the scan's matches stream through here:
- ``latest``: a bounded heap of the N greatest (time, position), memory O(N);
- ``sort_by_time``: an external merge sort; runs of ``run_size`` items are sorted in
  memory and spilled to temporary files, then merged (memory O(run_size));
- ``count``: counts without keeping anything.
Ties in time keep store order (``-time`` is the exact reverse of ``time``).
"""

from __future__ import annotations

import contextlib
import heapq
import struct
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TypeVar

from convo.core.io import spilling

T = TypeVar("T")
RUN_SIZE = 100_000
_HEAD = struct.Struct(">HQI")  # key length, position, payload length


def latest(items: Iterable[T], n: int, key: Callable[[T], str]) -> list[T]:
    """The ``n`` most recent items, oldest first."""
    if n <= 0:
        return []
    heap: list[tuple[str, int, T]] = []
    for pos, item in enumerate(items):
        entry = (key(item), pos, item)
        if len(heap) < n:
            heapq.heappush(heap, entry)
        elif entry[:2] > heap[0][:2]:
            heapq.heapreplace(heap, entry)
    return [item for _, _, item in sorted(heap, key=lambda e: e[:2])]


def count(items: Iterable[object]) -> int:
    return sum(1 for _ in items)


def _spill(run: list[tuple[str, int, bytes]]) -> IO[bytes]:
    with spilling():
        f = tempfile.TemporaryFile()  # noqa: SIM115 - closed by _read_run
        try:
            for k, pos, payload in run:
                kb = k.encode()
                f.write(_HEAD.pack(len(kb), pos, len(payload)) + kb + payload)
            f.seek(0)
        except BaseException:
            with contextlib.suppress(OSError):  # its flush fails again on a full disk
                f.close()
            raise
    return f


def _read_run(f: IO[bytes]) -> Iterator[tuple[str, int, bytes]]:
    with f:
        while head := f.read(_HEAD.size):
            klen, pos, plen = _HEAD.unpack(head)
            yield f.read(klen).decode(), pos, f.read(plen)


def sort_by_time(
    items: Iterable[tuple[str, bytes]], *, reverse: bool = False, run_size: int = RUN_SIZE
) -> Iterator[bytes]:
    """Payloads ordered by their key (a canonical timestamp), ties in input order."""
    runs: list[IO[bytes]] = []
    run: list[tuple[str, int, bytes]] = []
    order = lambda e: (e[0], e[1])  # noqa: E731
    for pos, (k, payload) in enumerate(items):
        run.append((k, pos, payload))
        if len(run) >= run_size:
            run.sort(key=order, reverse=reverse)
            runs.append(_spill(run))
            run = []
    run.sort(key=order, reverse=reverse)
    if not runs:
        for _, _, payload in run:
            yield payload
        return
    streams = [_read_run(f) for f in runs] + [iter(run)]
    for _, _, payload in heapq.merge(*streams, key=order, reverse=reverse):
        yield payload
