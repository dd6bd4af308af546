"""kill -9 during build, rm and compact; two concurrent savers.

A child process runs the operation and is killed at a random moment. Afterwards the
store is the old one or the new one, whole, and the index either agrees with it or is
seen as stale (then brought up to date, it agrees).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orjson
import pytest
from tests.index.helpers import rec, write_store

from convo.index import check, refresh, status

ROOT = Path(__file__).resolve().parents[2]
N = 3000


def _child(code: str, path: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'src'}"}
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), str(path)], env=env)


BUILD = """
import sys
from convo.index import drop, refresh
while True:
    drop(sys.argv[1]); refresh(sys.argv[1], wait=True)
"""
# The same on worker processes and the side full-text database (what large stores get).
BUILD_PARALLEL = """
import sys
from convo.core import pool
from convo.index import build, drop, refresh
build.PARALLEL_BYTES, build.RANGE_BYTES, pool.cpu_count = 0, 4096, lambda: 2
while True:
    drop(sys.argv[1]); refresh(sys.argv[1], wait=True)
"""
RM = """
import sys
from convo.index import refresh
from convo.store.rewrite import remove
from convo.store import Store
refresh(sys.argv[1], wait=True)
remove(Store(sys.argv[1]), ids=["m7", "m1500"])
"""
COMPACT = """
import sys
from convo.index import refresh
from convo.store.rewrite import compact
from convo.store import Store
refresh(sys.argv[1], wait=True)
compact(Store(sys.argv[1]))
"""


def _store(tmp: Path) -> tuple[Path, bytes]:
    items = [rec(i, tags=["t"] if i % 2 else []) for i in range(N)]
    items.insert(100, rec(5))  # a duplicate id for compact
    items.insert(200, b"not json")
    path = write_store(tmp / "s.jsonl", items)
    return path, path.read_bytes()


def _expected_after(op: str, old: bytes) -> bytes:
    lines = old.splitlines(keepends=True)
    if op == "rm":
        gone = {b'"id":"m7"', b'"id":"m1500"'}
        return b"".join(x for x in lines if not any(g in x for g in gone))
    seen, out = set(), []
    for x in lines:
        if not x.startswith(b"{"):
            continue
        rid = orjson.loads(x)["id"]
        if rid not in seen:
            seen.add(rid)
            out.append(x)
    return b"".join(out)


@pytest.mark.slow
@pytest.mark.parametrize("op", ["build", "build-parallel", "rm", "compact"])
def test_kill_9_leaves_a_whole_store_and_a_consistent_or_stale_index(tmp_path, op):
    rnd = random.Random(op)
    code = {"build": BUILD, "build-parallel": BUILD_PARALLEL, "rm": RM, "compact": COMPACT}[op]
    for attempt in range(6):
        folder = tmp_path / f"{attempt}"
        folder.mkdir()
        path, old = _store(folder)
        if attempt % 2:
            refresh(path)  # sometimes an index to follow, sometimes none yet
        proc = _child(code, path)
        time.sleep(rnd.uniform(0.05, 1.2))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        now = path.read_bytes()
        if not op.startswith("build"):
            assert now in (old, _expected_after(op, old)), f"attempt {attempt}: store torn"
        else:
            assert now == old
        state = status(path).state
        if state == "fresh":
            assert check(path).ok, f"attempt {attempt}: fresh but wrong"
        refresh(path, wait=True)
        assert check(path).ok


SAVER = """
import os, sys, orjson
from convo.store.dedup import after_append, open_ids
from convo.store import Store
store = Store(sys.argv[1])
start = int(os.environ["START"])
for batch in range(20):
    with store.locked() as fd:
        seen = open_ids(store.path)
        assert seen is not None
        lines = []
        for i in range(start + batch * 10, start + batch * 10 + 15):
            rid = f"m{i}"
            if seen.add(rid):
                lines.append(orjson.dumps({"id": rid, "textChunks": ["x"]}) + b"\\n")
        seen.close()
        os.write(fd, b"".join(lines))
        after_append(store.path)
"""


STORE_SAVER = """
import os, sys, orjson
from convo.store import Store
store = Store(sys.argv[1])
start = int(os.environ["START"])
for batch in range(15):
    lines = []
    for i in range(start + batch * 10, start + batch * 10 + 15):
        r = {"id": f"m{i}", "timestamp": "2024-01-01T00:00:00Z", "textChunks": ["x"],
             "metadata": {"speaker": f"p{i % 7}", "listeners": []}, "format": "slack",
             "source_id": f"s{i}"}
        lines.append((r["id"], orjson.dumps(r) + b"\\n"))
    store.append(lines)
"""


@pytest.mark.parametrize(
    "code, second, total",
    [(SAVER, "100", 305), (STORE_SAVER, "70", 225)],  # m0..m154 and m70..m224 once each
    ids=["locked-index-calls", "store-append"],
)
def test_two_concurrent_savers(tmp_path, code, second, total):
    """Two savers at once (what two `ingest --save` runs do): dedup and the index update
    happen inside the store lock, so no id is saved twice and the index is in step."""
    path = tmp_path / "s.jsonl"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'src'}"}
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(path)], env={**env, "START": s})
        for s in ("0", second)
    ]
    for p in procs:
        assert p.wait(timeout=120) == 0
    got = [orjson.loads(x)["id"] for x in path.read_bytes().splitlines()]
    assert len(got) == len(set(got)) == total
    assert status(path).fresh and check(path).ok
