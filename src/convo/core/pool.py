"""An ordered process-pool map: the one way convo runs work on several cores.

``ordered_map(fn, items, jobs)`` yields ``fn(item)`` for each item in the order of
``items``, computing up to ``jobs`` of them at once in worker processes, with at most
``2 * jobs`` results waiting, so memory stays bounded however many items there are.
``fn`` and the items must be picklable (a module-level function and plain data). With
``jobs <= 1`` everything runs in this process, which keeps tracebacks and profiles
simple and is what small inputs should use.

Workers are forked on POSIX (start-up is milliseconds and the parent's imports are
inherited) and spawned elsewhere. With ``preload`` they are instead fresh interpreters
that import only those modules (``serve``, over pipes): a forked worker's resident
memory is a copy of everything the parent loaded (the command line: about 30 MB), a
fresh one holds what the work needs (the query scan: about 15 MB), which matters when
the memory of every worker counts. Workers ignore Ctrl-C: the terminal sends SIGINT to
the whole process group, and the parent alone turns it into exit code 130. They die
with their parent (``_worker_signals``), so a parent killed by any signal leaves none. Closing the
iterator (after ``--limit``, or a closed pipe) cancels what is not started.

``FreshPool(jobs, preload)`` keeps one set of fresh workers for several maps: a command
of several passes over the same ranges (``convo knowledge``, the Parquet export) starts
and imports them once, not once a pass while the cores wait. Its ``last`` map lets each
worker end after its last task, so the memory of a worker with nothing left to do is
freed while the parent merges what the others send. ``ordered_map`` with ``preload`` is
one map on a pool of its own.

Measured against the standard library (``benchmarks/bench_pool.py``, BENCHMARKS.md;
2-core machine at load 8-10, noise of the section ±27% wall, ±7% CPU): starting and
ending a pool of two, ``ProcessPoolExecutor`` forked took 0.53× FreshPool's wall time
and 0.52× its CPU, and 19 MB against 28 MB (proportional set sizes of the tree); with a
forkserver preloading the work's module, 1.31× and 40 MB. On the query scan of the
1M-record store, fork 0.74× wall (CPU 0.89×) and 27 against 36 MB; forkserver 0.99×,
48 MB. So the query scan now forks (``query/parallel.py``). FreshPool stays where a
pool runs several passes on workers that import a large library the parent must not
hold (pyarrow in the Parquet export, the knowledge passes) and where the ``last`` map
frees a worker's memory early; those have not been measured against a forked
``ProcessPoolExecutor`` kept for the passes, which is the next comparison to make.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import struct
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any, TypeVar

from convo.core import collector
from convo.core.errors import ConvoError

if TYPE_CHECKING:
    import subprocess
    from concurrent.futures import Future

T = TypeVar("T")
R = TypeVar("R")
_SIZE = struct.Struct("<Q")


def cpu_count() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


PARENT = "CONVO_POOL_PARENT"  # a fresh worker's environment: its parent's pid
PR_SET_PDEATHSIG = 1


def _worker_signals(parent: int | None = None) -> None:
    """A worker ignores Ctrl-C (the parent alone turns it into an exit code), ends on
    SIGTERM or SIGHUP as any program does (not through the parent's ``Terminated``), and
    dies with its parent: on Linux the kernel kills it when the parent (the thread that
    started it) ends, even by kill -9, so no worker is left asleep holding the folder."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        os._exit(1)  # the parent ended before the line above


def ordered_map(
    fn: Callable[[T], R], items: Iterable[T], jobs: int, *, preload: Sequence[str] = ()
) -> Iterator[R]:
    """``map(fn, items)`` on ``jobs`` processes, results in input order.

    ``preload``: module names; run the work in fresh interpreters that import only these
    (see the module docstring).
    """
    if jobs <= 1:
        yield from map(fn, items)
        return
    if preload:
        with FreshPool(jobs, preload) as fresh:
            yield from fresh.map(fn, items)
        return
    # Imported here: a ``serve`` worker (which imports this module) needs neither.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    before = set(multiprocessing.active_children())
    with ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=context,
        initializer=_worker_signals,
        initargs=(os.getpid(),),
    ) as pool:
        pending: deque[tuple[Future[R], T]] = deque()
        try:
            for item in items:
                pending.append((pool.submit(fn, item), item))
                if len(pending) >= 2 * jobs:
                    yield _pool_result(pool, pending.popleft())
            while pending:
                yield _pool_result(pool, pending.popleft())
        except KeyboardInterrupt:
            _end_workers(set(multiprocessing.active_children()) - before)
            raise
        finally:
            for future, _ in pending:
                future.cancel()


