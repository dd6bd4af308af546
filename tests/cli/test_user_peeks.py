"""A new user's first looks at a store: the last few messages, the first few."""

from __future__ import annotations

from typer.testing import CliRunner
from tests.conftest import SAMPLE_DATA, saved_store

from convo.cli.app import app


def _run(*args: str):
    return CliRunner().invoke(app, list(args))


def test_the_last_messages_in_store_order_come_from_the_index(tmp_path):
    """`convo list -n 5 --reverse` read the whole store (3.3 s on 100 MB) though the index
    finds the last lines by offset: it is planned there now, with the scan's answer."""
    store = saved_store(tmp_path / "s.jsonl", SAMPLE_DATA, index=True)
    lines = store.read_bytes().splitlines()
    for n in ("1", "5", "1000"):
        r = _run("--store", str(store), "list", "-n", n, "--reverse", "--explain", "-f", "jsonl")
        assert r.exit_code == 0, r.output
        assert "plan: index" in r.stderr
        assert r.stdout_bytes.splitlines() == lines[::-1][: int(n)]
    scanned = _run("--store", str(store), "list", "--reverse", "--explain", "-f", "jsonl")
    assert "plan: scan" in scanned.stderr  # no limit: the whole store, read as it lies
    assert scanned.stdout_bytes.splitlines() == lines[::-1]
    # a store appended to after the index was built: the index follows (or the scan reads)
    extra = b'{"textChunks":["the very last"],"metadata":{"speaker":"Zed","listeners":[]},'
    extra += b'"tags":[],"timestamp":"2025-01-01T00:00:00Z","source_id":"x#1","id":"zz","format":"jsonl"}\n'
    with open(store, "ab") as f:
        f.write(extra)
    r = _run("--store", str(store), "list", "-n", "2", "--reverse", "-f", "jsonl")
    assert r.stdout_bytes.splitlines() == [extra.rstrip(b"\n"), lines[-1]]
