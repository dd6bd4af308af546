"""Ranked search: FTS5 syntax, filters, snippets, CJK, errors, fallback without an index."""

from __future__ import annotations

import pytest
from tests.index.helpers import rec, where, write_store

from convo.core.errors import UsageError
from convo.index import index_path, search
from convo.index.search import fts_query


@pytest.fixture
def store(tmp_path):
    return write_store(
        tmp_path / "s.jsonl",
        [
            rec(1, text="the quarterly budget review is due", subject="Budget"),
            rec(2, text="budget budget budget", speaker="Bob"),
            rec(3, text="a café with a naïve résumé"),
            rec(4, text="東京タワーへ行きました"),
            rec(5, text="deploy the rollback after the review", tags=["ops"]),
            rec(6, text="서울에서 만나요"),
        ],
    )


def _ids(hits):
    return [h.record["id"] for h in hits]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("budget", {"m1", "m2"}),
        ('"budget review"', {"m1"}),
        ("budg*", {"m1", "m2"}),
        ("budget OR rollback", {"m1", "m2", "m5"}),
        ("review NOT budget", {"m5"}),
        ("NEAR(deploy review, 5)", {"m5"}),
        ("cafe resume", {"m3"}),
        ("東京", {"m4"}),
        ("タワー", {"m4"}),
        ("서울", {"m6"}),
        ("subject:budget", {"m1"}),
    ],
)
def test_query_syntax(store, query, expected):
    hits, note = search(store, query)
    assert note == ""
    assert set(_ids(hits)) == expected


def test_ranked_best_first_with_scores(store):
    hits, _ = search(store, "budget")
    assert hits[0].score >= hits[1].score > 0


def test_filters_and_limit(store):
    hits, _ = search(store, "budget OR rollback", where(speakers=["bob"]))
    assert _ids(hits) == ["m2"]
    hits, _ = search(store, "budget OR rollback", where(tags=["OPS"]))
    assert _ids(hits) == ["m5"]
    assert len(search(store, "budget OR rollback", limit=1)[0]) == 1


def test_snippet_marks_hits(store):
    hits, _ = search(store, "quarterly")
    marked = [t for t, hit in hits[0].snippet if hit]
    assert marked == ["quarterly"]
    assert "".join(t for t, _ in hits[0].snippet).startswith("…") is False


def test_snippet_keeps_what_comes_before_the_first_word():
    """A snippet from the start of the text keeps the characters before its first word:
    "@bob", "[draft]" and "#42" were shown as "bob", "draft]" and "42"."""
    from convo.index.search import snippet, terms

    for text in ("@bob can you look", "[draft] the plan", "#42 is fixed", '"Quoted" words'):
        record = {"textChunks": [text], "metadata": {}}
        pieces = snippet(record, terms("look plan fixed words"), "look plan fixed words")
        assert "".join(t for t, _ in pieces) == text
    # a window cut further in still starts at a word, after its ellipsis
    long = {"textChunks": [" ".join(f"w{i}" for i in range(60)) + " target"], "metadata": {}}
    pieces = snippet(long, ["target"], "target")
    assert pieces[0] == ("…", False) and pieces[1][0].startswith("w")


@pytest.mark.parametrize("bad", ['"unbalanced', "budget AND", "(budget", "nosuchcol:x", "   "])
def test_syntax_errors_are_one_usage_error(store, bad):
    with pytest.raises(UsageError) as e:
        search(store, bad)
    assert "\n" not in str(e.value)


def test_without_an_index_file_search_still_works(store, monkeypatch):
    monkeypatch.setenv("CONVO_NO_INDEX", "1")
    hits, note = search(store, "budget")
    assert set(_ids(hits)) == {"m1", "m2"} and "CONVO_NO_INDEX" in note
    assert not index_path(store).exists()


def test_fts_query_rewrites_only_cjk():
    assert fts_query('budget "a b" x*') == 'budget "a b" x*'
    assert fts_query("東京 OR 大阪*") == '"東  京" OR "大  阪"*'


def test_count_matches(store):
    from convo.index import count_matches, refresh

    assert count_matches(store, "budget") == "no index"
    refresh(store)
    assert count_matches(store, "budget") == 2
    with pytest.raises(UsageError):
        count_matches(store, '"open')


def test_a_very_common_word_ranks_the_most_recent_matches(store):
    hits, _ = search(store, "budget OR review OR rollback", ranked=2)
    assert hits.window == 2 and set(_ids(hits)) == {"m2", "m5"}  # the 2 newest of 3 matches
    hits, _ = search(store, "budget OR review OR rollback", ranked=None)
    assert hits.window == 0 and set(_ids(hits)) == {"m1", "m2", "m5"}
    hits, _ = search(store, "budget OR review OR rollback", where(speakers=["bob"]), ranked=2)
    assert hits.window == 0 and _ids(hits) == ["m2"]


def test_query_word_class_is_the_unicode_one():
    """``WORDISH`` (cheap to compile) is the set ``[\\w\\u0080-\\U0010ffff]`` names."""
    import re
    import sys

    from convo.index.search import WORDISH

    slow, fast = re.compile(r"[\w\u0080-\U0010ffff]"), re.compile(WORDISH)
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    assert "".join(slow.findall(every)) == "".join(fast.findall(every))
    lone = "\ud800\udfff"  # lone surrogates: both take them as non-ASCII
    assert slow.findall(lone) == fast.findall(lone) == list(lone)
