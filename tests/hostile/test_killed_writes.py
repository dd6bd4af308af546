"""SIGKILL (no clean-up runs) in the middle of ``convo embed`` and of a Parquet export:
what is on disk is the old state or the new one, and the next run finishes the work.
(A killed save: ``tests/store/test_killed_save.py``; a killed index build, rm or compact:
``tests/index/test_crash.py``.) The kill is made deterministic: the child signals its own
process at a chosen step."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from convo.core import scratch

from .helpers import write_store

SRC = str(Path(__file__).resolve().parents[2] / "src")

EMBED = """
import os, signal, sys
from convo.embed import vectors

real, calls = vectors.Writer.append, []

def append(self, entries, rows):
    calls.append(len(entries))
    if len(calls) == 2:  # the second batch's rows half on disk, not in the catalogue
        self.f.seek(0, os.SEEK_END)
        self.f.write(rows.astype("<f4").tobytes()[: 1000])
        self.f.flush()
        print(calls[0], file=sys.stderr, flush=True)  # the messages committed
        os.kill(os.getpid(), signal.SIGKILL)
    real(self, entries, rows)

vectors.Writer.append = append
sys.argv = ["convo", "--store", sys.argv[1], "embed"]
from convo.cli.app import main
main()
"""

EXPORT = """
import os, signal, sys
from convo.output.exporters import dataset

def replace(src, dst):  # the whole dataset written, killed before it takes its name
    os.kill(os.getpid(), signal.SIGKILL)

dataset.os.replace = replace
sys.argv = ["convo", "--store", sys.argv[1], "export", "--to", "parquet", "-o", sys.argv[2]]
from convo.cli.app import main
main()
"""


def _run(*args: str, code: str | None = None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-c", textwrap.dedent(code)] if code else [sys.executable, "-m", "convo"]
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([*cmd, *args], env=env, capture_output=True, text=True, timeout=300)


def test_a_killed_embed_keeps_its_committed_batch_and_the_next_run_ends_the_work(tmp_path):
    store = write_store(tmp_path / "s.jsonl", 3000)
    killed = _run(str(store), code=EMBED)
    assert killed.returncode == -9, killed.stderr
    kept = int(killed.stderr.split()[-1])
    check = _run("--store", str(store), "embed", "--check")
    assert check.returncode == 1 and "run `convo embed`" in check.stderr
    again = _run("--store", str(store), "embed")
    assert again.returncode == 0, again.stderr
    assert f"embedded {3000 - kept} new" in again.stderr and f" {kept} unchanged" in again.stderr
    assert _run("--store", str(store), "embed", "--check").returncode == 0
    matrix = tmp_path / "s.jsonl.vectors"
    assert matrix.stat().st_size == 3000 * 256 * 4  # the half batch was cut off


def test_a_killed_parquet_export_leaves_no_dataset_and_a_second_one_is_whole(tmp_path):
    store = write_store(tmp_path / "s.jsonl", 500)
    out, clean = tmp_path / "out", tmp_path / "clean"
    killed = _run(str(store), str(out), code=EXPORT)
    assert killed.returncode == -9, killed.stderr
    assert not out.exists()
    partial = [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
    assert len(partial) == 1 and partial[0].name.startswith(".out.convo-")  # left by SIGKILL
    stale = time.time() - scratch.STALE_SECONDS - 60
    os.utime(partial[0], (stale, stale))  # as if the killed run were a while ago
    for target in (out, clean):
        r = _run("--store", str(store), "export", "--to", "parquet", "-o", str(target))
        assert r.returncode == 0, r.stderr
    assert not partial[0].exists()  # the next export into the folder swept it

    def files(folder: Path) -> dict[str, bytes]:
        return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*.parquet")}

    assert files(out) == files(clean) and files(out)
