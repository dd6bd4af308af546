"""The query language: parsing, errors at their column, meaning, and the prefilter.

The property tests check the two promises that matter: any text either parses or is
one located UsageError, and the byte-prefiltered scan of any tree selects exactly the
records the tree's own check selects (an OR never skips a line a branch would take).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from convo.cli.app import app
from convo.core.errors import UsageError
from convo.query.language import parse
from convo.query.scan import Selector
from convo.query.tree import And, Not, Or, Range, Term, to_filters

EXAMPLE = 'from:alice to:bob tag:urgent date:2024-03.. subject:auth "jwt tokens" -tag:spam'


def test_the_issue_example_parses_to_one_and():
    node = parse(EXAMPLE)
    assert node == And((
        Term("from", "alice"), Term("to", "bob"), Term("tag", "urgent"),
        Range("2024-03-01T00:00:00Z", None), Term("subject", "auth"),
        Term("phrase", "jwt tokens"), Not(Term("tag", "spam")),
    ))  # fmt: skip


def test_precedence_not_then_and_then_or():
    assert parse("a b OR NOT c") == Or(
        (And((Term("words", "a"), Term("words", "b"))), Not(Term("words", "c")))
    )
    assert parse("a (b OR c)") == And(
        (Term("words", "a"), Or((Term("words", "b"), Term("words", "c"))))
    )
    assert parse("speaker:x listener:y") == parse("from:x to:y")
    assert parse('from:"Alice Smith"') == Term("from", "Alice Smith")
    assert parse("a or b") == parse("a AND or AND b")  # lower-case "or" is a word
    assert parse("   ") is None


def test_a_month_alone_is_that_month():
    assert parse("date:2024-03") == Range("2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z")
    assert parse("date:2024-12") == Range("2024-12-01T00:00:00Z", "2025-01-01T00:00:00Z")
    assert parse("date:2024-02-29") == Range("2024-02-29T00:00:00Z", "2024-03-01T00:00:00Z")
    assert parse("date:..2024") == Range(None, "2024-01-01T00:00:00Z")


def test_a_day_word_or_a_time_alone_is_that_period_as_notmuch_reads_it():
    """`date:yesterday` ran on to now (today's messages too), and `date:2024-03-06T10:00`
    meant everything after it, where `date:2024-03-06` is that day: a time alone is its
    hour, minute or second, and the day words are their day; ages and now run on."""
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    now = datetime(2024, 3, 10, 3, 0, tzinfo=UTC)
    day = "2024-03-09T00:00:00Z", "2024-03-10T00:00:00Z"
    assert parse("date:yesterday", now=now) == Range(*day)
    assert parse("date:today", now=now) == Range("2024-03-10T00:00:00Z", "2024-03-11T00:00:00Z")
    kathmandu = ZoneInfo("Asia/Kathmandu")  # +05:45: its yesterday began 18:15 UTC
    assert parse("date:YESTERDAY", now=now, zone=kathmandu) == Range(
        "2024-03-08T18:15:00Z", "2024-03-09T18:15:00Z"
    )
    assert parse("date:2024-03-06T10") == Range("2024-03-06T10:00:00Z", "2024-03-06T11:00:00Z")
    assert parse('date:"2024-03-06 10:00"') == Range("2024-03-06T10:00:00Z", "2024-03-06T10:01:00Z")
    assert parse("date:2024-03-06T10:00:05+01:00") == Range(
        "2024-03-06T09:00:05Z", "2024-03-06T09:00:06Z"
    )
    assert parse("date:7d", now=now) == Range("2024-03-03T03:00:00Z", None)
    assert parse("date:now", now=now) == Range("2024-03-10T03:00:00Z", None)
    assert parse("date:2024-03-06T10:00..", now=now) == Range("2024-03-06T10:00:00Z", None)


def test_after_and_before_are_the_ends_of_a_date_range():
    """Gmail's and Slack's words, as their users type them: ``after:A`` is ``date:A..``
    (from A on, as --since), ``before:B`` is ``date:..B`` (B excluded, as --until)."""
    assert parse("after:2024-03-06") == Range("2024-03-06T00:00:00Z", None)
    assert parse("before:2024-03") == Range(None, "2024-03-01T00:00:00Z")
    assert parse("after:2024/03/06 before:2024/03/08") == parse(
        "date:2024-03-06.. date:..2024-03-08"
    )
    assert parse('AFTER:"2024-03-06 10:00"') == Range("2024-03-06T10:00:00Z", None)


@pytest.mark.parametrize(
    ("query", "col", "what"),
    [
        ('from:alice tag:"jwt', 16, "unclosed quote"),
        ("a OR", 5, "OR needs something after it"),
        ("(a b", 1, "unclosed ("),
        ("a )", 3, "unmatched )"),
        ("nosuch:x", 1, "unknown field nosuch:"),
        ("a from:", 3, "from: needs a value"),
        ("date:blursday..", 1, "bad date:blursday.."),
        ("a after:2024..2025", 3, "after: takes one time"),
        ("date:2025..2024", 1, "date:2025..2024 ends before it starts"),
        ("x date:2024-03-06..2024-03-06", 3, "date:2024-03-06..2024-03-06 ends before"),
        ("()", 2, "empty parentheses"),
        ("NOT", 4, "NOT needs something after it"),
    ],
)
def test_a_syntax_error_names_its_column(query, col, what):
    with pytest.raises(UsageError) as e:
        parse(query)
    assert e.value.where == f"query:{col}"
    assert e.value.what.startswith(what)


def test_cli_syntax_error_is_one_line_exit_2(tmp_path):
    store = tmp_path / "s.jsonl"
    store.write_bytes(b"")
    r = CliRunner().invoke(app, ["--store", str(store), "query", 'from:alice tag:"jwt'])
    assert r.exit_code == 2
    assert r.stderr.startswith("convo: error: query:16: unclosed quote;")
    assert r.stderr.count("\n") == 1


FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "views.jsonl"


def _ids(*args: str) -> list[str]:
    r = CliRunner().invoke(app, [args[0], "-f", "jsonl", *args[1:]])
    assert r.exit_code == 0, r.stderr
    return [orjson.loads(line)["id"] for line in r.stdout.splitlines()]


@pytest.mark.parametrize(
    ("query", "options"),
    [
        ("from:alice", ["-s", "alice"]),
        ("from:alice OR from:bob", ["-s", "alice", "-s", "bob"]),
        ("tag:security jwt", ["--tag", "security", "-q", "jwt"]),
        ("date:2024-03-07..", ["--since", "2024-03-07"]),
    ],
)
def test_options_are_sugar_for_the_same_tree(query, options):
    assert _ids("query", query, str(FIXTURE)) == _ids("list", *options, str(FIXTURE))
    args = dict(zip(options[::2], options[1::2], strict=True))
    assert args  # the flat form: the option scan, byte prefilter and all
    assert to_filters(parse(query)).tree is None


def test_not_and_or_select_what_they_say():
    every = _ids("list", str(FIXTURE))
    alice = _ids("list", "-s", "alice", str(FIXTURE))
    not_alice = _ids("query", "--", "-from:alice", str(FIXTURE))  # a leading - needs --
    assert sorted(alice + not_alice) == sorted(every)
    assert _ids("query", "NOT from:alice", str(FIXTURE)) == not_alice
    either = _ids("query", "from:alice OR tag:standup", str(FIXTURE))
    standup = _ids("list", "--tag", "standup", str(FIXTURE))
    assert set(either) == set(alice) | set(standup)
    assert _ids("query", "format:mbox role:user", str(FIXTURE)) == _ids(
        "query", "source:.mbox", str(FIXTURE)
    )


def test_query_and_options_and_together():
    assert _ids("query", "tag:standup", str(FIXTURE), "-s", "bob") == _ids(
        "list", "--tag", "standup", "-s", "bob", str(FIXTURE)
    )


# -- properties ---------------------------------------------------------------------------

NAMES = ["Alice", "Bob Jones <bob@x.org>", "carol", "Straße", "alice_dev", None]
WORDS = ["jwt", "tokens", "auth", "Ünïcode", "ok", "\\u0041"]
TAGS = ["urgent", "spam", "Projects, Auth"]


@st.composite
def records(draw):
    r = {
        "id": f"m{draw(st.integers(0, 5))}",
        "timestamp": draw(st.sampled_from(["2024-03-06T10:00:00Z", "2024-05-01T00:00:00Z", "2023-01-01T00:00:00Z"])),
        "textChunks": [" ".join(draw(st.lists(st.sampled_from(WORDS), max_size=3)))],
        "metadata": {"speaker": draw(st.sampled_from(NAMES)),
                     "listeners": draw(st.lists(st.sampled_from([n for n in NAMES if n]), max_size=2))},
        "tags": draw(st.lists(st.sampled_from(TAGS), max_size=2)),
        "format": draw(st.sampled_from(["mbox", "vtt", "\u212avtt", "MBOX"])),
    }  # fmt: skip
    if draw(st.booleans()):
        r["subject"] = draw(st.sampled_from(WORDS))
    return r


LEAVES = st.one_of(
    st.builds(Term, st.just("from"), st.sampled_from(["alice", "bob", "Jones", "strasse", "carol"])),
    st.builds(Term, st.just("to"), st.sampled_from(["bob", "carol", "alice"])),
    st.builds(Term, st.just("tag"), st.sampled_from(["urgent", "SPAM", "Projects, Auth"])),
    # A "words" term is one word: the parser makes a quoted run of words a phrase.
    st.builds(Term, st.sampled_from(["words", "subject", "body", "phrase"]), st.sampled_from(["jwt", "auth", "jwt tokens", "ünï", "a"])).filter(lambda t: t.field != "words" or " " not in t.value),
    st.builds(Term, st.just("format"), st.sampled_from(["mbox", "VTT"])),
    st.builds(Range, st.sampled_from([None, "2024-03-01T00:00:00Z"]), st.sampled_from([None, "2024-04-01T00:00:00Z"])),
)  # fmt: skip


def trees(leaves):
    """Trees of ``leaves`` with AND, OR and NOT (tests/query/test_plan.py draws them too)."""
    return st.recursive(
        leaves,
        lambda kids: st.one_of(
            st.builds(lambda c: And(tuple(c)), st.lists(kids, min_size=2, max_size=3)),
            st.builds(lambda c: Or(tuple(c)), st.lists(kids, min_size=2, max_size=3)),
            st.builds(Not, kids),
        ),
        max_leaves=6,
    )


TREES = trees(LEAVES)


class _Part:
    name = "p"
    reopenable = False

    def __init__(self, data: bytes):
        self.data = data

    def open(self):
        return io.BytesIO(self.data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TREES, st.lists(records(), max_size=8), st.sampled_from(["orjson", "python", "chunks"]))
def test_the_prefiltered_scan_selects_what_the_tree_says(node, recs, layout):
    """In convo's layout and in Python's ``json.dumps`` one (spaces, ``\\u`` escapes, maybe
    ``text_chunks``)."""
    if layout == "chunks":
        recs = [
            {("text_chunks" if k == "textChunks" else k): v for k, v in r.items()} for r in recs
        ]
    data = b"".join(
        (orjson.dumps(r) if layout == "orjson" else json.dumps(r).encode()) + b"\n" for r in recs
    )
    sel = Selector(to_filters(node))
    got = [m.record for m in sel.select_parts([_Part(data)])]
    want = [r for r in recs if node.check()(r)]
    assert got == want


def _show(node) -> str:
    """A tree written back in the language (the inverse the parser must honour)."""
    if isinstance(node, Term):
        field = {"words": "", "phrase": "", "body": "text:"}.get(node.field, node.field + ":")
        return f'{field}"{node.value}"'
    if isinstance(node, Range):
        return f"date:{node.since or ''}..{node.until or ''}"
    if isinstance(node, Not):
        return f"NOT ({_show(node.child)})"
    op = " OR " if isinstance(node, Or) else " "
    return "(" + op.join(_show(c) for c in node.children) + ")"


@settings(max_examples=150, deadline=None)
@given(TREES, st.lists(records(), max_size=6))
def test_a_tree_written_out_parses_to_the_same_meaning(node, recs):
    again = parse(_show(node))
    assert again is not None
    assert [again.check()(r) for r in recs] == [node.check()(r) for r in recs]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=' ab:()"-ORNTANDfrom.', max_size=30))
def test_any_text_parses_or_is_one_located_error(text):
    try:
        parse(text)
    except UsageError as e:
        assert e.where is not None and e.where.startswith("query:")
        col = int(e.where.split(":")[1])
        assert 1 <= col <= len(text) + 1


def test_query_arguments_are_inputs_or_query(tmp_path):
    from convo.cli.words import split_query

    words = ["from:alice", "missing.jsonl", "node.js", "a/b", "-", '"x.json"', "source:a/b"]
    assert split_query(words) == (
        ["missing.jsonl", "a/b", "-"], 'from:alice node.js "x.json" source:a/b'
    )  # fmt: skip
    r = CliRunner().invoke(app, ["query", "from:alice", str(tmp_path / "missing.jsonl")])
    assert r.exit_code == 2 and "missing.jsonl" in r.stderr  # an error, not a search
