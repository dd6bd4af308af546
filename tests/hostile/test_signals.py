"""§4 and §6: SIGTERM and SIGHUP are handled as Ctrl-C is (nothing left behind, exit
128 + the signal), workers die with their parent, and a killed rebuild keeps the index."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux signals")
SRC = str(Path(__file__).resolve().parents[2] / "src")


def _big_store(path: Path, n: int = 60_000) -> Path:
    with path.open("wb") as f:
        for i in range(n):
            rec = {
                "textChunks": [f"message {i} with a few more words in it " * 4],
                "metadata": {"speaker": f"S{i % 50}", "listeners": []},
                "tags": [],
                "timestamp": "2024-01-01T00:00:00Z",
                "source_id": f"x#{i}",
                "id": f"m{i}",
                "format": "slack",
            }
            f.write(orjson.dumps(rec) + b"\n")
    return path


def _convo(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.Popen(
        [sys.executable, "-m", "convo", *args],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )


def _wait_for(check, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
@pytest.mark.parametrize("command", [["tag", "add", "x", "--speaker", "S1"], ["compact"]])
def test_a_signal_during_a_rewrite_leaves_nothing(tmp_path, signum, code, command):
    store = _big_store(tmp_path / "s.jsonl")
    before = store.read_bytes()
    proc = _convo("--store", str(store), *command)
    _wait_for(lambda: any(tmp_path.glob(".s.jsonl.*.rewrite")) or proc.poll() is not None)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    if proc.returncode == 0:
        pytest.skip("the rewrite finished before the signal")
    assert proc.returncode == code, err
    assert err.decode().strip().endswith(f"terminated ({signal.Signals(signum).name})")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".s.jsonl.lock", "s.jsonl"]
    assert store.read_bytes() == before


def test_a_signal_as_the_rewrite_copy_is_made_leaves_nothing(tmp_path, monkeypatch):
    """The copy's file exists from ``mkstemp`` on, before the rewrite holds its name: a
    signal there (what the test above hits when it signals as the file appears) left it."""
    from convo.store import Store, rewrite

    store = _big_store(tmp_path / "s.jsonl", 10)
    before = store.read_bytes()

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(rewrite.os, "fdopen", interrupted)
    with pytest.raises(KeyboardInterrupt):
        Store(store).compact()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".s.jsonl.lock", "s.jsonl"]
    assert store.read_bytes() == before


def test_a_signal_during_an_index_rebuild_keeps_the_old_index(tmp_path):
    store = _big_store(tmp_path / "s.jsonl")
    assert _convo("--store", str(store), "index").wait(timeout=60) == 0
    index = tmp_path / "s.jsonl.index.sqlite"
    old = index.read_bytes()
    proc = _convo("--store", str(store), "index", "--rebuild")
    _wait_for(lambda: any(tmp_path.glob("s.jsonl.index.sqlite.tmp-*")) or proc.poll() is not None)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    assert proc.returncode in (0, 143)
    assert index.exists()
    assert not list(tmp_path.glob("*.tmp-*")) and not list(tmp_path.glob("*-journal"))
    if proc.returncode == 143:
        assert index.read_bytes() == old


def test_a_signal_as_the_new_index_is_made_leaves_nothing(tmp_path, monkeypatch):
    """The new index's file exists from its connection on, before the rebuild holds the
    connection: a signal there (the test above signals as the file appears) left it."""
    from convo.index import build, refresh, schema

    store = _big_store(tmp_path / "s.jsonl", 10)
    assert refresh(store, create=True, wait=True).available
    old = (tmp_path / "s.jsonl.index.sqlite").read_bytes()
    connect = schema.connect

    def interrupted(path, *args, **kwargs):
        conn = connect(path, *args, **kwargs)
        conn.execute("CREATE TABLE made (x)")  # the file is made
        conn.close()
        raise KeyboardInterrupt

    monkeypatch.setattr(build.schema, "connect", interrupted)
    with pytest.raises(KeyboardInterrupt):
        refresh(store, create=True, wait=True, rebuild_all=True)
    assert not list(tmp_path.glob("*.tmp-*"))
    assert (tmp_path / "s.jsonl.index.sqlite").read_bytes() == old


def test_a_killed_index_rebuild_keeps_the_old_index(tmp_path):
    store = _big_store(tmp_path / "s.jsonl")
    assert _convo("--store", str(store), "index").wait(timeout=60) == 0
    proc = _convo("--store", str(store), "index", "--rebuild")
    _wait_for(lambda: any(tmp_path.glob("s.jsonl.index.sqlite.tmp-*")) or proc.poll() is not None)
    proc.kill()
    proc.wait()
    check = _convo("--store", str(store), "index", "--check")
    _, err = check.communicate(timeout=60)
    assert check.returncode == 0, err
    assert b"matches" in err


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_workers_end_with_their_parent(tmp_path, signum):
    folder = tmp_path / "in"
    folder.mkdir()
    for n in range(4):
        _big_store(folder / f"p{n}.jsonl", 40_000)
    proc = _convo("ingest", "-j2", str(folder), "-o", str(tmp_path / "out.jsonl"))
    _wait_for(lambda: len(_children(proc.pid)) >= 2 or proc.poll() is not None)
    workers = _children(proc.pid)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    if signum == signal.SIGTERM:
        assert proc.returncode == 143, err
        assert b"Traceback" not in err and b"Exception ignored" not in err, err
        assert not list(tmp_path.glob(".out.jsonl.*"))
    _wait_for(lambda: not any(_alive(w) for w in workers), timeout=10)


_DROPPED = """
import os, signal, time
from convo.cli.signals import catch_signals

