"""The planner: every query tree gives the same messages through the index as by the scan.

A property test over random stores (hostile names, times, tags, formats, roles, subjects)
and random trees of every field with AND, OR and NOT; and the plan's description.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st
from tests.index.helpers import write_store
from tests.query.test_language import trees

from convo.index import refresh
from convo.query.model import Query
from convo.query.plan import compile_where, explain
from convo.query.tree import And, Not, Or, Range, Term
from convo.store.select import RawFile, count, select

NAMES = [
    "Alice Smith <alice@x.org>", "alice@x.org", "ALICE", "Bob", "bob jones", "Ana-María Núñez",
    "Straße Weg", "\"Carol\" <c@y.org>", "Dave <dave@z.org>", "assistant", "user", "", "Zoë",
]  # fmt: skip
QUERIES = ["alice", "Alice Smith", "alice@x.org", "bob", "Jones", "ana-maría", "straße",
           "carol", "dave@z.org", "x.org", "zoe", "Zoë", "ASSISTANT", "---"]  # fmt: skip
TAGS = ["Security", "security", "bug", "Release", "ops", "ß"]
TIMES = ["2024-01-01T00:00:00Z", "2023-06-01T12:00:00Z", "2025-02-03T04:05:06Z",
         "2024-01-01T00:00:00+02:00", "not a time", None]  # fmt: skip
BOUNDS = ["2023-01-01T00:00:00Z", "2024-01-01T00:00:00Z", "2024-06-01T00:00:00Z"]
SUBJECTS = [None, "Auth refactor", "STRASSE plans", "Straße", "100% done_now", "Ünïcode", ""]
TEXTS = ["hello world", "Auth tokens", "budget 100%", "Straße", "ünïcode text",
         "E-Mail from İstanbul", "ﬁsh café", "oauth2 v1.2.3 x_y", "日本語の文", "GROSSE",
         "ΐ Σίσυφος ς", "naïve cafe\u0301", "a", "Hello\nWORLD", "e-mail--it's"]  # fmt: skip
# Text words as the full-text index narrows them (index/substring.py): short words,
# case folding, non-ASCII (ß → ss, İ, ligatures, marks), punctuation, CJK, several pieces.
WORDS = ["hello", "auth", "straße", "100%", "ss", "a", "e", "io", "İ", "i̇stanbul", "ﬁ",
         "fi", "café", "cafe", "e-mail", "-mail", "mail-", "v1.2", "2.3", "--", "'s", "x_y",
         "日本", "本", "σ", "ς", "ΐ", "ορ", "grosse", "ASCII", "-", "th2"]  # fmt: skip
FORMATS = ["slack", "Email", "mbox", None, "K"]


@st.composite
def records(draw):
    r: dict = {"id": draw(st.sampled_from([f"m{draw(st.integers(0, 20))}", None, 5]))}
    meta: dict = {}
    if draw(st.booleans()):
        meta["speaker"] = draw(st.sampled_from(NAMES))
    if draw(st.booleans()):
        key = draw(st.sampled_from(["listeners", "recipients"]))
        meta[key] = draw(st.lists(st.sampled_from(NAMES), max_size=3))
    r["metadata"] = meta
    r["timestamp"] = draw(st.sampled_from(TIMES))
    r["tags"] = draw(st.one_of(st.lists(st.sampled_from(TAGS), max_size=3), st.just("ops")))
    r["thread"] = draw(st.sampled_from([None, "m1", "m2", "t9"]))
    r["format"] = draw(st.sampled_from(FORMATS))
    r["role"] = draw(st.sampled_from([None, "assistant", "tool", "weird", "User"]))
    r["subject"] = draw(st.sampled_from(SUBJECTS))
    r["textChunks"] = [draw(st.sampled_from(TEXTS))]
    r["source_id"] = draw(st.sampled_from(["a.mbox#1", "b.vtt#2", None]))
    return {k: v for k, v in r.items() if v is not None}


LEAVES = st.one_of(
    st.builds(Term, st.just("from"), st.sampled_from(QUERIES)),
    st.builds(Term, st.just("to"), st.sampled_from(QUERIES)),
    st.builds(Term, st.just("tag"), st.sampled_from([*TAGS, "SECURITY", "none"])),
    st.builds(Term, st.just("thread"), st.sampled_from(["m1", "m2", "t9", "zz", ""])),
    st.builds(Term, st.just("id"), st.sampled_from(["m1", "m3", "zz"])),
    st.builds(Term, st.just("format"), st.sampled_from(["slack", "email", "MBOX", "k", "x"])),
    st.builds(Term, st.just("role"), st.sampled_from(["user", "ASSISTANT", "tool", "weird"])),
    st.builds(
        Term,
        st.just("subject"),
        st.sampled_from(["auth", "strasse", "%", "_", "ünï", "plans auth"]),
    ),
    st.builds(Term, st.just("words"), st.sampled_from(WORDS)),
    st.builds(Term, st.just("body"), st.sampled_from([*WORDS, "hello auth", "ss a"])),
    st.builds(
        Term,
        st.just("phrase"),
        st.sampled_from(
            ["hello world", "auth tokens", "mail from", "sh café", "e-mail it", "語 の"]
        ),
    ),
    st.builds(Term, st.just("source"), st.sampled_from(["mbox", "B.VTT"])),
    st.builds(Range, st.sampled_from([None, *BOUNDS]), st.sampled_from([None, *BOUNDS])),
)
TREES = trees(LEAVES)
LINES = st.one_of(records(), st.just(b"not json"), st.just(b"[1, 2]"))


def _ids(selection) -> list:
    return [orjson.loads(m.raw).get("id") for b in selection.batches for m in b]


def _lines(items) -> bytes:
    return b"".join((orjson.dumps(x) if isinstance(x, dict) else x) + b"\n" for x in items)


@given(st.lists(LINES, max_size=20), TREES, st.sampled_from([None, "time", "-time"]),
       st.sampled_from([None, 0, 3]), st.sampled_from([None, 2]), st.integers(0, 20))  # fmt: skip
def test_index_and_scan_select_the_same(items, tree, sort, limit, latest, built):
    """The index built from the first ``built`` lines, the rest appended to it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", items[:built])
        assert refresh(path).available
        with open(path, "ab") as f:
            f.write(_lines(items[built:]))
        assert refresh(path).available
        q = Query(tree, limit=limit, sort=sort, latest=latest)
        indexed = select(q, [RawFile(str(path))], store=path)
        scanned = select(q, [RawFile(str(path))], store=None)
        assert _ids(indexed) == _ids(scanned), (indexed.plan, scanned.plan)
        counted, _ = count(q, [RawFile(str(path))], store=path)  # SQL, or candidates checked
        assert counted == len(_ids(select(q, [RawFile(str(path))], store=None)))


