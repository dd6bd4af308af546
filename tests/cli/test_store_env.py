"""``$CONVO_STORE`` says where the store is, not what to read (DESIGN.md's input rule).

A person sets the variable once in a shell profile; ``convo ingest a.vtt | convo query
-s Alice`` must still read the pipe. ``--store`` given on the command line reads the
store (a ``while read`` loop's stdin is not input), and says so on stderr when a pipe
with data is being ignored.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import SAMPLE_DATA

VTT = SAMPLE_DATA / "transcripts" / "standup.vtt"


def _convo(*argv, env=None, stdin=None):
    full = {**os.environ, **(env or {})}
    full.pop("CONVO_FORCE_TTY", None)
    return subprocess.run(
        [sys.executable, "-m", "convo", *argv], input=stdin, capture_output=True, env=full,
        timeout=120,
    )  # fmt: skip


def test_a_pipe_is_read_when_convo_store_is_set(tmp_path):
    store = tmp_path / "store.jsonl"
    mail = _convo("ingest", str(SAMPLE_DATA / "email" / "team.mbox"), "-o", str(store))
    assert mail.returncode == 0, mail.stderr
    piped = _convo("ingest", str(VTT)).stdout
    assert piped
    env = {"CONVO_STORE": str(store)}
    r = _convo("list", "--count", env=env, stdin=piped)
    assert r.returncode == 0 and int(r.stdout) == len(piped.splitlines())
    r = _convo("query", "-f", "jsonl", "from:alice", env=env, stdin=piped)
    assert all(b"standup.vtt" in line for line in r.stdout.splitlines())


def test_an_explicit_store_is_read_and_the_pipe_is_named(tmp_path):
    store = tmp_path / "store.jsonl"
    assert (
        _convo("ingest", str(SAMPLE_DATA / "email" / "team.mbox"), "-o", str(store)).returncode == 0
    )
    piped = _convo("ingest", str(VTT)).stdout
    r = _convo("--store", str(store), "list", "--count", stdin=piped)
    assert r.returncode == 0 and int(r.stdout) == len(store.read_bytes().splitlines())
    assert b"not the data piped to standard input" in r.stderr
    r = _convo("list", "--store", str(store), "--count", stdin=piped)
    assert int(r.stdout) == len(store.read_bytes().splitlines())
