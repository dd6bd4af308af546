"""core.heap: a process that makes and frees big block buffers keeps their pages."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from convo.core import heap

_GLIBC = bool(hasattr(os, "confstr") and os.confstr("CS_GNU_LIBC_VERSION"))

_BLOCKS = """
import resource, sys
from convo.core.heap import keep_freed
if sys.argv[1] == "keep":
    keep_freed()
data = bytes(range(256)) * 4096  # a 1 MiB block, as read
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(200):  # per block: a lower-cased copy and another, freed before the next
    low = data.lower()
    other = low.upper()
    del low, other
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def test_keep_freed_is_set_once_and_only_for_glibc():
    assert heap.keep_freed() is heap.keep_freed() is _GLIBC


@pytest.mark.skipif(not _GLIBC, reason="glibc's malloc thresholds")
def test_freed_block_buffers_are_not_faulted_in_again():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    faults = {
        how: int(subprocess.run(
            [sys.executable, "-c", _BLOCKS, how], env=env, capture_output=True, check=True,
        ).stdout)
        for how in ("keep", "default")
    }  # fmt: skip
    # 200 blocks of 2 MiB are 100,000 pages: kept, the heap faults in a few of them once.
    assert faults["keep"] < 2_000 < faults["default"], faults