@given(st.lists(LINES, max_size=12), st.lists(LINES, max_size=4), st.sampled_from([None, "m1"]))
def test_count_of_everything_is_the_tables(items, more, removed):
    """``--count`` without a filter is the meta table's count (index/lookup.py): equal to
    the rows after a build, an append and a removal."""
    from convo.index.lookup import reader
    from convo.store.api import Store

    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", items)
        assert refresh(path).available
        with open(path, "ab") as f:
            f.write(
                b"".join(
                    orjson.dumps(x) + b"\n" if isinstance(x, dict) else x + b"\n" for x in more
                )
            )
        if removed:
            Store(path).remove(Query(Term("id", removed)))
        assert refresh(path).available
        with reader(path) as r:
            assert not isinstance(r, str)
            assert r.count() == r.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
            kept = set(r.conn.execute("SELECT field, value, n FROM value_counts"))
            assert kept == {
                (f, v, n)
                for f in ("format", "role")
                for v, n in r.conn.execute(
                    f"SELECT {f}, count(*) FROM messages WHERE {f} IS NOT NULL GROUP BY {f}"
                )
            }


@given(
    st.lists(LINES, max_size=12), st.lists(LINES, max_size=4), st.sampled_from([None, "m1", "m2"]),
    st.sampled_from(["format:slack", "format:EMAIL", "role:tool", "role:user", "format:x"]),
    st.booleans(),
)  # fmt: skip
def test_a_format_or_role_count_is_kept_as_its_rows_change(items, more, removed, leaf, negated):
    """``value_counts`` (index/schema.py, ``COUNTS``) counts a format or a role as the
    scan does after a build, an append and a removal (its triggers), alone and negated."""
    from convo.query.language import parse
    from convo.store.api import Store

    tree = parse(("-" if negated else "") + leaf)
    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", items)
        assert refresh(path).available
        with open(path, "ab") as f:
            f.write(_lines(more))
        if removed:
            Store(path).remove(Query(Term("id", removed)))
        assert refresh(path).available
        q = Query(tree)
        counted, chosen = count(q, [RawFile(str(path))], store=path)
        assert chosen.indexed
        assert counted == len(_ids(select(q, [RawFile(str(path))], store=None)))


