"""``ingest --warnings FILE``: a log a user can follow with ``tail -f`` during a long run.

Each warning is in the file when it is reported (one whole line, one write), the file is
emptied when the run starts (an unwritable path fails before anything is read), it is
never read as an input (a folder input that holds it skips it), and a write the disk
cuts short leaves no half line (``convo.core.logfile``). The rejects file, which holds
data, stays atomic (``tests/cli/test_rejects_file.py``)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from convo.cli.app import app
from convo.core import guard
from convo.core.errors import InputError
from convo.core.logfile import LineLog

GOOD = b'{"textChunks": ["m%d"], "metadata": {"speaker": "A"}, "timestamp": "2024-01-01T00:00:00Z"}'
SRC = str(Path(__file__).resolve().parents[2] / "src")


def _convo(*args: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.Popen(
        [sys.executable, "-m", "convo", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _wait_for_line(path: Path, proc: subprocess.Popen, limit: float = 120) -> bytes:
    """The file's bytes once it holds a warning (or the run ended, or ``limit`` seconds)."""
    end = time.monotonic() + limit
    while time.monotonic() < end and proc.poll() is None:
        if path.exists() and b'"kind"' in path.read_bytes():
            break
        time.sleep(0.05)
    return path.read_bytes() if path.exists() else b""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_warning_is_in_the_file_before_the_run_ends(tmp_path):
    """A first input with a bad line, then a FIFO nobody writes yet (a slow input): the
    run cannot end, and the warning must already be in the file, whole. (In one process:
    with ``--jobs`` the plan reads each input's head first, which a FIFO blocks; there a
    unit's warnings come when its worker is done with it.)"""
    first = tmp_path / "a.jsonl"
    first.write_bytes(GOOD % 1 + b"\n{broken\n" + GOOD % 3 + b"\n")
    slow = tmp_path / "slow.jsonl"
    os.mkfifo(slow)
    log = tmp_path / "w.jsonl"
    log.write_bytes(b"an earlier run's line\n")
    args = [
        "ingest",
        "a.jsonl",
        "slow.jsonl",
        "-j",
        "1",
        "-o",
        "out.jsonl",
        "--warnings",
        "w.jsonl",
    ]
    proc = _convo(*args, cwd=tmp_path)
    try:
        seen = _wait_for_line(log, proc)
        assert proc.poll() is None, proc.communicate()  # still reading the slow input
        lines = [orjson.loads(x) for x in seen.splitlines()]
        assert seen.endswith(b"\n") and len(lines) == 1
        assert lines[0]["kind"] == "rejected" and lines[0]["line"] == 2
        with open(slow, "wb") as w:  # the slow input arrives: the run ends
            w.write(GOOD % 4 + b"\n")
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1, err
    assert log.read_bytes() == seen
    assert len((tmp_path / "out.jsonl").read_bytes().splitlines()) == 3


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("where", ["plain/w.jsonl", "folder"])
def test_an_unwritable_warnings_file_fails_before_reading(tmp_path, where):
    """The input is a FIFO nobody writes: a run that read before opening the warnings
    file would block; it must end at once, with one line and nothing written."""
    (tmp_path / "plain").write_text("a file, not a folder")
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "in.jsonl")
    proc = _convo("ingest", "in.jsonl", "-o", "out.jsonl", "--warnings", where, cwd=tmp_path)
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 2, err
    text = err.decode()
    assert text.count("\n") == 1 and "Traceback" not in text
    assert ("cannot write here" if where.startswith("plain") else "is a directory") in text
    assert not (tmp_path / "out.jsonl").exists()


def test_the_file_is_never_read_as_an_input(runner, tmp_path):
    """A folder input holding the warnings file: read, it would reject its own lines and
    write more of them while it is read. It is skipped with one rejection instead."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(GOOD % 1 + b"\n{broken\n")
    log = folder / "w.jsonl"
    for jobs in ("1", "2"):
        r = runner.invoke(app, ["ingest", str(folder), "-j", jobs, "-o", str(tmp_path / "o.jsonl"),
                                "--warnings", str(log)])  # fmt: skip
        assert r.exit_code == 1, r.output
        lines = [orjson.loads(x) for x in log.read_bytes().splitlines()]
        assert [x["file"] for x in lines] == [str(folder / "a.jsonl"), str(log)], lines
        assert "written by this run: not read" in lines[1]["message"]
        assert len((tmp_path / "o.jsonl").read_bytes().splitlines()) == 1
        log.write_bytes(b"")  # a second run: an empty file there may be emptied again


def test_a_file_with_data_in_a_folder_read_is_not_emptied(runner, tmp_path):
    """Emptied at the start, an input of the folder would be lost before it is read."""
    folder = tmp_path / "in"
    folder.mkdir()
    data = folder / "chat.jsonl"
    data.write_bytes(GOOD % 1 + b"\n")
    r = runner.invoke(
        app, ["ingest", str(folder), "-o", str(tmp_path / "o.jsonl"), "--warnings", str(data)]
    )
    assert r.exit_code == 2 and "refusing to empty a file of an input folder" in r.output
    assert "Traceback" not in r.output
    assert data.read_bytes() == GOOD % 1 + b"\n"
    assert not (tmp_path / "o.jsonl").exists()


def test_each_line_is_one_write(tmp_path, monkeypatch):
    calls: list[bytes] = []
    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, b: calls.append(bytes(b)) or real(fd, b))
    log = LineLog(str(tmp_path / "w.jsonl"), "the log")
    try:
        log.write(b'{"a": 1}\n')
        assert (tmp_path / "w.jsonl").read_bytes() == b'{"a": 1}\n'  # there before close
        log.write(b'{"b": 2}\n')
    finally:
        log.close()
    assert calls == [b'{"a": 1}\n', b'{"b": 2}\n']


def test_a_write_cut_short_leaves_no_half_line(tmp_path, monkeypatch):
    path = tmp_path / "w.jsonl"
    log = LineLog(str(path), "the log")
    log.write(b'{"whole": 1}\n')
    real = os.write
    calls = []

    def short(fd, data):  # the disk fills half-way through the line
        calls.append(1)
        if len(calls) == 1:
            return real(fd, bytes(data[:5]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", short)
    with pytest.raises(InputError) as e:
        log.write(b'{"cut": 2}\n')
    monkeypatch.setattr(os, "write", real)
    log.close()
    assert "cannot write here" in str(e.value) and str(path) in str(e.value)
    assert path.read_bytes() == b'{"whole": 1}\n'
    assert not guard._written  # closed: no longer refused as an input
