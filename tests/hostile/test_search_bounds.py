"""§7: a search's work is bounded: a query of too many terms (or characters) is one
clear line at once, and a query within the bound stays fast."""

from __future__ import annotations

import time

import pytest

from convo.cli.app import app
from convo.index.search import MAX_QUERY_CHARS, MAX_TERMS

from .helpers import write_store


@pytest.fixture
def store(tmp_path, runner):
    s = write_store(tmp_path / "s.jsonl", 200)
    assert runner.invoke(app, ["--store", str(s), "index"]).exit_code == 0
    return s


@pytest.mark.parametrize(
    "query, what",
    [
        (" OR ".join(f"w{i}" for i in range(MAX_TERMS + 1)), "too many search terms"),
        (" ".join(f"w{i}" for i in range(5000)), "too long"),
        ("x" * (MAX_QUERY_CHARS + 1), "too long"),
    ],
)
def test_a_huge_fts_query_is_refused_at_once(runner, store, query, what):
    start = time.monotonic()
    r = runner.invoke(app, ["--store", str(store), "search", "--fts", "--", query])
    assert r.exit_code == 2, r.output
    assert what in r.output
    assert time.monotonic() - start < 5


def test_a_typed_search_ranks_a_bounded_number_of_words_and_says_so(runner, store):
    start = time.monotonic()
    words = " ".join(["message"] + [f"w{i}" for i in range(5000)])
    r = runner.invoke(app, ["--store", str(store), "search", "-f", "jsonl", "--", words])
    assert r.exit_code == 0, r.output
    assert "the first 64" in r.stderr
    assert time.monotonic() - start < 5


def test_a_query_at_the_bound_is_fast(runner, store):
    query = " OR ".join(["message"] + [f"w{i}" for i in range(MAX_TERMS - 1)])
    start = time.monotonic()
    r = runner.invoke(
        app, ["--store", str(store), "search", "--fts", query, "-f", "jsonl", "--limit", "500"]
    )
    assert r.exit_code == 0, r.output
    assert r.output.count("\n") == 200
    assert time.monotonic() - start < 5


def test_a_speaker_of_many_words_is_no_internal_error(tmp_path):
    """``-s`` with more than 500 words made one SQL term a word, over SQLite's limit
    ("too many terms in compound SELECT"): an internal error, found by the MCP attack."""
    import orjson
    from typer.testing import CliRunner

    from convo.cli.app import app
    from convo.index.state import refresh

    store = tmp_path / "s.jsonl"
    rec = {"textChunks": ["hello"], "metadata": {"speaker": "Ann Lee", "listeners": []},
           "tags": [], "timestamp": "2024-01-01T00:00:00Z", "source_id": "x", "id": "m1",
           "format": "convo"}  # fmt: skip
    store.write_bytes(orjson.dumps(rec) + b"\n")
    assert refresh(store, create=True).available
    many = " ".join(f"w{i}" for i in range(600))
    runner = CliRunner()
    for command in (["query"], ["search", "hello"]):
        r = runner.invoke(app, ["--store", str(store), *command, "-s", many, "-f", "jsonl"])
        assert r.exit_code == 0, r.output
        assert r.stdout == ""
    r = runner.invoke(app, ["--store", str(store), "query", "-s", "ann lee", "-f", "jsonl"])
    assert orjson.loads(r.stdout)["id"] == "m1"