def _plan(tree):
    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", [{"id": "m1", "textChunks": ["x"]}])
        assert refresh(path).available
        import sqlite3

        conn = sqlite3.connect(str(path) + ".index.sqlite")
        try:
            return compile_where(conn, tree)
        finally:
            conn.close()


def test_explain_names_the_index_for_every_field_it_holds():
    for field in ("from", "to", "tag", "thread", "id", "format", "role"):
        assert explain(_plan(Term(field, "x"))).startswith("plan: index (exact"), field
    assert explain(_plan(Range("2024", None))).startswith("plan: index (exact: date")
    assert "narrowed by: subject" in explain(_plan(Term("subject", "auth")))
    # text words: the full-text index narrows, each candidate is checked
    assert "narrowed by: words; checked on each candidate: words" in explain(
        _plan(Term("words", "auth"))
    )
    assert explain(_plan(Term("words", "--"))).startswith("plan: scan")  # no token in it
    # NOT and OR stay in the index
    tree = Or((Term("from", "alice"), Not(Term("tag", "system"))))
    assert explain(_plan(tree)) == "plan: index (exact: from, tag)"


def test_docs_field_table_is_the_code():
    import re

    from tests.conftest import ROOT

    from convo.query.field_table import markdown_table

    page = (ROOT / "docs" / "query.md").read_text()
    table = re.search(r"<!-- fields:start -->\n(.*?)\n<!-- fields:end -->", page, re.S)
    assert table is not None and table[1] == markdown_table(), (
        "regenerate docs/query.md's table (make docs)"
    )


def test_query_help_is_the_field_table():
    # Written out in the docstring, not built at import: `convo --help` imports no query.
    from convo.cli.commands.read import query
    from convo.query.field_table import help_lines

    doc = [line.strip() for line in (query.__doc__ or "").splitlines()]
    assert all(line.strip() in doc for line in help_lines()), (
        "copy help_lines() into query's docstring"
    )


NEGATED = st.one_of(
    st.builds(Term, st.just("thread"), st.sampled_from(["m1", "t9", "x"])),
    st.builds(Term, st.just("format"), st.sampled_from(["slack", "EMAIL", "k", "none"])),
    st.builds(Term, st.just("tag"), st.sampled_from(TAGS)),
    st.builds(Term, st.just("from"), st.sampled_from(QUERIES)),
    st.builds(Term, st.just("role"), st.sampled_from(["user", "assistant", "weird"])),
    st.builds(Term, st.just("subject"), st.sampled_from(["auth", "straße", ""])),
    st.builds(Range, st.sampled_from([None, *BOUNDS]), st.sampled_from([None, *BOUNDS])),
)


