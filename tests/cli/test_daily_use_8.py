"""Daily use, round 8: what a new user tripped on, each reproduced on the command line."""

from __future__ import annotations

import orjson
from typer.testing import CliRunner

from convo.cli.app import app


def _invoke(*args: str, input: str | None = None, env: dict | None = None):
    return CliRunner().invoke(app, list(args), input=input, env=env)


def _rec(i: int, ts: str = "2024-03-06T10:00:00Z", **kw) -> dict:
    return {"textChunks": [f"message {i}"], "metadata": {"speaker": "Alice", "listeners": []},
            "tags": [], "timestamp": ts, "source_id": f"s#{i}", "id": f"m{i}", "format": "jsonl",
            **kw}  # fmt: skip


def _store(tmp_path, n: int = 3):
    store = tmp_path / "s.jsonl"
    store.write_bytes(b"".join(orjson.dumps(_rec(i)) + b"\n" for i in range(n)))
    return store


def test_an_empty_export_of_an_indexed_store_does_not_say_0_of_0_read(tmp_path):
    """`convo export --to markdown tag:nope -o out.md` on a store of 3,356 messages said
    "no messages match; 0 of 0 read", as if the store were empty: the index answered and
    read no line. Only the scan's count of lines looked at is said."""
    store = _store(tmp_path)
    assert _invoke("--store", str(store), "index").exit_code == 0
    r = _invoke("--store", str(store), "export", "--to", "markdown", "tag:nope",
                "-o", str(tmp_path / "out.md"))  # fmt: skip
    assert r.exit_code == 0, r.output
    assert r.stderr == "convo: no messages match\n"
