"""Queries nested deep: 5,000 parentheses or NOTs were a RecursionError (an internal
error, from the command line, the Store API and the MCP tools alike), and twenty levels
of NOT around AND or OR made SQL SQLite's parser could not hold ("parser stack
overflow"). The language refuses more than ``MAX_DEPTH`` levels in one line; under it,
a condition SQLite refuses leaves every line to the exact check."""

from __future__ import annotations

import orjson
import pytest

from convo.cli.app import app
from convo.core.errors import UsageError
from convo.query.language import MAX_DEPTH, parse
from convo.store import Store

from .helpers import record


@pytest.fixture
def store(tmp_path, runner):
    path = tmp_path / "s.jsonl"
    rows = [record(n, tags=["t"] if n % 3 else []) for n in range(30)]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    assert runner.invoke(app, ["--store", str(path), "index"]).exit_code == 0
    return path


def _nested(levels: int) -> str:
    """NOT (tag:t OR NOT (tag:t OR ... message)): odd levels select nothing, even ones
    the messages without the tag."""
    return "NOT (tag:t OR " * levels + "message" + ")" * levels


@pytest.mark.parametrize(
    "query",
    ["(" * 5000 + "x" + ")" * 5000, "NOT " * 5000 + "x", "-" * 3 + "(" * 200 + "x" + ")" * 200],
)
def test_a_query_nested_too_deep_is_one_usage_error(runner, store, query):
    with pytest.raises(UsageError) as e:
        parse(query)
    assert f"nested deeper than {MAX_DEPTH}" in e.value.what
    r = runner.invoke(app, ["--store", str(store), "query", "--", query])
    assert r.exit_code == 2
    assert "nested deeper than" in r.output and "internal error" not in r.output


def test_the_deepest_query_allowed_is_answered(store):
    parse("(" * MAX_DEPTH + "x" + ")" * MAX_DEPTH)
    assert Store(store).count("NOT " * MAX_DEPTH + "message") == 30


@pytest.mark.parametrize("levels", [24, 25, 49])
def test_sql_too_deep_for_sqlite_is_checked_on_each_line(runner, store, levels):
    want = 0 if levels % 2 else 10  # the ten messages without the tag
    assert Store(store).count(_nested(levels)) == want
    r = runner.invoke(
        app, ["--store", str(store), "query", "--count", "--explain", "--", _nested(levels)]
    )
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == str(want)
    assert "the query nests too deep for the index's SQL" in r.stderr
    r = runner.invoke(
        app,
        ["--store", str(store), "query", "--sort", "time", "-f", "jsonl", "--", _nested(levels)],
    )
    assert r.exit_code == 0, r.output
    assert len(r.stdout.splitlines()) == want


@pytest.mark.parametrize(
    "query, want",
    [
        (" OR ".join(f"tag:w{i}" for i in range(1000)) + " OR tag:t", 20),  # a UNION of 1,001
        (" ".join(f"-tag:w{i}" for i in range(1000)), 30),  # an AND 1,000 deep
        (" ".join(f"NOT (tag:w{i} OR from:w{i})" for i in range(600)) + " tag:t", 20),
    ],
)
def test_a_query_of_a_thousand_terms_is_answered(runner, store, query, want):
    assert Store(store).count(query) == want
    r = runner.invoke(app, ["--store", str(store), "query", "--count", "--", query])
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == str(want)
