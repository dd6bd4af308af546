from convo.embed.fusion import LOOSE_DEPTH, exact_query, fuse, hybrid, loose_query, tokens


def test_a_hit_only_one_list_has_is_kept():
    fused = fuse([(["a", "b"], 1.0, "keyword"), (["c", "a"], 1.0, "meaning")])
    assert [f.id for f in fused] == ["a", "c", "b"]
    assert {f.id: f.why for f in fused} == {"a": "both", "b": "keyword", "c": "meaning"}


def test_an_exact_token_the_vectors_do_not_rank_comes_first():
    # x holds every word of the query; y is first in both other lists.
    out = hybrid(exact=["x"], loose=["y", "x"], meaning=["y", "z"], limit=3)
    assert [f.id for f in out] == ["x", "y", "z"]
    assert out[0].why == "keyword" and out[1].why == "both"


def test_without_an_exact_match_meaning_and_words_decide():
    out = hybrid(exact=[], loose=["k1", "m1"], meaning=["m1", "m2"], limit=2)
    assert [f.id for f in out] == ["m1", "k1"]


def test_the_any_word_list_counts_only_its_head():
    # m is the vectors' first; w is low in both lists (one common word of the question,
    # vaguely near in meaning): the credit of two low ranks must not outscore m.
    loose = [f"k{i}" for i in range(LOOSE_DEPTH)] + ["w"]
    ids = [f.id for f in hybrid([], loose, ["m", *[f"n{i}" for i in range(18)], "w"], limit=50)]
    assert ids.index("m") < ids.index("w")  # uncut, w's two low ranks outscored m
    assert {f.id for f in hybrid([], loose, [], limit=50)} == set(loose[:LOOSE_DEPTH])


def test_queries_quote_tokens_and_drop_question_words():
    assert tokens('What about "v2.14.3"? <a1@x.org>,') == ["What", "about", "v2.14.3", "a1@x.org"]
    assert exact_query("ECONNRESET on v2.14.3") == '"ECONNRESET" "on" "v2.14.3"'
    assert loose_query("what did we decide about login state?") == '"decide" OR "login" OR "state"'
    assert loose_query("what did we") is None
    assert exact_query("  ?! ") is None
    assert exact_query('say "hi"') == '"say" "hi"'
