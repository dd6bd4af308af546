"""Process pools (issue 34, item 8): convo's ``core.pool.FreshPool`` against the standard
library's ``concurrent.futures.ProcessPoolExecutor``, forked and with a preloading
forkserver, on the work convo gives them.

Each pool runs in a fresh driver process (``DRIVER``) that first imports what the
command line's parent holds when it starts a pool (``convo.cli.app``, so a forked
worker copies a realistic parent), then maps:

- ``start``: two trivial tasks (``operator.truth``) on two workers: what starting and ending
  the pool costs, the floor under every parallel command;
- ``scan``: the query scan of the 1M store (``convo.query.parallel.scan_range`` over its
  16 MiB ranges, ``--tag urgent``), as ``convo query`` runs it.

The kinds: ``fresh`` (``FreshPool(2, preload)``: fresh interpreters importing only the
work's module, what ``convo query`` uses), ``fork`` (``ProcessPoolExecutor`` with the fork
context, what ``core.pool.ordered_map`` uses without ``preload``), ``forkserver``
(``ProcessPoolExecutor`` on a forkserver that preloads the work's module, so each worker
is a fork of a small process). Whole driver processes are timed, alternating the kinds
(wall, CPU of the process tree, peak memory of the tree as proportional set sizes). Each
driver prints the matches it found; the kinds must agree.
"""

from __future__ import annotations

import subprocess
import sys

TITLE = "Process pools: FreshPool vs ProcessPoolExecutor"
KINDS = ("fresh", "fork", "forkserver")
WORK = "convo.query.parallel"

DRIVER = r"""
import os, sys
kind, what, store = sys.argv[1], sys.argv[2], sys.argv[3]
import convo.cli.app  # noqa: the command line's parent, as a forked worker copies it
from convo.query.parallel import RANGE, Task, scan_range
from convo.query.filters import Filters
from convo.query.blocks import BLOCK
from convo.core.ranges import split

if what == "start":
    from operator import truth as fn  # a builtin: pickled by name, no work
    items = [1, 2]
else:
    st = os.stat(store)
    ranges = split(store, max(2, -(-st.st_size // RANGE)), min_size=1 << 20)
    fn = scan_range
    items = [Task(Filters(tags=["urgent"]), r, (st.st_dev, st.st_ino), False, BLOCK) for r in ranges]

def done(results):
    if what == "start":
        print(len(results))
    else:
        print(sum(len(r.runs.starts) for r in results))

if kind == "fresh":
    from convo.core.pool import FreshPool
    with FreshPool(2, (sys.argv[4],)) as pool:
        done(list(pool.map(fn, items)))
else:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from convo.core.pool import _worker_signals
    ctx = multiprocessing.get_context(kind)
    if kind == "forkserver":
        ctx.set_forkserver_preload([sys.argv[4]])
    parent = os.getpid() if kind == "fork" else None  # a forkserver's worker: its child
    with ProcessPoolExecutor(2, mp_context=ctx, initializer=_worker_signals,
                             initargs=(parent,)) as pool:
        done(list(pool.map(fn, items)))
    if kind == "forkserver":  # reaped here, so its workers' CPU time counts
        from multiprocessing import forkserver
        forkserver._forkserver._stop()
"""


def _argv(kind: str, what: str, store: str) -> list[str]:
    return [sys.executable, "-c", DRIVER, kind, what, store, WORK]


def run(h) -> None:
    import bench_query

    n = h.scale(1_000_000)
    store = str(h.data(f"query-{n}.jsonl", lambda p: bench_query.generate(p, n)))
    answers = {
        k: subprocess.run(
            _argv(k, "scan", store), capture_output=True, text=True, check=True
        ).stdout.strip()
        for k in KINDS
    }
    same = len(set(answers.values())) == 1
    h.row(
        "every kind finds the same matches (runs of matched lines)",
        ", ".join(f"{k} {v}" for k, v in answers.items()),
        "identical",
        same,
    )
    start = h.alternate(
        {f"start: two trivial tasks on a {k} pool": _argv(k, "start", store) for k in KINDS},
        rounds=7,
    )
    scan = h.alternate(
        {f"scan: `--tag urgent` over {n:,} records on a {k} pool": _argv(k, "scan", store)
         for k in KINDS},
        rounds=5,
    )  # fmt: skip
    for measures, what in ((start, "pool start and end"), (scan, "query scan of the store")):
        fresh, fork, server = measures.values()
        h.compare(f"{what}: ProcessPoolExecutor (fork) / FreshPool", fork, fresh)
        h.compare(f"{what}: ProcessPoolExecutor (forkserver, preload) / FreshPool", server, fresh)
        for m, k in ((fresh, "FreshPool"), (fork, "fork"), (server, "forkserver")):
            h.row(f"{what}: peak memory of the tree, {k}", f"{m.peak_rss_mb:.0f} MB", "", None)
    h.note(
        "A ratio above 1 means the standard library's pool took longer than FreshPool. The "
        "driver imports `convo.cli.app` first, as the command's parent has, so a forked "
        "worker starts as a copy of it; a fresh or forkserver worker imports only "
        f"`{WORK}`. Kinds alternate, 7 rounds (start) and 5 (scan); medians."
    )
