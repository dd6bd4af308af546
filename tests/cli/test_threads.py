"""``convo threads``: one row per conversation, newest first, with the id show takes."""

from __future__ import annotations

import orjson
import pytest
from tests.conftest import SAMPLE_DATA, saved_store
from typer.testing import CliRunner

from convo.cli.app import app


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("threads") / "store.jsonl"
    saved_store(path, SAMPLE_DATA)
    return path


def _run(store, *argv, env=None):
    r = CliRunner().invoke(app, ["--store", str(store), *argv], env=env)
    assert r.exit_code == 0, r.output
    return r


def test_one_row_per_thread_newest_first_with_the_id_show_takes(store):
    rows = [orjson.loads(x) for x in _run(store, "threads", "format:mbox").stdout.splitlines()]
    assert [r["thread"] for r in rows][-1] == "<auth-1@example.org>"
    auth = rows[-1]
    assert auth["title"] == "Auth refactor: JWT vs sessions" and auth["messages"] == 3
    assert auth["participants"][0].startswith("Alice Smith")
    latest = [r["latest"] for r in rows]
    assert latest == sorted(latest, reverse=True)
    shown = _run(store, "show", "-f", "jsonl", "--thread", auth["thread"]).stdout
    assert len(shown.splitlines()) == auth["messages"]


def test_the_query_and_the_row_limit(store):
    every = _run(store, "threads").stdout.splitlines()
    two = _run(store, "threads", "-n", "2").stdout.splitlines()
    assert two == every[:2]
    alice = [orjson.loads(x) for x in _run(store, "threads", "from:alice").stdout.splitlines()]
    assert alice and all(any("Alice" in p for p in r["participants"]) for r in alice)


def test_a_table_on_a_terminal_keeps_times_and_ids_whole(store):
    r = _run(store, "threads", "-n", "3", env={"CONVO_FORCE_TTY": "1", "COLUMNS": "80"})
    assert "…" not in "".join(line[:22] for line in r.stdout.splitlines())  # the times
    rows = [orjson.loads(x) for x in _run(store, "threads", "-n", "3").stdout.splitlines()]
    flat = r.stdout.replace("\n", "").replace(" ", "")
    assert all(row["thread"].replace(" ", "") in flat for row in rows)
