"""The command modules on a throwaway Typer app (the lead registers them on convo's)."""

from __future__ import annotations

import orjson
import pytest
import typer
from tests.index.helpers import rec, write_store
from typer.testing import CliRunner

from convo.cli.commands import index as index_cmd
from convo.cli.commands import maintain, search
from convo.index import check, index_path, status


@pytest.fixture
def app():
    test_app = typer.Typer()

    @test_app.callback()
    def main(store: str | None = typer.Option(None, "--store")) -> None:
        """convo."""
        from convo.cli.runtime import state

        state.update(store=store, store_named=bool(store))  # as the real app's callback

    for module in (index_cmd, search, maintain):
        module.register(test_app)
    return test_app


@pytest.fixture
def store(tmp_path, monkeypatch):
    path = write_store(
        tmp_path / "store.jsonl",
        [
            rec(1, text="the budget review", speaker="Alice"),
            rec(2, text="budget \x1b[31mred\x1b[0m alert", speaker="Bob \u202eevil"),
            rec(3, text="nothing here", speaker="Carol"),
            rec(3, text="a duplicate"),
        ],
    )
    monkeypatch.setenv("CONVO_STORE", str(path))
    return path


def run(app, *argv, input=None):
    return CliRunner().invoke(app, list(argv), input=input)


def test_index_build_check_drop(app, store):
    r = run(app, "index")
    assert r.exit_code == 0, r.output
    assert status(store).fresh
    assert run(app, "index").exit_code == 0
    assert run(app, "index", "--check").exit_code == 0
    assert run(app, "index", "--rebuild").exit_code == 0
    import sqlite3

    conn = sqlite3.connect(index_path(store))
    conn.execute("DELETE FROM messages WHERE message_id = 1")
    conn.commit()
    conn.close()
    r = run(app, "index", "--check")
    assert r.exit_code == 1 and "does not match" in r.output
    assert run(app, "index", "--drop").exit_code == 0 and not index_path(store).exists()
    assert run(app, "index", "--drop", "--check").exit_code == 2


def test_global_store_option(app, tmp_path):
    other = write_store(tmp_path / "other.jsonl", [rec(1)])
    assert run(app, "--store", str(other), "index").exit_code == 0
    assert index_path(other).exists()


def test_search_jsonl_with_scores(app, store):
    r = run(app, "search", "budget")
    assert r.exit_code == 0, r.output
    docs = [orjson.loads(x) for x in r.stdout.splitlines()]
    assert [d["id"] for d in docs] == ["m1", "m2"] or {d["id"] for d in docs} == {"m1", "m2"}
    assert all("score" in d for d in docs)
    r = run(app, "search", "budget", "--speaker", "alice", "-f", "json")
    assert [d["id"] for d in orjson.loads(r.stdout)] == ["m1"]
    r = run(app, "search", "budget", "-q", "alert")
    assert [orjson.loads(x)["id"] for x in r.stdout.splitlines()] == ["m2"]


def test_search_table_escapes_untrusted_text(app, store, monkeypatch):
    monkeypatch.setenv("CONVO_FORCE_TTY", "1")
    monkeypatch.setenv("COLUMNS", "200")  # wide enough that no name is cut
    r = run(app, "search", "budget", "-f", "table")
    assert r.exit_code == 0, r.output
    assert "\x1b[31mred" not in r.stdout and "\u202e" not in r.stdout
    assert "\\x1b" in r.stdout and "\\u202e" in r.stdout


def test_search_syntax_error_is_one_line_exit_2(app, store):
    r = run(app, "search", "--fts", '"unbalanced')
    assert r.exit_code == 2
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "bad search query" in lines[0] and "Traceback" not in r.output


def test_search_without_index_says_so_once(app, store, monkeypatch):
    monkeypatch.setenv("CONVO_NO_INDEX", "1")
    r = run(app, "search", "budget")
    assert r.exit_code == 0
    assert r.stderr.count("index not available") == 1


def test_rm_dry_run_then_yes(app, store):
    r = run(app, "rm", "m1", "--dry-run")
    assert r.exit_code == 2 and "id:m1" in r.stderr  # an id typed as a word: a hint, not text
    r = run(app, "rm", "id:m1", "--dry-run")
    assert r.exit_code == 0 and r.stdout.strip() == "m1" and b'"m1"' in store.read_bytes()
    r = run(app, "rm", "--speaker", "alice", "--yes")
    assert r.exit_code == 0 and b'"m1"' not in store.read_bytes()
    assert run(app, "rm").exit_code == 2  # nothing selected


def test_tag_add_rm_and_compact(app, store):
    run(app, "index")
    assert run(app, "tag", "add", "Urgent", "id:m2").exit_code == 0
    assert b"Urgent" in store.read_bytes() and check(store).ok
    assert run(app, "tag", "rm", "urgent", "--speaker", "bob").exit_code == 0
    assert b"Urgent" not in store.read_bytes() and check(store).ok
    r = run(app, "compact")
    assert r.exit_code == 0 and "1 repeated id " in r.output
    assert check(store).ok
