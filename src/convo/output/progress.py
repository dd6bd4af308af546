"""Progress on stderr for long work, only when stderr is a terminal (and transient):
a bar is drawn once the work has taken ``DELAY`` seconds, so a quick command draws none.

``progress(env, label, paths=...)``: with the input files known, a real bar: bytes
through of their total, the rate, the messages so far, the time spent and the time
left. With ``--jobs`` the work has two halves, and the bar counts each as half: the input the
worker processes have read (Linux: the offsets of their descriptors on the input files,
``WorkerReads``), and the input whose messages
they handed back and this process wrote (``ReadyBlock.done``; what the parent reads back
from the workers is not input). So the bar moves while the workers parse, before their
first results come back in order, and reaches the total only when everything is
written; a thread updates it while no message comes. In one process it counts what the
process has read since the bar started (Linux ``/proc/self/io``), capped at the total;
where the system does not say, the sources whose messages are all through count whole
(the stream is in input order). Without files (stdin) a spinner counts messages, with
their rate.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Iterator, Sequence

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

EVERY = 1000  # updating rich on every item would cost more than the work
CHECK = 64  # items between looks at the clock for the byte bar
TICK = 0.1  # seconds between byte-bar updates
# Seconds of work before a bar is drawn: a command done sooner (a query that a fresh
# index answers, a small file) draws none, rather than flashing "indexing 0/?".
DELAY = 0.5


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


def _children() -> list[str]:
    import glob

    pids: list[str] = []
    for name in glob.glob("/proc/self/task/*/children"):
        with contextlib.suppress(OSError), open(name, "rb") as f:
            pids += f.read().decode().split()
    return pids


def _positions(pid: str, inputs: set[str]) -> dict[tuple[str, str], int]:
    """The offsets of ``pid``'s open descriptors on ``inputs``, by (pid, fd)."""
    import glob

    found: dict[tuple[str, str], int] = {}
    for link in glob.glob(f"/proc/{pid}/fd/*"):
        with contextlib.suppress(OSError, ValueError):
            if os.readlink(link) in inputs:
                fd = link.rsplit("/", 1)[1]
                with open(f"/proc/{pid}/fdinfo/{fd}", "rb") as f:
                    pos = int(f.readline().split()[1])  # "pos:\t<offset>"
                found[(pid, fd)] = pos
    return found


SEEK = 16 << 20  # an offset moving this far between two looks is a seek, not reading


class WorkerReads:
    """Bytes of the inputs the child processes (``--jobs`` workers) have read: for each
    descriptor they hold on an input file, how far its offset moved while watched, kept
    when the descriptor closes. A worker opens the file and seeks to its range: a move
    back, or forward by ``SEEK`` or more between two looks, is not counted."""

    def __init__(self, inputs: Iterable[str]):
        self.inputs = {os.path.realpath(p) for p in inputs}
        self.first: dict[tuple[str, str], int] = {}  # looked at first (keeps the key)
        self.last: dict[tuple[str, str], int] = {}
        self.moved: dict[tuple[str, str], int] = {}
        self.closed = 0

    def total(self) -> int | None:
        """The bytes read, or None while no child process has had an input open (one
        process; a child that reads no input, such as multiprocessing's resource tracker
        left by earlier work, is no worker)."""
        now: dict[tuple[str, str], int] = {}
        for pid in _children():
            now.update(_positions(pid, self.inputs))
        if not now and not self.first:
            return None
        for key in list(self.moved):
            if key not in now:
                self.closed += self.moved.pop(key)
                self.last.pop(key, None)
        for key, pos in now.items():
            self.first.setdefault(key, pos)
            step = pos - self.last.get(key, pos)
            self.last[key] = pos
            if 0 < step < SEEK:
                self.moved[key] = self.moved.get(key, 0) + step
            else:
                self.moved.setdefault(key, 0)
        return self.closed + sum(self.moved.values())


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
        self.workers = WorkerReads(sizes)
        self.best = 0  # the furthest position given (the bar never goes back)
        import threading  # (a read with no bar to draw imports none of it)

        self._lock = threading.Lock()

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

    def position(self, ticking: bool = False) -> int:
        """Bytes through so far; never less than a position given before. ``ticking``
        (the bar's thread, while no message may come): only the workers' reads count,
        this process's reads say something only once messages flow (before them it may
        read the inputs to plan the work)."""
        with self._lock:
            self.best = max(self.best, self._position(ticking))
            return self.best

    def _position(self, ticking: bool) -> int:
        workers = self.workers.total()
        if workers is not None:  # --jobs: half for what they read, half for what is written
            through = min(self.total, self.reported or 0)
            return (min(self.total, workers) + through) // 2
        if ticking:
            return self.best
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
    with _drawn_later(Progress(*columns, console=env.console(stderr=True), transient=True)) as bar:
        task = bar.add_task(label, total=meter.total, messages=0)
        with _ticking(lambda: bar.update(task, completed=meter.position(ticking=True))):
            yield _tracker(bar, task, meter)


