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
def store_lock(path: Path, *, wait: bool = True) -> Iterator[bool]:
    """Yield True holding the lock on an existing store, False when not taken.

    Not taken: the store does not exist, or ``wait`` is False and another process holds
    the lock (a writer is busy; the caller falls back to scanning).
    """
    if not path.exists():
        yield False
        return
    try:
        held = lock.hold(path.resolve(), str(path), wait=None if wait else 0)
        held.__enter__()
    except InputError:
        yield False
        return
    try:
        yield True
    finally:
        held.__exit__(None, None, None)