def _end_workers(workers: Iterable[Any]) -> None:
    """Ctrl-C or a signal: the pool's workers end now, not after their tasks. One that
    lands as the pool starts (before it can tell its workers to stop) left them waiting
    for work, non-daemonic, and the exit joined them for ever (``tests/hostile/
    test_signals.py``); found this way among the children multiprocessing started, so
    a worker started but not yet the pool's own is ended too."""
    for worker in workers:  # SIGKILL: one not yet past _worker_signals has no handler to run
        with contextlib.suppress(Exception):
            worker.kill()


def _pool_result(pool: Any, entry: tuple[Future[R], Any]) -> R:
    """A fork worker's result; a worker that died (the OOM killer) is ``WorkerDied``."""
    from concurrent.futures.process import BrokenProcessPool

    future, item = entry
    try:
        return future.result()
    except BrokenProcessPool:
        processes = list(getattr(pool, "_processes", {}).values())  # the stdlib's own
        for p in processes:  # the dead one may not be reaped yet (a loaded machine)
            if p.exitcode is None:
                p.join(0.5)
        dead = [p for p in processes if p.exitcode not in (None, 0, -signal.SIGTERM)]
        died = (dead or processes or [None])[0]
        pid, code = (died.pid, died.exitcode) if died is not None else (None, None)
        raise WorkerDied(pid, code, item) from None


class WorkerDied(ConvoError):
    """A worker process ended without answering (killed by the OOM killer, a signal):
    one line naming it, its signal and the input it was given; the command's output is
    all-or-nothing, so nothing was written."""

    def __init__(self, pid: int | None, code: int | None, item: Any):
        how = (
            f"was killed by {_signal_name(-code)}"
            if code is not None and code < 0
            else (f"ended (exit {code})" if code is not None else "ended")
        )
        oom = " (out of memory?)" if code == -signal.SIGKILL else ""
        who = f"a worker process (pid {pid})" if pid else "a worker process"
        super().__init__(
            f"{who} {how}{oom}",
            where=input_of(item),
            hint="nothing was written; re-run with fewer --jobs (or -j 1)",
        )


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def input_of(task: Any) -> str | None:
    """The input a task reads, for an error line: the first ``path`` in the task or its
    fields (a byte range with its bytes)."""
    queue: deque[Any] = deque([task])
    for _ in range(50):
        if not queue:
            break
        item = queue.popleft()
        path = getattr(item, "path", None)
        if isinstance(path, str | os.PathLike):
            start, end = getattr(item, "start", None), getattr(item, "end", None)
            span = (
                f" (bytes {start}-{end})" if isinstance(start, int) and isinstance(end, int) else ""
            )
            return f"{os.fspath(path)}{span}"
        if isinstance(item, list | tuple):
            queue.extend(item[:8])
        elif dataclasses.is_dataclass(item):
            queue.extend(getattr(item, f.name, None) for f in dataclasses.fields(item))
    return None


def _send(stream: IO[bytes], value: Any) -> None:
    import pickle  # here: a run on one core imports no pickle (docs/startup.md)

    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_SIZE.pack(len(data)) + data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    head = stream.read(_SIZE.size)
    if len(head) < _SIZE.size:
        raise EOFError
    import pickle

    return pickle.loads(stream.read(_SIZE.unpack(head)[0]))


