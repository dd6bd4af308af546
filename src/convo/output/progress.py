"""Progress on stderr for long work, only when stderr is a terminal (and transient).

``progress(env, label, paths=...)``: with the input files known, a real bar: bytes
through of their total, the rate, the messages so far, the time spent and the time
left. Bytes through are, with ``--jobs``, the input bytes whose messages the workers
handed back and this process passed on (``ReadyBlock.done``: the parent reads no input,
and what it reads back from the workers is not input); in one process, what it has read
since the bar started (Linux ``/proc/self/io``), capped at the total; where the system
does not say, the sources whose messages are all through count whole (the stream is in
input order). Without files (stdin) a spinner counts messages, with their rate.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

EVERY = 1000  # updating rich on every item would cost more than the work
CHECK = 64  # items between looks at the clock for the byte bar
TICK = 0.1  # seconds between byte-bar updates


def file_sizes(paths: Sequence[str]) -> dict[str, int]:
    """Each regular file under ``paths`` by the name its messages' source ids carry."""
    sizes: dict[str, int] = {}
    for path in paths:
        if path == "-":
            continue
        if os.path.isdir(path):
            for folder, _dirs, files in os.walk(path):
                for f in files:
                    _add(sizes, os.path.join(folder, f))
        else:
            _add(sizes, path)
    return sizes


def _add(sizes: dict[str, int], path: str) -> None:
    with contextlib.suppress(OSError):
        sizes[path] = os.stat(path).st_size


def bytes_read() -> int | None:
    """Bytes this process has read so far (None where the system does not say)."""
    try:
        with open("/proc/self/io", "rb") as f:
            for line in f:
                if line.startswith(b"rchar:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


class ByteMeter:
    """Bytes of the inputs read so far: what this process has read since it started
    (capped at the total), or, where the system does not say, the sources through."""

    def __init__(self, sizes: dict[str, int]):
        self.sizes = sizes
        self.total = sum(sizes.values())
        self.done = 0  # sizes of the sources whose messages are through
        self.current: str | None = None
        self.unknown: set[str] = set()  # source names that are no file of the inputs
        self.start = bytes_read()
        self.reported: int | None = None  # input bytes through, as the stream says

    def size_of(self, name: str) -> int:
        if name in self.sizes:
            return self.sizes.pop(name)
        if name in self.unknown:
            return 0
        prefix = name.rstrip(os.sep) + os.sep  # a folder format: its files
        inside = [k for k in self.sizes if k.startswith(prefix)]
        if not inside:
            self.unknown.add(name)  # e.g. a JSONL record's own source id
        return sum(self.sizes.pop(k) for k in inside)

    def seen(self, source_id: str | None) -> None:
        name = (source_id or "").split("#", 1)[0]
        if name and name != self.current:
            if self.current is not None:
                self.done += self.size_of(self.current)
            self.current = name

    def position(self) -> int:
        if self.reported is not None:
            return min(self.total, self.reported)
        now = bytes_read()
        read = now - self.start if now is not None and self.start is not None else 0
        return min(self.total, max(self.done, read))


@contextlib.contextmanager
def progress(env, label: str, enabled: bool = True, paths: Sequence[str] | None = None):
    """Yield ``track(iterable)``: a byte bar over ``paths`` when their size is known, else
    a spinner counting items; nothing when disabled or stderr is not a terminal."""
    if not enabled or not env.stderr_isatty:
        yield lambda it: it
        return
    sizes = file_sizes(paths or [])
    if sizes and sum(sizes.values()):
        with _byte_bar(env, label, ByteMeter(sizes)) as track:
            yield track
        return
    with _counter(env, label) as track:
        yield track


@contextlib.contextmanager
def _byte_bar(env, label: str, meter: ByteMeter):
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    columns = (
        TextColumn(label), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
        TextColumn("{task.fields[messages]:,} msgs"), TimeElapsedColumn(), TextColumn("left"),
        TimeRemainingColumn(),
    )  # fmt: skip
    with Progress(*columns, console=env.console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=meter.total, messages=0)

        def track(items: Iterable[Any]) -> Iterator[Any]:
            last = time.monotonic()
            n = 0
            for item in items:
                done = getattr(item, "done", None)
                if done is not None:
                    meter.reported = done
                else:
                    meter.seen(getattr(item, "source_id", None))
                # A block of lines (``pipeline.ready.ReadyBlock``) counts as its messages.
                before, n = n, n + getattr(item, "count", 1)
                if n // CHECK != before // CHECK and time.monotonic() - last >= TICK:
                    last = time.monotonic()
                    bar.update(task, completed=meter.position(), messages=n)
                yield item
            bar.update(task, completed=meter.total, messages=n)

        yield track


def _rate(n: int, start: float) -> str:
    """Items a second since ``start`` (the total is unknown: no time left)."""
    spent = time.monotonic() - start
    return f"{n / spent:,.0f}/s" if spent > 0 else ""


@contextlib.contextmanager
def _counter(env, label: str):
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
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        console=env.console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=None, rate="")

        def track(items: Iterable[T]) -> Iterator[T]:
            n = 0
            start = time.monotonic()
            for n, item in enumerate(items, 1):
                if n % EVERY == 0:
                    bar.update(task, completed=n, rate=_rate(n, start))
                yield item
            bar.update(task, completed=n)

        yield track
