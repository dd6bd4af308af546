"""The store lock for index updates: the same lock as the store's appends (``convo.core.lock``).

Only used by callers that do not hold the store lock already (a reader bringing a stale
index up to date); they never wait long for a busy writer, they scan instead.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

from convo.core import lock
from convo.core.errors import InputError


@contextlib.contextmanager
def store_lock(
    path: Path, *, wait: bool = True, on_recover: Callable[[str], None] | None = None
) -> Iterator[str]:
    """Yield "" holding the lock on an existing store, else why it was not taken.

    Not taken: the store does not exist ("no store"), ``wait`` is False and another
    process holds the lock ("the store is being written": the caller scans instead), or
    the lock file cannot be made (a read-only file system: that error, as a reason), or
    an interrupted save found under the lock could not be undone (``convo.core.journal``;
    ``on_recover``: told when one was).
    """
    if not path.exists():
        yield "no store"
        return
    try:
        held = lock.hold(path.resolve(), str(path), wait=None if wait else 0, on_recover=on_recover)
        held.__enter__()
    except InputError as e:
        if e.what.startswith("the store is locked"):
            yield "the store is being written"
        elif e.what.startswith("an interrupted save"):
            yield e.what
        else:
            yield f"the lock file cannot be made ({e.what})"
        return
    try:
        yield ""
    finally:
        held.__exit__(None, None, None)
