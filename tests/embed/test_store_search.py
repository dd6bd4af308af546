"""Store.search by mode and Store.similar, on a small store embedded with WordHash: the
filters restrict the candidates before the ranking, an exact token comes first, and
every hit satisfies the filters (a property test over random filters)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from convo.core.errors import UsageError
from convo.embed import embed_store
from convo.store import Store

from .conftest import WordHash, record, write_store

WORDS = ["login", "cookie", "deploy", "budget", "pizza", "redis", "error", "quarter"]
SPEAKERS = ["Alice", "Bob", "Carol"]
TAGS = ["red", "blue", "green"]


def _record(i: int) -> dict:
    r = record(
        f"r{i}", " ".join(WORDS[j % 8] for j in range(i, i + 3)), SPEAKERS[i % 3],
        f"2024-{1 + i % 12:02d}-{1 + i % 27:02d}T10:00:00Z",
    )  # fmt: skip
    r["tags"] = [TAGS[i % 3]] if i % 4 else []
    return r


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    path = tmp_path_factory.mktemp("many") / "s.jsonl"
    write_store(path, [_record(i) for i in range(60)])
    embed_store(path, WordHash())
    return path


def store_of(path) -> Store:
    return Store(path, utc=True, embedder=WordHash())


def ids(hits) -> list[str]:
    return [h.record["id"] for h in hits]


def test_hybrid_is_the_default_with_vectors_and_fts_without(tmp_path, many):
    hits = store_of(many).search("login cookie", limit=5)
    assert hits.mode == "hybrid" and len(hits) == 5
    assert {h.why for h in hits} <= {"keyword", "meaning", "both"}
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    plain = tmp_path / "plain.jsonl"
    write_store(plain, [_record(i) for i in range(5)])
    assert Store(plain).search("login", limit=5).mode == "fts"
    for mode in ("semantic", "hybrid"):
        with pytest.raises(UsageError, match="no vectors yet; run `convo embed`"):
            Store(plain).search("login", mode=mode)
    with pytest.raises(UsageError, match="unknown search mode"):
        Store(plain).search("login", mode="fuzzy")
    with pytest.raises(UsageError, match="keyword only"):
        Store(plain).search("login", mode="semantic", fts=True)


def test_a_match_inside_the_range_is_found_before_closer_ones_outside(tmp_path):
    path = tmp_path / "s.jsonl"
    near = [record(f"n{i}", "login cookie session", ts="2023-01-01T00:00:00Z") for i in range(300)]
    inside = record("in", "login tokens and something else", ts="2024-06-01T00:00:00Z")
    write_store(path, [*near, inside])
    embed_store(path, WordHash())
    for mode in ("semantic", "hybrid"):
        hits = store_of(path).search("login cookie session date:2024..", mode=mode, limit=3)
        assert ids(hits) == ["in"], mode
        hits = store_of(path).search("login cookie session", "date:2024..", mode=mode, limit=3)
        assert ids(hits) == ["in"], mode


def test_an_exact_token_and_a_pasted_id_come_first(tmp_path):
    path = tmp_path / "s.jsonl"
    rows = [record(f"m{i}", "the deploy failed again with a network error") for i in range(40)]
    rows.append(record("<x9@mail.example>", "short note"))
    rows.append(record("e1", "saw ECONNRESET-4411 in the logs"))
    write_store(path, rows)
    embed_store(path, WordHash())
    s = store_of(path)
    assert ids(s.search("the deploy failed with ECONNRESET-4411", limit=3))[0] == "e1"
    for mode in ("fts", "hybrid"):
        hits = s.search("<x9@mail.example>", mode=mode, limit=3)
        assert ids(hits)[0] == "<x9@mail.example>", mode


def test_without_the_extra_search_is_by_keyword_and_says_why(many, monkeypatch):
    import convo.embed.registry as registry

    monkeypatch.setattr(registry, "unavailable", lambda choice=None: "needs the embed extra")
    hits = Store(many).search("login cookie", limit=3)
    assert hits.mode == "fts" and hits.fallback == "needs the embed extra"
    with pytest.raises(UsageError, match="needs the embed extra"):
        Store(many).search("login", mode="hybrid")


def test_similar_among_the_filtered(many):
    s = store_of(many)
    hits = s.similar("r0", limit=5)
    assert "r0" not in ids(hits) and len(hits) == 5 and {h.why for h in hits} == {"meaning"}
    bobs = s.similar("r0", "from:bob", limit=50)
    assert bobs and all(h.record["metadata"]["speaker"] == "Bob" for h in bobs)
    with pytest.raises(UsageError, match="no message with id 'nope'"):
        s.similar("nope")


FILTERS = st.lists(
    st.one_of(
        st.sampled_from([f"from:{n}" for n in SPEAKERS]),
        st.sampled_from([f"tag:{t}" for t in TAGS] + [f"-tag:{t}" for t in TAGS]),
        # a month on, or to a later month (a range that ends before it starts is a
        # usage error)
        st.tuples(st.integers(1, 12), st.integers(0, 6)).map(
            lambda a: (
                f"date:2024-{a[0]:02d}.."
                + (f"2024-{a[0] + a[1]:02d}" if a[1] and a[0] + a[1] <= 12 else "")
            )
        ),
    ),
    max_size=3,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    FILTERS,
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
    st.sampled_from(["fts", "semantic", "hybrid"]),
    st.booleans(),
    st.integers(1, 15),
)
def test_every_hit_satisfies_the_filters(many, filters, words, mode, inline, limit):
    s = store_of(many)
    q = " ".join(filters)
    allowed = {r["id"] for r in s.query(q)}
    if inline:
        hits = s.search(" ".join([*words, *filters]), mode=mode, limit=limit)
    else:
        hits = s.search(" ".join(words), q, mode=mode, limit=limit)
    assert set(ids(hits)) <= allowed
    assert len(hits) <= limit
    if mode == "semantic":  # every candidate has a vector: as many as asked, or all
        assert len(hits) == min(limit, len(allowed))


def test_a_default_search_whose_model_fails_answers_by_keyword(many):
    s = Store(many, embedder=WordHash("another-model"))
    hits = s.search("login cookie", limit=3)
    assert hits.mode == "fts" and len(hits) == 3
    assert "searched by keyword only" in hits.fallback and "another-model" in hits.fallback
    with pytest.raises(UsageError, match="made by wordhash-64"):
        s.search("login cookie", mode="hybrid")


def test_a_hybrid_search_whose_two_halves_fail_tells_the_keyword_error(many, monkeypatch):
    import convo.store.meaning

    def broken(*_args, **_kwargs):
        raise UsageError("the keyword half failed")

    monkeypatch.setattr(convo.store.meaning, "keyword", broken)
    s = Store(many, embedder=WordHash("another-model"))  # the meaning half fails too
    with pytest.raises(UsageError, match="the keyword half failed"):
        s.search("login cookie", mode="hybrid")
    with pytest.raises(UsageError, match="made by wordhash-64"):  # alone, its error
        Store(many, embedder=WordHash("another-model")).search("login cookie", mode="semantic")


def test_a_hybrid_search_no_message_holds_says_its_hits_are_only_near(many):
    """Words no message holds still give the nearest in meaning, and the search says so;
    a search with a keyword hit does not."""
    from convo.store.meaning import NO_KEYWORD

    hits = store_of(many).search("zzzzqqq login", limit=5, mode="hybrid")
    assert hits and NO_KEYWORD not in (hits.notice or "")
    nonsense = store_of(many).search("zzzzqqq", limit=5, mode="hybrid")
    assert nonsense, "the meaning half lists the nearest"
    assert {h.why for h in nonsense} == {"meaning"}
    assert NO_KEYWORD in nonsense.notice
