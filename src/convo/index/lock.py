"""The store lock for index updates: the same lock as the store's appends (``convo.core.lock``).

Only used by callers that do not hold the store lock already (a reader bringing a stale
index up to date); they never wait long for a busy writer, they scan instead.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from convo.core import lock
from convo.core.errors import InputError


@contextlib.contextmanager
def store_lock(path: Path, *, wait: bool = True) -> Iterator[str]:
    """Yield "" holding the lock on an existing store, else why it was not taken.

    Not taken: the store does not exist ("no store"), ``wait`` is False and another
    process holds the lock ("the store is being written": the caller scans instead), or
    the lock file cannot be made (a read-only file system: that error, as a reason).
    """
    if not path.exists():
        yield "no store"
        return
    try:
        held = lock.hold(path.resolve(), str(path), wait=None if wait else 0)
        held.__enter__()
    except InputError as e:
        busy = e.what.startswith("the store is locked")
        yield "the store is being written" if busy else f"the lock file cannot be made ({e.what})"
        return
    try:
        yield ""
    finally:
        held.__exit__(None, None, None)
