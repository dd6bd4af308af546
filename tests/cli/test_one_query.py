"""One query, every command: the same messages from every command that takes a query.

A table of queries (fields, negation, OR, parentheses, dates read in a non-UTC ``TZ``,
people's aliases) is run through ``query``, ``list``, ``show -f jsonl``, ``export``,
``search`` (the query as its filter), ``rm --dry-run`` and ``tag --dry-run``, with a
fresh index and without one (``CONVO_NO_INDEX=1``): every command selects the same ids,
and ``--explain`` says "index" for every field the index holds.
"""

from __future__ import annotations

import time

import orjson
import pytest
from tests.conftest import SAMPLE_DATA, saved_store
from typer.testing import CliRunner

from convo.cli.app import app

QUERIES = [
    "from:alice", "from:\"Alice Smith\"", "to:bob", "tag:security", "-tag:system",
    "tag:urgent OR tag:security", "format:mbox", "format:SLACK", "role:assistant",
    "role:user -format:chatgpt", "subject:auth", "subject:\"auth refactor\"",
    "thread:<auth-1@example.org>", "id:<auth-2@example.org>", "source:team.mbox",
    "jwt", "\"jwt tokens\"", "jwt -from:bob", "from:alice OR tag:security",
    "NOT (from:alice OR format:slack)", "(from:bob OR from:carol) tag:security",
    "date:2024-03-06", "date:2024-03-06T09:00..", "date:..2024-03-06T10:01",
    "date:2024-03", "date:2024..2025 role:tool", "from:alice date:2024-03-06T10:00..",
    "text:sessions", "format:mbox OR format:slack OR format:discord",
    "from:ally", "to:ally -tag:security", "NOT NOT from:bob", "from:nobody",
]  # fmt: skip
PEOPLE = """
[people.alice]
name = "Alice Smith"
names = ["Alice Smith", "Alice", "alice_dev", "Ally"]
addresses = ["alice@example.org"]
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("one-query")
    path = folder / "store.jsonl"
    saved_store(path, SAMPLE_DATA)
    people = folder / "people.toml"
    people.write_text(PEOPLE)
    return path, people


@pytest.fixture(autouse=True)
def _los_angeles(monkeypatch):
    monkeypatch.setenv("TZ", "America/Los_Angeles")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _run(store, *argv, no_index=False):
    path, people = store
    env = {"CONVO_NO_INDEX": "1" if no_index else "0"}
    base = ["--store", str(path), "--people", str(people)]
    r = CliRunner().invoke(app, [*base, *argv], env=env)
    assert r.exit_code == 0, (argv, r.output)
    return r


def _ids(output: str) -> list[str]:
    return [orjson.loads(x)["id"] for x in output.splitlines() if x.startswith("{")]


def _only_fields(q: str) -> bool:
    from convo.query.search_text import split

    return not split(q).pieces


def _all(store, q: str, no_index: bool) -> dict[str, list[str]]:
    """The ids each command selects for ``q`` (sorted where the order differs)."""
    run = lambda *a: _run(store, *a, no_index=no_index)  # noqa: E731
    out = {
        "query": _ids(run("query", "-f", "jsonl", "--", q).stdout),
        "list": _ids(run("list", "-f", "jsonl", "--", q).stdout),
        "show": _ids(run("show", "-f", "jsonl", "--", q).stdout),
        "rm": sorted(run("rm", "--dry-run", "--", q).stdout.split()),
        "tag": sorted(run("tag", "+checked", "--dry-run", "--", q).stdout.split()),
    }
    if _only_fields(q):  # search ranks its free words; its field terms are the filter
        out["search"] = sorted(
            _ids(run("search", "-f", "jsonl", "--limit", "1000", "--", q).stdout)
        )
    exported = run("export", "--to", "typeagent", "--jsonl", "--", q).stdout
    out["export"] = [orjson.loads(x)["source_id"] for x in exported.splitlines() if x.strip()]
    return out


@pytest.mark.parametrize("q", QUERIES)
def test_every_command_selects_the_same(store, q):
    indexed = _all(store, q, no_index=False)
    scanned = _all(store, q, no_index=True)
    assert indexed == scanned
    want = indexed["query"]
    assert indexed["list"] == want and indexed["show"] == want
    assert indexed["rm"] == sorted(want) and indexed["tag"] == sorted(want)
    if "search" in indexed:
        assert indexed["search"] == sorted(want)
    assert len(indexed["export"]) == len(want)


def test_naive_times_are_local_everywhere(store):
    # 09:00 in Los Angeles is 17:00 UTC: the same count from list and rm.
    listed = _run(store, "list", "--since", "2024-03-06T09:00", "--count").stdout.strip()
    removed = _run(store, "rm", "--since", "2024-03-06T09:00", "--dry-run").stdout.split()
    assert int(listed) == len(removed)
    utc = _run(store, "list", "--since", "2024-03-06T09:00", "--utc", "--count").stdout.strip()
    assert int(utc) != int(listed)


def test_people_aliases_apply_to_rm(store):
    assert _run(store, "rm", "--dry-run", "from:ally").stdout.split()
    n = _run(store, "query", "from:ally", "--count").stdout.strip()
    assert int(n) == len(_run(store, "rm", "--dry-run", "from:ally").stdout.split())


@pytest.mark.parametrize(
    ("q", "fields"),
    [("from:alice", "from"), ("to:bob", "to"), ("tag:x", "tag"), ("format:mbox", "format"),
     ("role:tool", "role"), ("thread:x", "thread"), ("id:x", "id"), ("date:2024", "date"),
     ("from:alice OR -tag:system", "from, tag")],
)  # fmt: skip
def test_explain_says_index(store, q, fields):
    _run(store, "index")
    r = _run(store, "query", "--explain", "--count", "--", q)
    assert f"plan: index (exact: {fields})" in r.stderr


def test_explain_says_scan_and_why(store):
    r = _run(store, "query", "--explain", "--", "budget")
    assert "plan: index (narrowed by: words; checked on each candidate: words)" in r.stderr
    r = _run(store, "query", "--explain", "--", "jwt from:bob")
    assert "plan: index (narrowed by: words, from; checked on each candidate: words)" in r.stderr
    r = _run(store, "query", "--explain", "--", "the")  # in most messages: the scan is cheaper
    assert "plan: scan (over 1/8 of the messages are candidates; checked on each line: words)" in (
        r.stderr
    )
    r = _run(store, "query", "--explain", "--", "--")  # no token to look for
    assert "plan: scan (the index holds none of: words)" in r.stderr


def test_n_limits_the_rows_people_shows(store):
    names = orjson.loads(_run(store, "people", "-f", "json").stdout)["identities"]
    two = orjson.loads(_run(store, "people", "-f", "json", "-n", "2").stdout)["identities"]
    assert len(names) > 2 and two == names[:2]


def test_a_range_that_ends_before_it_starts_is_a_usage_error(store):
    """``--since`` not before ``--until`` (swapped, or the same day with the exclusive
    end) answered 0 without a word; every command now says why (one line, exit 2)."""
    path, _ = store
    for argv in (["query", "--count", "--since", "2025", "--until", "2024"],
                 ["stats", "--since", "2024-03-06", "--until", "2024-03-06"],
                 ["rm", "--dry-run", "--since", "2024-03-07", "--until", "2024-03-06"]):  # fmt: skip
        r = CliRunner().invoke(app, ["--store", str(path), *argv])
        assert r.exit_code == 2, r.output
        assert "is not before --until" in r.stderr and "--until is exclusive" in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
