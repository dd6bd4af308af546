"""An ordered process-pool map: the one way convo runs work on several cores.

``ordered_map(fn, items, jobs)`` yields ``fn(item)`` for each item in the order of
``items``, computing up to ``jobs`` of them at once in worker processes, with at most
``2 * jobs`` results waiting, so memory stays bounded however many items there are.
``fn`` and the items must be picklable (a module-level function and plain data). With
``jobs <= 1`` everything runs in this process, which keeps tracebacks and profiles
simple and is what small inputs should use.

Workers are forked on POSIX (start-up is milliseconds and the parent's imports are
inherited) and spawned elsewhere. They ignore Ctrl-C: the terminal sends SIGINT to the
whole process group, and the parent alone turns it into exit code 130 (closing the
iterator, for example after ``--limit`` or a closed pipe, cancels what is not started).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def cpu_count() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def ordered_map(fn: Callable[[T], R], items: Iterable[T], jobs: int) -> Iterator[R]:
    """``map(fn, items)`` on ``jobs`` processes, results in input order."""
    if jobs <= 1:
        yield from map(fn, items)
        return
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_ignore_interrupts
    ) as pool:
        pending: deque[Future[R]] = deque()
        try:
            for item in items:
                pending.append(pool.submit(fn, item))
                if len(pending) >= 2 * jobs:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
