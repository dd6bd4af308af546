"""A transient progress line on stderr for long work, only when stderr is a terminal."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

EVERY = 1000  # updating rich on every item would cost more than the work


@contextlib.contextmanager
def progress(env, label: str, enabled: bool = True):
    """Yield ``track(iterable)``, which counts items on a spinner line (or does nothing)."""
    if not enabled or not env.stderr_isatty:
        yield lambda it: it
        return
    from rich.progress import (
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        SpinnerColumn(),
        TextColumn(label),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=env.console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=None)

        def track(items: Iterable[T]) -> Iterator[T]:
            n = 0
            for n, item in enumerate(items, 1):
                if n % EVERY == 0:
                    bar.update(task, completed=n)
                yield item
            bar.update(task, completed=n)

        yield track