def _tracker(bar: Any, task: Any, meter: ByteMeter):
    """``track(items)`` for the byte bar: each item's source or ``done`` to ``meter``."""

    def track(items: Iterable[Any]) -> Iterator[Any]:
        last = time.monotonic()
        n = 0
        for item in items:
            done = getattr(item, "done", None)
            if done is not None:
                meter.reported = done
            else:
                meter.seen(getattr(item, "source_id", None))
            # A block of lines (``store.lines.ReadyBlock``) counts as its messages.
            before, n = n, n + getattr(item, "count", 1)
            if n // CHECK != before // CHECK and time.monotonic() - last >= TICK:
                last = time.monotonic()
                bar.update(task, completed=meter.position(), messages=n)
            yield item
        meter.best = meter.total
        bar.update(task, completed=meter.total, messages=n)

    return track


@contextlib.contextmanager
def _drawn_later(bar: Any) -> Iterator[Any]:
    """``bar`` (a rich ``Progress``, updated from the start) drawn once the work has
    taken ``DELAY`` seconds, and erased at its end (when it was drawn)."""
    import threading

    timer = threading.Timer(DELAY, bar.start)
    timer.daemon = True
    timer.start()
    try:
        yield bar
    finally:
        timer.cancel()
        timer.join()  # a start under way ends before the stop
        bar.stop()  # nothing when it was never started


@contextlib.contextmanager
def _ticking(update, every: float = 0.5):
    """Call ``update`` every ``every`` seconds in a thread while the block runs (the
    workers of ``--jobs`` read while no message comes back yet)."""
    import threading

    stop = threading.Event()

    def run() -> None:
        while not stop.wait(every):
            with contextlib.suppress(Exception):
                update()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


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

    spinner = Progress(
        SpinnerColumn(),
        TextColumn(label),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        console=env.console(stderr=True),
        transient=True,
    )
    with _drawn_later(spinner) as bar:
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


@contextlib.contextmanager
def position_bar(env, label: str, enabled: bool = True):
    """Yield ``update(done, total)`` for work that knows how far it is through a file (in
    bytes): a transient bar on a terminal, nothing elsewhere."""
    if not enabled or not env.stderr_isatty:
        yield lambda done, total: None
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn(label), BarColumn(), DownloadColumn(), TimeRemainingColumn())
    with _drawn_later(Progress(*columns, console=env.console(stderr=True), transient=True)) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


class Work:
    """``work_bar``'s two ways in: ``bytes(done, total)`` for work that knows how far it
    is through its input (the passes of ``knowledge`` on several cores), and
    ``track(items)`` for a stream of messages of unknown length (one process)."""

    def __init__(self, bar: Any, label: str):
        self.bar = bar
        self.label = label
        self.task: Any = None
        self.start = time.monotonic()

    def _task(self, total: int | None) -> Any:
        if self.task is None:
            self.task = self.bar.add_task(self.label, total=total, what="")
        return self.task

    def bytes(self, done: int, total: int) -> None:
        if self.bar is None:
            return
        spent = time.monotonic() - self.start
        rate = f" · {done / spent / 1e6:,.1f} MB/s" if spent > 0 and done else ""
        what = f"{done / 1e6:,.1f}/{total / 1e6:,.1f} MB{rate}"
        self.bar.update(self._task(total), completed=done, total=total, what=what)

    def track(self, items: Iterable[T]) -> Iterator[T]:
        if self.bar is None:
            yield from items
            return
        task = self._task(None)
        n = 0
        for n, item in enumerate(items, 1):
            if n % EVERY == 0:
                self.bar.update(task, completed=n, what=f"{n:,} msgs {_rate(n, self.start)}")
            yield item
        self.bar.update(task, completed=n, what=f"{n:,} msgs read")


@contextlib.contextmanager
def work_bar(env, label: str, enabled: bool = True) -> Iterator[Work]:
    """A transient bar on a terminal's stderr (nothing when piped): bytes through of the
    total with the rate and the time left, or messages so far with their rate."""
    if not enabled or not env.stderr_isatty:
        yield Work(None, label)
        return
    from rich.progress import (
        BarColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[what]}"),
               TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn())  # fmt: skip
    with _drawn_later(Progress(*columns, console=env.console(stderr=True), transient=True)) as bar:
        yield Work(bar, label)