catch_signals()


class Finalizer:
    def __del__(self):  # a hook Python calls from C, as an at-fork hook is
        os.kill(os.getpid(), signal.SIG{name})
        for _ in range(100):  # the handler runs here; Python drops what it raises
            pass


Finalizer()
try:
    time.sleep(20)
    print("lost")
except KeyboardInterrupt as e:
    print(type(e).__name__, getattr(e, "signum", None))
"""


def _as_on_a_terminal() -> None:
    """The child's signals as a terminal's shell leaves them: a suite run under nohup or
    as a background job has SIGHUP or SIGINT ignored, and convo keeps an ignored one
    ignored (``cli/signals.py``), so the test would then see nothing to raise."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


@pytest.mark.parametrize("name", ["TERM", "HUP", "INT"])
def test_a_signal_dropped_in_a_hook_is_raised_again(name):
    """A signal whose exception lands in a finalizer or an at-fork hook (a pool forking
    its workers) is raised again in ordinary code: it was lost, and the command ran on
    to exit 0 with "Exception ignored in" on stderr."""
    env = {**os.environ, "PYTHONPATH": SRC}
    done = subprocess.run(
        [sys.executable, "-c", _DROPPED.format(name=name)],
        env=env,
        capture_output=True,
        timeout=60,
        preexec_fn=_as_on_a_terminal,
    )
    kind = "KeyboardInterrupt" if name == "INT" else "Terminated"
    number = "None" if name == "INT" else str(int(signal.Signals[f"SIG{name}"]))
    assert done.stdout.decode().split() == [kind, number], done.stderr
    assert b"Exception ignored" not in done.stderr


def test_a_signal_wrapped_in_another_error_is_still_an_interruption(capsys):
    """A signal that lands while a class is being made (an import) reaches the command
    as RuntimeError('Error calling __set_name__ ...') caused by Terminated: exit 129/143."""
    from convo.cli.runtime import guarded
    from convo.core.errors import Terminated

    def call():
        try:
            raise Terminated(signal.SIGHUP)
        except Terminated as e:
            raise RuntimeError("Error calling __set_name__ on 'Field'") from e

    assert guarded(call) == 129
    assert "internal error" not in capsys.readouterr().err
