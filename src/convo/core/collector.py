"""The cycle collector set for batch work: one home for how convo tunes ``gc``.

Batch work (parsing a range of records, building an index batch, an aggregate's keys)
makes and drops containers by the million, almost none in reference cycles: freed by
their reference counts, they only cost the collector rescans. CPython collects the
youngest generation every 700 allocations by default, so a long batch rescans what it
holds over and over: a quarter of a Parquet export's CPU time, 4-5% of a ``convo
knowledge`` pass. The cycles batch work does make (rare) are still collected, later.

- ``fewer_collections()``: a block with the youngest generation collected every
  ``YOUNG`` allocations (the caller's threshold restored after).
- ``paused()``: a block with the collector off (a build that holds what it makes until
  it ends, so no collection could free anything).
- ``freeze_imports()``: a worker process (``core.pool``) has imported what it needs:
  those objects are never garbage, and no collection scans them again.

Which work collects less is the work's own choice, in a block: a worker's whole life at
``YOUNG`` held 33 MB more at the Parquet export's peak (its second round makes pandas
objects in cycles, which then wait longer).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

YOUNG = 100_000  # allocations between two collections of the youngest generation


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """The youngest generation collected every ``YOUNG`` allocations in this block."""
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], YOUNG), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The cycle collector off in this block (on again after, if it was)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def freeze_imports() -> None:
    """Every object this process holds now (its imported modules) out of every later
    collection."""
    gc.freeze()
