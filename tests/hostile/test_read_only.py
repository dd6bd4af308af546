"""§10: a store on a read-only mount: every index command is one clear line, --check
tells a matching index from a stale one, and a stale index is not blamed on a writer.
The mount is a read-only bind mount in a private user and mount namespace (unshare)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from .helpers import record, write_store

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _read_only(folder: Path, *args: str) -> subprocess.CompletedProcess:
    convo = shlex.join([sys.executable, "-m", "convo", "--store", str(folder / "s.jsonl"), *args])
    d = shlex.quote(str(folder))
    script = f"mount --bind {d} {d} && mount -o remount,bind,ro {d} && exec {convo}"
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        timeout=60,
    )


@pytest.fixture
def folder(tmp_path, runner):
    from convo.cli.app import app

    if shutil.which("unshare") is None:
        pytest.skip("no unshare")
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("no user namespaces")
    store = write_store(tmp_path / "s.jsonl")
    r = runner.invoke(app, ["--store", str(store), "index"])
    assert r.exit_code == 0, r.output
    return tmp_path


def test_check_of_a_matching_index(folder):
    r = _read_only(folder, "index", "--check")
    assert r.returncode == 0, r.stderr
    assert b"index matches the store" in r.stderr


@pytest.mark.parametrize("args", [["index"], ["index", "--rebuild"], ["index", "--drop"]])
def test_index_commands_are_one_line(folder, args):
    with (folder / "s.jsonl").open("ab") as f:
        f.write(orjson.dumps(record(9)) + b"\n")  # stale
    r = _read_only(folder, *args)
    assert r.returncode == 2, r.stderr
    err = r.stderr.decode()
    assert err.count("\n") == 1 and "internal error" not in err
    assert "read-only file system" in err and "being written" not in err


def test_a_stale_index_is_not_blamed_on_a_writer(folder):
    with (folder / "s.jsonl").open("ab") as f:
        f.write(orjson.dumps(record(9)) + b"\n")
    r = _read_only(folder, "search", "message")
    assert r.returncode == 0, r.stderr
    assert b"being written" not in r.stderr
    assert r.stdout.count(b"\n") == 4
