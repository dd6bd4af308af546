"""The store lock, taken the way ``convo.pipeline.store.Store.locked`` takes it.

An exclusive ``flock`` on the store file; when a rewrite renamed a new file over the path
while we waited, the new file is locked instead. Both use the same kernel lock, so an
index update here and a store append there exclude each other. Only used by callers that
do not hold the store lock already (a reader bringing a stale index up to date).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


def _open(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_APPEND)
    except PermissionError:
        return os.open(path, os.O_RDONLY)  # a read-only store can still be locked


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    own = os.fstat(fd)
    return (own.st_dev, own.st_ino) == (st.st_dev, st.st_ino)


@contextlib.contextmanager
def store_lock(path: Path, *, wait: bool = True) -> Iterator[bool]:
    """Yield True holding the lock on an existing store, False when not taken.

    Not taken: the store does not exist, or ``wait`` is False and another process holds
    the lock (a writer is busy; the caller falls back to scanning).
    """
    fd = -1
    while True:
        try:
            fd = _open(path)
        except FileNotFoundError:
            yield False
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            yield False
            return
        if _same_file(fd, path):
            break
        os.close(fd)
    try:
        yield True
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