class FreshPool:
    """``jobs`` fresh interpreters that import ``preload``, kept for several ``map`` calls.

    ``with FreshPool(jobs, preload) as pool:`` starts the workers at once (their start-up
    overlaps what the parent does next); each ``pool.map(fn, items)`` is
    ``ordered_map(fn, items, jobs, preload=preload)`` on those same workers, so a run of
    several passes pays the interpreters' start-up and imports once. One map runs at a
    time; leaving the block ends the workers (kills them if it raised). With
    ``jobs <= 1`` there are none: ``map`` runs in this process.

    A map that raises (a worker's exception, a worker that died, Ctrl-C, ``items``) or
    is closed while results are still owed (after ``--limit``, a closed pipe) stops the
    pool: those results would wait in the pipes to be read as the next map's, so the
    workers are killed, and every later ``map`` raises RuntimeError. A map consumed to
    its end, or closed with nothing owed, leaves the pool ready for the next, unless it
    was the ``last``: then each worker ended after its last task, and the pool is closed.
    """

    def __init__(self, jobs: int, preload: Sequence[str]) -> None:
        self.jobs = jobs
        self._workers: list[_Worker] = []
        self._busy = False
        self._stopped = ""  # why no map may run any more
        self._released = False  # the workers were told no task follows
        if jobs <= 1:
            return
        import subprocess

        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
            PARENT: str(os.getpid()),
        }
        code = "from convo.core.pool import serve; serve()"
        self._workers = [
            _Worker(
                subprocess.Popen(
                    [sys.executable, "-c", code, *preload],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    env=env,
                )
            )
            for _ in range(jobs)
        ]

    def __enter__(self) -> FreshPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None:  # nothing the workers hold is wanted
            self._stop("closed on an error")
        self.close()

    def map(self, fn: Callable[[T], R], items: Iterable[T], *, last: bool = False) -> Iterator[R]:
        """``fn(item)`` for each item, in input order, at most ``2 * jobs`` waiting.

        ``last``: the pool's last map. Once every item is given out, each worker ends
        after its last task, so its memory is freed while the caller is still taking
        (and merging) the results; the pool is closed when the map ends.
        """
        if self._stopped:
            raise RuntimeError(f"the pool is closed ({self._stopped})")
        return self._map(fn, items, last)

    def _map(self, fn: Callable[[T], R], items: Iterable[T], last: bool) -> Iterator[R]:
        if self._stopped:  # between ``map`` and the first ``next``
            raise RuntimeError(f"the pool is closed ({self._stopped})")
        if self._busy:
            raise RuntimeError("the pool is running another map")
        self._busy = True
        owed: deque[_Worker] = deque()
        failed = True
        try:
            if self._workers:
                yield from self._ordered(fn, items, owed, last)
            else:
                yield from map(fn, items)
            failed = False
        except GeneratorExit:  # closed early: stopped only if results are owed
            failed = False
            raise
        finally:
            self._busy = False
            if failed:
                self._stop("a map raised")
            elif owed:
                self._stop("a map was closed with results owed")
            elif last:
                self.close()

    def _ordered(
        self, fn: Callable[[T], R], items: Iterable[T], owed: deque[_Worker], last: bool
    ) -> Iterator[R]:
        """Task ``i`` goes to worker ``i % jobs``; each worker answers its tasks in order.

        A worker stays in ``owed`` until its answer is read whole, so an interrupted read
        counts as owed.
        """
        workers, jobs = self._workers, self.jobs
        for i, item in enumerate(items):
            worker = workers[i % jobs]
            worker.tasks.put((fn, item))
            worker.given.append(item)
            owed.append(worker)
            if len(owed) >= 2 * jobs:
                yield _result(owed)
        if last:  # no more tasks: each worker ends once it has answered its own
            self._release()
        while owed:
            yield _result(owed)

    def _stop(self, why: str) -> None:
        """Kill the workers (the work they hold is not wanted) and end them."""
        if not self._stopped:
            self._stopped = why
            for worker in self._workers:
                worker.proc.kill()
            self._end()

    def close(self) -> None:
        """End the workers once their work is done (killed if a map is under way)."""
        if self._busy:  # the ``with`` body raised out of a map's loop
            self._stop("closed during a map")
        elif not self._stopped:
            self._stopped = "closed"
            self._end()

    def _release(self) -> None:
        """Tell each worker that no task follows: it ends when its queue is done."""
        if not self._released:
            self._released = True
            for worker in self._workers:
                worker.tasks.put(None)

    def _end(self) -> None:
        self._release()
        for worker in self._workers:
            worker.close()


class _Worker:
    """A ``serve`` process and the thread that feeds it its tasks.

    Were the parent to write the tasks itself, a task larger than the pipe's buffer would
    block it on a worker that is blocked in turn writing a result the parent is not
    reading.
    """

    def __init__(self, proc: subprocess.Popen) -> None:
        import queue
        import threading

        self.proc = proc
        self.tasks: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.given: deque[Any] = deque()  # the items it has not answered yet, in order
        self.feeder = threading.Thread(target=self._feed, daemon=True)
        self.feeder.start()

    def _feed(self) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            while (task := self.tasks.get()) is not None:
                _send(stdin, task)
            stdin.close()
        except OSError:  # the worker was killed or died: its result says so
            pass

    def close(self) -> None:
        self.feeder.join()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def _result(owed: deque[_Worker]) -> Any:
    """The next answer owed: the first worker's, taken off ``owed`` once read whole."""
    proc = owed[0].proc
    assert proc.stdout is not None
    given = owed[0].given
    try:
        ok, value = _receive(proc.stdout)
    except EOFError:
        raise WorkerDied(proc.pid, proc.wait(), given[0] if given else None) from None
    owed.popleft()
    if given:
        given.popleft()
    if not ok:
        raise value
    return value


def serve() -> None:
    """A ``preload`` worker: import the modules named in argv, then answer tasks from
    stdin on stdout until stdin ends."""
    import importlib

    parent = os.environ.pop(PARENT, "")
    _worker_signals(int(parent) if parent.isdigit() else None)
    # The results go over a private copy of the pipe; descriptor 1 and sys.stdout are
    # pointed at stderr, so whatever the work prints (a library's print, a warning)
    # reaches the terminal instead of corrupting the results the parent reads.
    stdout = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    for name in sys.argv[1:]:
        importlib.import_module(name)
    collector.freeze_imports()
    stdin = sys.stdin.buffer
    while True:
        try:
            fn, item = _receive(stdin)
        except EOFError:
            return
        try:
            answer: tuple[bool, Any] = (True, fn(item))
        except Exception as e:  # sent to the parent, raised there
            answer = (False, e)
        _send(stdout, answer)
