"""Indexed lookups select exactly what the scan selects (property test over random stores)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st
from tests.index.helpers import write_store

from convo.core import fields
from convo.index import IndexQuery, lookup, refresh
from convo.query.scan import Filters, select

NAMES = [
    "Alice Smith <alice@x.org>", "alice@x.org", "ALICE", "Bob", "bob jones", "Ana-María Núñez",
    "Straße Weg", "\"Carol\" <c@y.org>", "Dave <dave@z.org>", "assistant", "user", "", "Zoë",
]  # fmt: skip
QUERIES = ["alice", "Alice Smith", "alice@x.org", "bob", "Jones", "ana-maría", "straße",
           "carol", "dave@z.org", "smith alice", "x.org", "zoe", "Zoë", "ASSISTANT", "---"]  # fmt: skip
TAGS = ["Security", "security", "bug", "Release", "ops", "ß"]
TIMES = ["2024-01-01T00:00:00Z", "2023-06-01T12:00:00Z", "2025-02-03T04:05:06Z",
         "2024-01-01T00:00:00+02:00", "not a time", None]  # fmt: skip
BOUNDS = ["2023-01-01T00:00:00Z", "2024-01-01T00:00:00Z", "2024-06-01T00:00:00Z"]


@st.composite
def records(draw, i: int = 0):
    r: dict = {"id": draw(st.sampled_from([f"m{draw(st.integers(0, 30))}", None, 5]))}
    meta: dict = {}
    if draw(st.booleans()):
        meta["speaker"] = draw(st.sampled_from(NAMES))
    if draw(st.booleans()):
        key = draw(st.sampled_from(["listeners", "recipients"]))
        meta[key] = draw(st.lists(st.sampled_from(NAMES), max_size=3))
    r["metadata"] = meta
    ts = draw(st.sampled_from(TIMES))
    if ts is not None:
        r["timestamp"] = ts
    tags = draw(st.one_of(st.lists(st.sampled_from(TAGS), max_size=3), st.just("ops")))
    r["tags"] = tags
    r["thread"] = draw(st.sampled_from([None, "m1", "m2", "t9"]))
    r["format"] = draw(st.sampled_from(["slack", "email", None]))
    r["role"] = draw(st.sampled_from([None, "assistant", "tool", "weird"]))
    r["textChunks"] = ["hello"]
    return {k: v for k, v in r.items() if v is not None}


lines = st.one_of(records(), st.just(b"not json"), st.just(b"[1, 2]"))


@st.composite
def filters(draw):
    return {
        "speakers": draw(st.lists(st.sampled_from(QUERIES), max_size=2)),
        "listeners": draw(st.lists(st.sampled_from(QUERIES), max_size=2)),
        "tags": draw(st.lists(st.sampled_from([*TAGS, "SECURITY", "none"]), max_size=2)),
        "since": draw(st.sampled_from([None, *BOUNDS])),
        "until": draw(st.sampled_from([None, *BOUNDS])),
        "threads": draw(st.lists(st.sampled_from(["m1", "m2", "t9", "zz"]), max_size=2)),
    }


def _good(items) -> list[dict]:
    return [r for r in items if isinstance(r, dict)]


@given(st.lists(lines, max_size=25), filters())
def test_index_selects_what_the_scan_selects(items, f):
    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", items)
        assert refresh(path).available
        got = lookup(path, IndexQuery(**f))
        assert not isinstance(got, str), got
        want = list(select(_good(items), Filters(**f)))
        assert [orjson.loads(x) for x in got] == want


@given(st.lists(lines, max_size=25), filters(), st.one_of(st.none(), st.integers(0, 5)))
def test_reverse_and_limit_are_the_scans(items, f, limit):
    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", items)
        refresh(path)
        got = lookup(path, IndexQuery(**f), order="-store", limit=limit)
        assert not isinstance(got, str)
        want = list(select(_good(items), Filters(**f, reverse=True, limit=limit)))
        assert [orjson.loads(x) for x in got] == want


@given(
    st.lists(records(), max_size=25),
    st.lists(st.sampled_from(["slack", "email", "x"]), max_size=2),
    st.lists(st.sampled_from(["user", "assistant", "tool", "system"]), max_size=2),
    st.sampled_from(["store", "time", "-time"]),
    st.one_of(st.none(), st.integers(0, 6)),
)
def test_format_role_order_and_latest(items, formats, roles, order, latest):
    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", items)
        refresh(path)
        got = lookup(path, IndexQuery(formats=formats, roles=roles), order=order, latest=latest)
        assert not isinstance(got, str)
        want = [
            (i, r) for i, r in enumerate(items)
            if (not formats or fields.string(r, "format") in formats)
            and (not roles or fields.role(r) in roles)
        ]  # fmt: skip
        key = lambda p: (fields.timestamp(p[1]), p[0])  # noqa: E731
        if latest is not None:
            want = sorted(want, key=key)[max(0, len(want) - latest) :] if latest else []
            want = sorted(want, key=key, reverse=order == "-time")
            if order == "store":
                want = sorted(want, key=key)
        elif order != "store":
            want = sorted(want, key=key, reverse=order == "-time")
        assert [orjson.loads(x) for x in got] == [r for _, r in want]
