"""Temporary files a SIGKILLed run leaves are swept by the next write into their folder
(``convo.core.scratch``): only when their process is gone and they are stale, never a
live writer's, never a name of another form."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from convo.core import scratch
from convo.core.atomic import atomic_writer

SRC = str(Path(__file__).resolve().parents[2] / "src")
STALE = time.time() - scratch.STALE_SECONDS - 60

WRITER = """
import sys, time
from convo.core.atomic import atomic_writer
with atomic_writer(sys.argv[1]) as out:
    out.write(b'{"half": "a rec')
    out.flush()
    print("writing", flush=True)
    time.sleep(600)
"""


def _writer(out: Path) -> subprocess.Popen:
    """A child in the middle of an atomic write of ``out``, its temporary file on disk."""
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(WRITER), str(out)],
        env=env, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
    return proc


def _temporaries(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if scratch.owned(p.name) is not None]


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(proc.stdout)


def _age(path: Path) -> None:
    os.utime(path, (STALE, STALE))


def test_a_sigkilled_writers_temporary_file_is_swept_by_the_next_write(tmp_path):
    out = tmp_path / "out.jsonl"
    proc = _writer(out)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL
    (left,) = _temporaries(tmp_path)
    assert not out.exists() and scratch.owned(left.name) == proc.pid
    assert left.name.startswith(".out.jsonl.convo-") and left.name.endswith(".tmp")
    _age(left)
    with atomic_writer(tmp_path / "other.jsonl") as f:  # the next write into the folder
        f.write(b"{}\n")
    assert not left.exists() and _temporaries(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.jsonl"]


def test_a_live_writers_temporary_file_is_never_swept(tmp_path):
    out = tmp_path / "out.jsonl"
    proc = _writer(out)
    try:
        (held,) = _temporaries(tmp_path)
        _age(held)  # even when it looks old
        assert scratch.sweep(tmp_path, again=True) == []
        with atomic_writer(tmp_path / "other.jsonl") as f:
            f.write(b"{}\n")
        assert held.exists()
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize(
    "name",
    [
        ".out.jsonl.k3j9x0ab.tmp",  # the form without a process id
        ".out.jsonl.convo-{pid}-k3j9x0ab.tmpx",  # another ending
        ".out.jsonl.convo-{pid}-k3j9x0ab.txt",
        "out.jsonl.convo-{pid}-k3j9x0ab.tmp",  # not hidden
        ".out.jsonl.convo-{pid}-K3J9X0AB.tmp",  # not mkstemp's letters
        ".out.jsonl.convo-{pid}-k3j9.tmp",
        ".out.jsonl.convo-0-k3j9x0ab.tmp",
        ".out.jsonl.convo-x{pid}-k3j9x0ab.tmp",
        ".out.jsonl.convo-{pid}-k3j9x0ab.tmp.bak",
        "notes.convo-{pid}.tmp",
        "convo-{pid}-k3j9x0ab.spool-a.vtt",
    ],
)
def test_a_file_of_a_similar_name_is_never_swept(tmp_path, name):
    path = tmp_path / name.format(pid=_dead_pid())
    path.write_bytes(b"the user's own")
    _age(path)
    assert scratch.sweep(tmp_path) == []
    assert path.read_bytes() == b"the user's own"


def test_only_regular_files_and_folders_are_swept(tmp_path):
    pid = _dead_pid()
    target = tmp_path / "kept.txt"
    target.write_text("mine")
    link = tmp_path / f".out.convo-{pid}-k3j9x0ab.tmp"
    link.symlink_to(target)
    folder = tmp_path / f".out.convo-{pid}-k3j9x0ab.partial"
    (folder / "format=vtt").mkdir(parents=True)
    (folder / "format=vtt" / "part-0.parquet").write_bytes(b"PAR1")
    os.utime(link, (STALE, STALE), follow_symlinks=False)
    _age(folder)
    assert scratch.sweep(tmp_path) == [folder.name]
    assert link.is_symlink() and target.read_text() == "mine" and not folder.exists()


def test_a_dead_processs_fresh_file_is_kept(tmp_path):
    """The process id may mean nothing here (reused, another machine's): the age decides."""
    left = tmp_path / f".a.convo-{_dead_pid()}-k3j9x0ab.tmp"
    left.write_bytes(b"")
    assert scratch.sweep(tmp_path) == [] and left.exists()


def test_a_folder_is_swept_once_per_process(tmp_path):
    assert scratch.sweep(tmp_path) == []
    left = tmp_path / f".a.convo-{_dead_pid()}-k3j9x0ab.tmp"
    left.write_bytes(b"")
    _age(left)
    assert scratch.sweep(tmp_path) == [] and left.exists()
    assert scratch.sweep(tmp_path, again=True) == [left.name]


def test_a_killed_ingest_jobs_folder_in_tmpdir_is_swept_by_the_next_jobs_run(tmp_path):
    tmpdir = tmp_path / "tmp"
    left = tmpdir / f".convo-{_dead_pid()}-k3j9x0ab.jobs"
    left.mkdir(parents=True)
    (left / "tmpk3j9x0ab.events").write_bytes(b"events of a killed run")
    _age(left)
    mine = tmpdir / "convo-notes.txt"
    mine.write_text("not convo's")
    _age(mine)
    inputs = []
    for i in range(2):
        path = tmp_path / f"m{i}.vtt"
        path.write_text(f"WEBVTT\n\n00:00.000 --> 00:01.000\n<v A>hello {i}\n")
        inputs.append(str(path))
    env = {**os.environ, "PYTHONPATH": SRC, "TMPDIR": str(tmpdir)}
    r = subprocess.run(
        [sys.executable, "-m", "convo", "ingest", "--jobs", "2", "-o", str(tmp_path / "o.jsonl"),
         *inputs],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == 2
    assert sorted(p.name for p in tmpdir.iterdir()) == ["convo-notes.txt"]
