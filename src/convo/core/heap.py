"""The C heap of a process that reads a large file in big blocks: freed blocks kept for
the next ones instead of given back to the system and faulted in again.

glibc's malloc serves a request above its mmap threshold (128 KiB, raised to the largest
block freed so far) with a fresh mapping, the others from the heap, and gives the top of
the heap back to the system when more than twice that threshold is free there. A scan
that makes a few buffers of 1 MiB per block (the bytes read, their lower-cased copy) and
frees them before the next block crosses that line at every block, so every page of
every block is faulted in again, zeroed: on the 1M-record store of
``benchmarks/bench_query.py`` (``--text budget`` on two cores) that was 68,000 page
faults in the workers and 34,000 in the parent, a sixth of the workers' CPU time and a
third of the parent's. ``keep_freed`` sets both thresholds above what blocks need, once
per process (glibc only; elsewhere it does nothing). Peak memory is unchanged: what is
kept is what the blocks used.
"""

from __future__ import annotations

import functools
import os

MMAP_THRESHOLD = 4 << 20  # above any block's buffers: they come from the heap
TRIM_THRESHOLD = 32 << 20  # free memory at the heap's top kept for the next blocks
_M_TRIM_THRESHOLD = -1  # mallopt parameters (glibc's malloc.h)
_M_MMAP_THRESHOLD = -3


@functools.cache
def keep_freed() -> bool:
    """Keep freed block buffers in this process's heap (see the module docstring);
    False where the C library is not glibc."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ValueError, OSError, AttributeError, TypeError):  # not glibc, or no libc
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )


__all__ = ["keep_freed"]
