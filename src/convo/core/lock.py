"""The store's append lock: an exclusive ``flock`` on ``.<store>.lock``, which names its holder.

``fcntl.flock`` rather than the filelock package: the kernel drops the lock when its holder
dies (even by kill -9), so a stale lock file never blocks anyone, and the same flock lets
readers ask ``convo.core.jsonl.writer_active`` whether an append is under way. The lock file
holds ``pid N (program)`` of the holder, so a waiting writer can say whom it waits for.
It is a file of its own (not the store), so a rewrite that renames a new store over the
old one (``JsonlMessageStore.replace``) keeps one lock for everybody.

Whoever takes the lock first undoes a save whose writer died (``convo.core.journal``):
everything done under the lock starts from a store that holds whole saves only.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from convo.core import journal
from convo.core.errors import InputError
from convo.core.io import os_error
from convo.core.jsonl import lock_path

NOTICE_AFTER = 1.0  # seconds of waiting before ``on_wait`` is told who holds the lock
POLL = 0.05


@contextlib.contextmanager
def hold(
    path: Path,
    where: str,
    *,
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
    on_recover: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Hold the append lock of ``path`` (the store, links followed) for the ``with`` block.

    ``wait``: give up after this many seconds with a located InputError naming the
    holder (None waits as long as it takes). ``on_wait(text)`` is called once, after
    ``NOTICE_AFTER`` seconds of waiting, with a line saying who holds the lock.
    ``on_recover(text)``: told when an interrupted save was undone (``journal.recover``);
    a save that cannot be undone is a located InputError (the lock is let go).
    """
    try:
        fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise os_error(e, where, "the store's lock file cannot be created") from None
    try:
        _acquire(fd, where, wait, on_wait)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} ({Path(sys.argv[0]).name or 'python'})\n".encode(), 0)
        _recover(path, where, on_recover)
        yield
    finally:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _recover(path: Path, where: str, on_recover: Callable[[str], None] | None) -> None:
    try:
        done = journal.recover(path)
    except OSError as e:
        what = os_error(e, where).what
        raise InputError(
            f"an interrupted save could not be undone ({what})",
            where=where,
            hint="make the store and its folder writable, then run the command again",
        ) from None
    if done and on_recover is not None:
        on_recover(f"{where}: {done}")


def holder(fd: int) -> str:
    """Who holds the lock, as its lock file says (``pid N (program)``)."""
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return text or "another process"


def _try_lock(fd: int, where: str) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as e:
        raise os_error(e, where, "the store cannot be locked on this file system") from None
    return True


def _acquire(fd: int, where: str, wait: float | None, on_wait: Callable[[str], None] | None):
    if _try_lock(fd, where):
        return
    start = time.monotonic()
    told = False
    while True:
        time.sleep(POLL)
        if _try_lock(fd, where):
            return
        waited = time.monotonic() - start
        if wait is not None and waited >= wait:
            raise InputError(
                f"the store is locked by {holder(fd)}",
                where=where,
                hint=f"gave up after {wait:g} s; another ingest is writing, try again later",
            )
        if not told and waited >= NOTICE_AFTER and on_wait is not None:
            told = True
            on_wait(f"{where}: waiting for the store lock, held by {holder(fd)}")
