"""``list``/``query``/``show`` through the index give what the scan gives (property test
over generated stores, filters and --sort/--latest/--count/--limit/--reverse), fall back
to the scan with one note, and see a store changed behind convo's back."""

from __future__ import annotations

import tempfile
from pathlib import Path

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.index.helpers import rec, write_store
from tests.query.test_plan import BOUNDS, QUERIES, TAGS, records
from typer.testing import CliRunner

from convo.cli.app import app
from convo.index import drop, refresh, status

NOTE = "index not available"


def run(store: Path, *argv: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, ["--store", str(store), *argv], env=env)


@st.composite
def options(draw) -> list[str]:
    argv: list[str] = []
    for flag, values in (
        ("--speaker", QUERIES), ("--listener", QUERIES), ("--tag", [*TAGS, "o", "SECURITY"]),
        ("--thread", ["m1", "t9"]), ("--text", ["hello", "zzz"]),  # an empty value: exit 2
    ):  # fmt: skip
        for v in draw(st.lists(st.sampled_from(values), max_size=2 if flag != "--text" else 1)):
            argv += [flag, v]
    since, until = (draw(st.one_of(st.none(), st.sampled_from(BOUNDS))) for _ in range(2))
    if since is not None and until is not None and since >= until:
        since, until = (until, since) if since > until else (since, None)  # an empty range: exit 2
    argv += ["--since", since] if since is not None else []
    argv += ["--until", until] if until is not None else []
    sort = draw(st.sampled_from([None, "time", "-time"]))
    argv += ["--sort", sort] if sort else []
    for flag in ("--latest", "--limit"):
        n = draw(st.one_of(st.none(), st.integers(0, 6)))
        argv += [flag, str(n)] if n is not None else []
    argv += ["--reverse"] if draw(st.booleans()) else []
    return argv


@settings(max_examples=40)
@given(st.lists(records(), max_size=20), options(), st.booleans())
def test_reads_through_the_index_are_the_scans(items, argv, count):
    argv = [*argv, "--count"] if count else argv
    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", items)
        scanned = run(path, "query", "-f", "jsonl", "--utc", *argv, env={"CONVO_NO_INDEX": "1"})
        assert refresh(path).available
        indexed = run(path, "query", "-f", "jsonl", "--utc", *argv)
        assert (indexed.exit_code, scanned.exit_code) == (0, 0), indexed.output
        assert indexed.stdout == scanned.stdout
        assert NOTE not in indexed.stderr


def _lines(result) -> list[str]:
    return [orjson.loads(x)["id"] for x in result.stdout.splitlines()]


def test_sort_latest_and_count(tmp_path):
    items = [rec(i, speaker="Alice" if i in (1, 3) else "Bob") for i in (5, 3, 9, 1, 7)]
    path = write_store(tmp_path / "s.jsonl", items)
    for indexed in (False, True):
        if indexed:
            refresh(path)
        assert _lines(run(path, "list", "--sort", "time")) == ["m1", "m3", "m5", "m7", "m9"]
        assert _lines(run(path, "list", "--sort", "-time", "-n", "2")) == ["m9", "m7"]
        assert _lines(run(path, "list", "--latest", "2")) == ["m7", "m9"]
        assert _lines(run(path, "list", "--latest", "2", "--reverse")) == ["m9", "m7"]
        assert _lines(run(path, "query", "-s", "bob", "--latest", "1")) == ["m9"]
        assert run(path, "query", "-s", "alice", "--count").stdout == "2\n"
        assert run(path, "list", "--latest", "3", "--count").stdout == "3\n"
    r = run(path, "list", "--latest", "-1")
    assert r.exit_code == 2 and "--latest" in r.output


def test_fallback_says_so_once_and_a_plain_list_says_nothing(tmp_path):
    path = write_store(tmp_path / "s.jsonl", [rec(i) for i in range(5)])
    r = run(path, "query", "--speaker", "alice", "--latest", "2")
    assert r.exit_code == 0 and r.stderr.count(NOTE) == 1 and "no index" in r.stderr
    assert len(_lines(r)) == 2
    assert NOTE not in run(path, "list").stderr  # nothing to gain from an index


def test_a_store_changed_behind_convos_back(tmp_path):
    path = write_store(tmp_path / "s.jsonl", [rec(i) for i in range(5)])
    refresh(path)
    with open(path, "ab") as f:  # appended: only the tail is indexed, then answered
        f.write(orjson.dumps(rec(7, speaker="Zed")) + b"\n")
    r = run(path, "query", "--speaker", "zed")
    assert _lines(r) == ["m7"] and NOTE not in r.stderr and status(path).fresh
    path.write_bytes(path.read_bytes().replace(b"Zed", b"Yan"))  # edited: rebuilt, answered
    r = run(path, "query", "--speaker", "yan")
    assert _lines(r) == ["m7"] and NOTE not in r.stderr and status(path).fresh
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:2]))  # truncated
    assert _lines(run(path, "list", "--latest", "5")) == ["m0", "m1"]
    drop(path)


def test_lines_that_are_not_records_are_reported(tmp_path):
    path = write_store(tmp_path / "s.jsonl", [rec(1), b"not json", rec(2, speaker="Bob")])
    refresh(path)
    r = run(path, "query", "--speaker", "bob")
    assert _lines(r) == ["m2"] and r.exit_code == 1
    assert "1 line is not a record" in r.stderr


@settings(max_examples=30)
@given(
    st.lists(records(), max_size=20),
    st.sampled_from(QUERIES),
    st.sampled_from(QUERIES),
    st.sampled_from(TAGS),
    st.booleans(),
)
def test_query_language_trees_through_the_index_are_the_scans(items, a, b, tag, sort):
    """A tree the flat filters cannot say (its flat fields are prefilter hints) must not
    be answered by the index as if they were the filter."""
    queries = [
        f'(from:"{a}" tag:{tag}) OR (from:"{b}" -tag:{tag})',
        f'from:"{a}" OR to:"{b}"',
        f'NOT from:"{a}"',
    ]
    extra = ["--sort", "-time"] if sort else []
    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", items)
        for q in queries:
            argv = ["query", "-f", "jsonl", "--utc", *extra, "--", q]
            scanned = run(path, *argv, env={"CONVO_NO_INDEX": "1"})
            assert refresh(path).available
            indexed = run(path, *argv)
            assert (indexed.exit_code, scanned.exit_code) == (0, 0), indexed.output
            assert indexed.stdout == scanned.stdout, q
