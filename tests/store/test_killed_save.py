"""``ingest --save`` killed half-way through its append (SIGKILL in the middle of a
line, SIGTERM between batches), then run again: the store is whole (no half line),
nothing is duplicated or lost, and ``index --check`` is clean. After SIGKILL, readers
see the store as it was before the save (its journal, ``convo.core.journal``), and the
next save undoes it and says so (``tests/store/test_journal.py``: every other moment).

The kill is made deterministic: the child's ``_write_all`` writes half of its second
batch of lines and then signals its own process (a random moment is
``test_store.test_sigkill_during_ingest_never_leaves_a_partial_record``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]
N = 3000

CHILD = """
import os, signal, sys
from convo.store import append

store, src, signame = sys.argv[1:4]
real, calls = append._write_all, []

def write_all(fd, data):
    calls.append(len(data))
    if len(calls) == 2:  # half a batch on disk, the last line of it cut
        os.write(fd, data[: len(data) // 2 + 7])
        os.kill(os.getpid(), getattr(signal, signame))
    real(fd, data)

append._write_all = write_all
append.BATCH_BYTES = 32 << 10
sys.argv = ["convo", "--store", store, "ingest", "--save", "--quiet", "-j", "1", src]
from convo.cli.app import main
main()
"""


def _convo(*args: str, code: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-c", textwrap.dedent(code)] if code else [sys.executable, "-m", "convo"]
    return subprocess.run([*cmd, *args], env=env, capture_output=True, text=True, timeout=300)


def _source(path: Path, start: int, n: int) -> Path:
    with open(path, "wb") as f:
        for i in range(start, start + n):
            rec = {"textChunks": [f"message {i} " + "x" * (i % 40)], "timestamp": "2024-01-01T00:00:00Z",
                   "metadata": {"speaker": f"p{i % 7}", "listeners": []}, "id": f"m{i}"}  # fmt: skip
            f.write(orjson.dumps(rec) + b"\n")
    return path


def _ids(store: Path) -> list[str]:
    data = store.read_bytes()
    assert data.endswith(b"\n")
    return [orjson.loads(line)["id"] for line in data.splitlines()]


@pytest.mark.parametrize("signame, code", [("SIGKILL", -signal.SIGKILL), ("SIGTERM", 143)])
@pytest.mark.parametrize("indexed", [False, True], ids=["no-index", "indexed"])
def test_a_killed_save_run_again_leaves_the_store_whole(tmp_path, signame, code, indexed):
    store = tmp_path / "store.jsonl"
    first = _source(tmp_path / "first.jsonl", 0, 200)
    assert _convo("--store", str(store), "ingest", "--save", "--quiet", str(first)).returncode == 0
    if indexed:
        assert _convo("--store", str(store), "index").returncode == 0
    before = store.read_bytes()
    src = _source(tmp_path / "big.jsonl", 100, N)  # m100..m199 are stored already
    killed = _convo(str(store), str(src), signame, code=CHILD)
    assert killed.returncode == code, killed.stderr
    now = store.read_bytes()
    if signame == "SIGTERM":  # handled as Ctrl-C: the append is undone
        assert now == before and "terminated" in killed.stderr
    else:  # no handler runs: whole batches and half a line stay until the next lock holder
        assert now.startswith(before) and not now.endswith(b"\n") and len(now) > len(before)
        seen = _convo("--store", str(store), "query", "--count")  # the save is not seen
        assert (seen.returncode, seen.stdout.strip(), seen.stderr) == (0, "200", "")
    again = _convo("--store", str(store), "ingest", "--save", str(src))
    assert again.returncode == 0, again.stderr
    ids = _ids(store)
    assert len(ids) == len(set(ids)) == 100 + N  # m0..m3099, each once
    assert not Path(f"{store}.torn").exists()  # undone, not torn
    check = _convo("--store", str(store), "index", "--check")
    assert check.returncode == 0, check.stdout + check.stderr