@given(st.lists(LINES, max_size=20), NEGATED)
def test_a_negated_leaf_counts_as_the_total_less_the_leaf(items, leaf):
    """``count`` of ``NOT leaf`` is the total less the leaf's count (plan.complement): the
    same as the scan, a message without the field (NULL in SQL) among the counted."""
    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", items)
        assert refresh(path).available
        q = Query(Not(leaf))
        counted, _ = count(q, [RawFile(str(path))], store=path)
        assert counted == len(_ids(select(q, [RawFile(str(path))], store=None)))


# -- the cost-based shape of a top-level AND (query/drive.py): each full-text leaf drives,
# is read within the smallest leaf's messages, or is left to the check; every shape gives
# the scan's answer.

TEXT_LEAVES = st.one_of(
    st.builds(Term, st.just("words"), st.sampled_from(WORDS)),
    st.builds(Term, st.just("body"), st.sampled_from([*WORDS, "hello auth"])),
    st.builds(Term, st.just("phrase"), st.sampled_from(["hello world", "auth tokens", "語 の"])),
)
ANDS = st.builds(
    lambda texts, others: And(tuple(texts + others)),
    st.lists(TEXT_LEAVES, min_size=1, max_size=2),
    st.lists(st.one_of(LEAVES, TREES), min_size=1, max_size=3),
)


@given(st.lists(LINES, max_size=20), ANDS, st.sampled_from([None, "restrict", "drop"]),
       st.sampled_from([2, 4096]), st.sampled_from([None, "-time"]), st.sampled_from([None, 2]),
       st.integers(0, 20))  # fmt: skip
def test_every_shape_of_an_and_selects_what_the_scan_does(
    items, tree, role, first_cap, sort, latest, built
):
    """``role``: every full-text leaf that does not drive is read within the driver's
    messages, or left to the check (None: as the costs say); ``first_cap`` 2: the counts
    stop at a leaf of 0 or 1 messages, the text leaves then counted to their breakeven."""
    from unittest import mock

    from convo.query import drive

    forced = {"restrict": lambda *a: True, "drop": lambda *a: False}.get(role or "")
    with (
        tempfile.TemporaryDirectory() as tmp,
        mock.patch.object(drive, "restricts", forced or drive.restricts),
        mock.patch.object(drive, "FIRST_CAP", first_cap),
    ):
        path = write_store(Path(tmp) / "s.jsonl", items[:built])
        assert refresh(path).available
        with open(path, "ab") as f:
            f.write(_lines(items[built:]))
        assert refresh(path).available
        q = Query(tree, sort=sort, latest=latest)
        indexed = select(q, [RawFile(str(path))], store=path)
        expected = _ids(select(q, [RawFile(str(path))], store=None))
        assert _ids(indexed) == expected, indexed.plan
        counted, chosen = count(q, [RawFile(str(path))], store=path)
        assert counted == len(expected), chosen.plan


def _shaped(records: list[dict], tree) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", records)
        assert refresh(path).available
        q = Query(tree)
        counted, chosen = count(q, [RawFile(str(path))], store=path)
        assert counted == len(_ids(select(q, [RawFile(str(path))], store=None)))
        return chosen.plan


def test_the_smallest_leaf_drives_and_the_costs_choose_the_role():
    """A word in most messages is read within a rare speaker's messages, or left to the
    check when its rows would cost more than the lines it spares; a rare word drives."""
    from unittest import mock

    from convo.query import drive

    records = [
        {"id": f"m{i}", "timestamp": "2024-01-01T00:00:00Z", "tags": [],
         "metadata": {"speaker": "Quinn" if i % 50 == 0 else "Bob"},
         "textChunks": ["the budget" if i % 3 == 0 else "a rare word" if i % 100 == 1 else "x"]}
        for i in range(300)
    ]  # fmt: skip
    common = And((Term("from", "quinn"), Term("words", "budget")))
    assert "words: read within the messages of from" in _shaped(records, common)
    with mock.patch.object(drive, "C_SCAN", 1000.0):  # rows dearer than lines: left to the check
        assert "words: left to the check" in _shaped(records, common)
    rare = And((Term("from", "bob"), Term("words", "rare")))
    assert "words:" not in _shaped(records, rare)  # its 3 messages drive, the speaker checked


