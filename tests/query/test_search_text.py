"""``convo search`` takes what a person types: questions, error strings, versions, names."""

from __future__ import annotations

import json

import pytest
from tests.conftest import SAMPLE_DATA, saved_store
from typer.testing import CliRunner

from convo.cli.app import app
from convo.query.search_text import MAX_PIECES, split
from convo.store import Store

TYPED = [
    "what did Alice decide about tokens?", "MENFORCER-276", "undefined symbol: SetWarningHandler",
    "auth refactor: JWT vs sessions", "café, naïve, résumé", "who wrote the deployment runbook?",
    "version 1.2.3", "v2.0.0-rc.1", "python3.12", "error: ENOENT: no such file or directory",
    "TypeError: 'NoneType' object is not subscriptable", "<auth-1@example.org>",
    "alice@example.org", "https://jwt.io", "C:\\Users\\bob\\file.txt", "50%", "$100", "#security",
    "@Bob", "it's", "don't know", "(parenthesis", "unbalanced)", '"unclosed', 'a "quoted phrase"',
    "NEAR(a b)", "prefix*", "a OR b", "NOT this", "AND", "-", "--", "?", "...", "::", "x:",
    "subject:", "from:", "from:\"Alice", "tag:security jwt", "-tag:system jwt",
    "date:2024-03-06 tokens", "what about -budget?", "東京", "Straße", "😊", "SELECT * FROM messages;",
    "'; DROP TABLE messages; --", "\\x00", "a" * 300, "one two three four five six seven",
    "How do I configure the lecture notes?", "Why was the retro moved?", "from:bob)",
    "(from:alice OR from:bob) -jwt", "((tag:security)", "from:(x", ")from:bob(", "OR from:bob",
]  # fmt: skip


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("search") / "store.jsonl"
    saved_store(path, SAMPLE_DATA)
    return Store(path)


def test_fifty_things_people_type_never_fail(store):
    assert len(TYPED) >= 50
    for text in TYPED:
        store.search(text, limit=5)  # no UsageError, no SQLite error
        r = CliRunner().invoke(
            app, ["--store", str(store.path), "search", "-f", "jsonl", "--", text]
        )
        assert r.exit_code == 0, (text, r.output)


def test_a_question_finds_the_answer_first(store):
    hits = store.search("what did Alice decide about tokens?")
    assert "Decision: JWT tokens" in hits[0].record["textChunks"][0]


def test_field_terms_filter_and_words_rank():
    s = split('from:alice tag:"two words" -tag:system jwt tokens? "a phrase" -budget')
    assert s.filters == 'from:alice tag:"two words" -tag:system NOT "budget"'
    assert s.pieces == [["jwt"], ["tokens"], ["a", "phrase"]]
    assert split("MENFORCER-276").pieces == [["menforcer", "276"]]
    assert split("undefined symbol: X").filters == ""  # an unknown field is text


def test_or_and_parentheses_between_field_terms_are_the_query_languages():
    assert split("from:alice OR from:bob").filters == "from:alice OR from:bob"
    assert split("from:alice OR from:bob").pieces == []
    s = split("(from:alice OR from:bob) -jwt tokens")
    assert s.filters == '( from:alice OR from:bob ) NOT "jwt"'
    assert s.pieces == [["tokens"]]
    # a parenthesis that groups no field terms is left out, never a syntax error
    assert split("from:bob)").filters == "from:bob"
    assert split("(from:alice jwt)").filters == "from:alice"
    assert split('from:"a (b)" OR tag:x').filters == 'from:"a (b)" OR tag:x'
    # OR beside words is a word (pieces are ORed anyway)
    assert split("jwt OR tokens").filters == ""


def test_search_ors_field_terms_as_query_does(store):
    runner = CliRunner()

    def ids(*words: str) -> set[str]:
        args = ["--store", str(store.path)]
        r = runner.invoke(app, [*args, *words])
        assert r.exit_code == 0, r.output
        return {json.loads(line)["id"] for line in r.stdout.splitlines()}

    for typed in ("from:alice OR from:bob", "(from:alice OR from:bob) -jwt"):
        searched = ids("search", "-f", "jsonl", "-n", "1000", "--", typed)
        queried = ids("query", "-f", "jsonl", "--", typed)
        assert searched == queried and len(queried) > 40, typed
    assert ids("search", "-f", "jsonl", "-n", "1000", "from:bob)") == ids(
        "query", "-f", "jsonl", "from:bob"
    )


def test_a_pasted_option_or_negative_number_is_text_not_a_negation():
    s = split("publish with --source_url and --channel CHANNEL_ID")
    assert s.filters == "" and ["source_url"] in s.pieces and ["channel"] in s.pieces
    assert s.free == "publish with --source_url and --channel CHANNEL_ID"
    assert split("returned -1").filters == "" and ["1"] in split("returned -1").pieces
    assert split("jwt -budget").filters == 'NOT "budget"'  # one hyphen still leaves out


def test_a_pasted_option_finds_the_message_holding_it(tmp_path):
    path = tmp_path / "s.jsonl"
    rows = [
        {"id": "a", "textChunks": ["run it with --source_url=https://x.example please"]},
        {"id": "b", "textChunks": ["the source is at a url somewhere"]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    hits = Store(path).search("--source_url", mode="fts")
    assert [h.record["id"] for h in hits][:1] == ["a"]


def test_the_number_of_ranked_pieces_is_bounded():
    s = split(" ".join(f"w{i}" for i in range(5000)))
    assert len(s.pieces) == MAX_PIECES and s.dropped == 5000 - MAX_PIECES


def test_filters_restrict_before_ranking(store):
    hits = store.search("jwt", "from:bob")
    assert hits and all("Bob" in (h.record["metadata"]["speaker"] or "") for h in hits)
    assert store.search("jwt", "from:nobody") == []
