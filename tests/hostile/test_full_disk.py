"""§5: a rewrite (tag, rm, compact) that meets a full disk is one located line, and its
partial copy is removed. The disk fills through RLIMIT_FSIZE (EFBIG), in a child."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import write_store

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _small_files() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))


@pytest.mark.parametrize(
    "command",
    [["tag", "add", "x", "--speaker", "Alice"], ["rm", "id:m1"], ["compact"]],
)
def test_a_full_disk_during_a_rewrite(tmp_path, command):
    store = write_store(tmp_path / "s.jsonl", 3000)
    with store.open("ab") as f:
        f.write(b"junk for compact\n")
    before = store.read_bytes()
    assert len(before) > 400_000
    proc = subprocess.run(
        [sys.executable, "-m", "convo", "--store", str(store), *command],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        preexec_fn=_small_files,
        timeout=60,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{store}: file too large; nothing was changed" in err
    assert store.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".s.jsonl.lock", "s.jsonl"]