def test_breakeven_is_where_restricting_stops_paying():
    from convo.query.drive import breakeven, restricts

    for driver, total in [(9882, 1_000_025), (10, 1000), (1, 1), (0, 10), (5, 0), (300, 300)]:
        n = breakeven(driver, total)
        assert not restricts(n, driver, total)
        assert n == 0 or restricts(n - 1, driver, total)


@given(
    st.lists(LINES, max_size=14), st.lists(LINES, max_size=4), st.sampled_from([*TAGS, "none"]),
    st.sampled_from([None, "m1", "m2"]), st.sampled_from([(), ("ops",), ("Bug", "bug")]),
    st.booleans(),
)  # fmt: skip
def test_a_tag_is_counted_from_its_rows_as_by_its_condition(
    items, more, tag, removed, added, negated
):
    """``count`` of ``tag:X`` (and ``-tag:X``) counts the tag's rows of ``message_tags``
    (``plan.counted``): the same number as the condition on ``messages`` (the plain
    twin), after a build, an append, a removal and a retagging."""
    from convo.index.lookup import reader
    from convo.query.plan import count as plan_count
    from convo.store.api import Store

    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", items)
        assert refresh(path).available
        with open(path, "ab") as f:
            f.write(_lines(more))
        if removed:
            Store(path).remove(Query(Term("id", removed)))
        if added:
            Store(path).tag(Query(Term("id", "m2")), add=added, remove=["security"])
        assert refresh(path).available
        tree = Not(Term("tag", tag)) if negated else Term("tag", tag)
        with reader(path) as r:
            assert not isinstance(r, str)
            plan = compile_where(r.conn, tree)
            assert plan.counted is not None
            assert plan_count(r, plan) == r.count(plan.cond, plan.params)


EXACT_LEAVES = st.one_of(
    st.builds(Term, st.just("from"), st.sampled_from(QUERIES)),
    st.builds(Term, st.just("tag"), st.sampled_from([*TAGS, "none"])),
    st.builds(Term, st.just("format"), st.sampled_from(["slack", "email", "x"])),
    st.builds(Term, st.just("role"), st.sampled_from(["user", "tool"])),
    st.builds(Range, st.sampled_from([None, *BOUNDS]), st.sampled_from([None, *BOUNDS])),
    st.builds(lambda t: Not(Term("tag", t)), st.sampled_from(TAGS)),
)


@given(
    st.lists(records(), max_size=16),
    st.one_of(
        st.builds(lambda cs: Or(tuple(cs)), st.lists(EXACT_LEAVES, min_size=2, max_size=3)),
        st.builds(Range, st.sampled_from(BOUNDS), st.none()),
        st.builds(Range, st.none(), st.sampled_from(BOUNDS)),
    ),
    st.sampled_from([1, 2, 16]),
)
def test_an_or_and_a_date_bound_count_as_their_condition(items, tree, share):
    """``count`` of an exact OR (the UNION of its alternatives' ids when they are few:
    ``plan.union``, ``share`` moves that bound) and of a one-sided date range (the
    smaller side counted: ``plan.since``) equals the condition's count (the plain twin)."""
    from convo.index.lookup import reader
    from convo.query import plan as planner

    with tempfile.TemporaryDirectory() as tmp:
        path = write_store(Path(tmp) / "s.jsonl", items)
        assert refresh(path).available
        with reader(path) as r:
            assert not isinstance(r, str)
            plan = compile_where(r.conn, tree)
            assert plan.exact
            old, planner.UNION_SHARE = planner.UNION_SHARE, share
            try:
                assert planner.count(r, plan) == r.count(plan.cond, plan.params)
            finally:
                planner.UNION_SHARE = old
