"""The numpy-free search path (``convo.embed.simd``) against its plain twins: the query
vector against ``embed``'s, simsimd's int8 sums against Python's integers, its bound on
every row, and its rankings against numpy's (``convo.embed.quantized``), equal up to ties
within ``quantized.slack``."""

from __future__ import annotations

import itertools
from array import array

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from convo.embed import quantized, simd
from convo.embed.nearest import semantic, similar

from .conftest import WordHash, write_store
from .test_quantized import query, unit_rows, vectors_of

pytest.importorskip("simsimd")


def reference(matrix, q):
    """Every row's score in float64: the yardstick both rankings are held to."""
    return matrix.astype(np.float64) @ np.asarray(q, dtype=np.float64)


def assert_same_ranking(ref, got, plain, tol):
    """``got`` and ``plain`` (lists of keys, best first) are both a best-first top list by
    ``ref`` up to ``tol``, and agree at every place but where two keys tie within ``tol``."""
    assert len(got) == len(plain)
    for ranking in (got, plain):
        assert len(set(ranking)) == len(ranking)
        for a, b in itertools.pairwise(ranking):
            assert ref[a] >= ref[b] - tol
        if ranking:
            last = min(ref[k] for k in ranking)
            left = set(range(len(ref))) - set(ranking)
            assert all(ref[k] <= last + tol for k in left)
    for a, b in zip(got, plain, strict=True):
        assert a == b or abs(ref[a] - ref[b]) <= tol, (a, b, ref[a], ref[b])


def lacking(vf, n):
    """The int8 copy cut short by ``n`` rows (vectors made before it, or a run cut
    short): both paths score those rows from the float32 file."""
    path = vf.quantized_path
    keep = max(0, vf.rows - n)
    with open(path, "r+b") as f:
        f.truncate(keep * quantized.size(vf.dims))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 10**6), st.integers(1, 300), st.sampled_from([4, 16, 64, 256]),
    st.integers(0, 20), st.integers(0, 5), st.integers(1, 320), st.sampled_from([1.0, 0.5]),
    st.booleans(),
)  # fmt: skip
def test_top_rows_rank_as_numpys(
    tmp_path_factory, seed, n, dims, zeros, twins, want, length, small
):
    matrix = unit_rows(seed, n, dims, zeros, twins)
    q = query(seed, dims, length)
    vf = vectors_of(tmp_path_factory.mktemp("s"), matrix)
    lacking(vf, seed % 7)
    try:
        with pytest.MonkeyPatch.context() as mp:
            if small:  # the copy scanned in blocks of 8 records, read by simsimd's passes
                mp.setattr(simd, "BLOCK", 8)
                mp.setattr(simd, "FEW", 4)
            rows, scores = simd.top_rows(vf, array("f", q.tolist()), want)
        plain, plain_scores = quantized.top_rows(vf, q, want)
    finally:
        vf.close()
    tol = quantized.slack(dims)
    ref = reference(matrix, q)
    assert_same_ranking(ref, rows, plain.tolist(), tol)
    for row, score in zip(rows, scores, strict=True):
        assert abs(score - ref[row]) <= tol  # the printed score: the row's own
    for a, b, sa, sb in zip(rows, plain.tolist(), scores, plain_scores.tolist(), strict=True):
        if a == b:
            assert abs(sa - sb) <= tol


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 10**6), st.integers(1, 120), st.sampled_from([8, 64, 256]),
    st.integers(1, 60), st.data(),
)  # fmt: skip
def test_best_of_spans_ranks_as_numpys(tmp_path_factory, seed, n, dims, limit, data):
    matrix = unit_rows(seed, n, dims, 3, 2)
    q = query(seed, dims, 1.0)
    cuts = sorted(data.draw(st.sets(st.integers(1, n - 1), max_size=n // 2)) if n > 1 else [])
    bounds = [0, *cuts, n]
    spans = [(a, b - a) for a, b in itertools.pairwise(bounds)]
    spans = [s for i, s in enumerate(spans) if data.draw(st.booleans(), label=f"keep {i}")]
    if not spans:
        return
    vf = vectors_of(tmp_path_factory.mktemp("b"), matrix)
    lacking(vf, seed % 7)
    try:
        got, scores = simd.best_of_spans(vf, array("f", q.tolist()), spans, limit)
        rows = np.concatenate([np.arange(r, r + c) for r, c in spans]).astype(np.int64)
        counts = np.array([c for _, c in spans], dtype=np.int64)
        offsets = np.cumsum(counts) - counts
        plain, _ = quantized.best_of_spans(vf, q, rows, offsets, limit)
    finally:
        vf.close()
    row_ref = reference(matrix, q)
    ref = [max(row_ref[r : r + c]) for r, c in spans]
    assert_same_ranking(ref, got, plain.tolist(), quantized.slack(dims))
    for i, score in zip(got, scores, strict=True):
        assert abs(score - ref[i]) <= quantized.slack(dims)


FLOAT32S = st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True)
EDGES = st.sampled_from([0.0, -0.0, 2.0**-126, -(2.0**-126), 2.0**-149, -(2.0**-149), 1.0, -1.0])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(FLOAT32S, EDGES), max_size=80),
    st.one_of(st.floats(allow_nan=False, allow_infinity=False), EDGES, st.integers(0, 79)),
    st.integers(0, 10),
)  # fmt: skip
def test_at_least_is_the_plain_comparison(values, floor, few):
    """simsimd's signs then the few compared: the indices the comprehension gives, for
    any float32 values (NaN, infinities, signed zeros, subnormals) and floors (an entry's
    own value, one just above or below a float32, zero)."""
    a = array("f", values)
    if isinstance(floor, int):  # an entry's own value, or that nudged
        if not a or a[floor % len(a)] != a[floor % len(a)]:
            return
        floor = float(a[floor % len(a)]) + (floor % 3 - 1) * 1e-12
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(simd, "FEW", few)
        assert simd.at_least(a, floor) == [i for i, v in enumerate(a) if v >= floor]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0, 2.0**100, width=32, allow_subnormal=True), min_size=1, max_size=300),
    st.integers(0, 10),
)
def test_largest_is_max(values, few):
    a = array("f", values)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(simd, "FEW", few)
        assert simd.largest(a) == max(a)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([4, 8, 60, 256, 1024]), st.integers(1, 50))
def test_the_int8_sums_are_exact_and_the_bound_holds(seed, dims, n):
    """simsimd's int8 dot products are Python's integer sums (the records' scale and error
    bytes face zero codes); every record's approximate score lies within ``width`` of its
    row's float32 score."""
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((n, dims)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix[rng.random(n) < 0.1] *= rng.choice([0.0, 3.0])  # zeroed or not unit: any row
    q = np.asarray(query(seed, dims, 1.0))
    records = quantized.quantize(matrix)
    scan = simd.Scan(simd.Query(array("f", q.tolist())), dims)
    scan.add(memoryview(records.tobytes()))
    codes = records["codes"].astype(np.int64)
    c1 = np.frombuffer(scan.query.c1.tobytes(), dtype=np.int8)[:dims].astype(np.int64)
    c2 = np.frombuffer(scan.query.c2.tobytes(), dtype=np.int8)[:dims].astype(np.int64)
    extreme = records.copy()  # the kernel alone, on the largest codes and random tails
    extreme["codes"][0] = np.where(rng.random(dims) < 0.5, -127, 127)
    extreme["scale"] = rng.standard_normal(n)
    import simsimd

    kernel = simsimd.cdist(
        np.frombuffer(extreme.tobytes(), dtype=np.int8).reshape(n, dims + 8),
        scan.query.c1, "dot", dtype="int8",
    )  # fmt: skip
    ints = [sum(int(a) * int(b) for a, b in zip(row, c1, strict=True)) for row in extreme["codes"]]
    assert np.asarray(kernel).reshape(-1).tolist() == ints
    want = records["scale"].astype(np.float64) * (
        scan.query.s1 * (codes @ c1) + scan.query.s2 * (codes @ c2)
    )
    assert np.abs(np.asarray(scan.approx) - want).max(initial=0) <= simd.rounding(
        127 * scan.scale * dims**0.5 * scan.query.sizes
    )
    exact = matrix.astype(np.float64) @ q.astype(np.float64)
    assert np.all(np.abs(np.asarray(scan.approx, dtype=np.float64) - exact) <= scan.width())


def test_the_query_vector_is_embeds(no_network):
    """On the default model: ``embed_query`` (no numpy) is ``embed``'s vector within
    float32 rounding, for texts of every kind (checked further below on random ones)."""
    pytest.importorskip("wordllama")
    from convo.embed.wordllama import WordLlamaEmbedder

    model = WordLlamaEmbedder()
    for text in (
        "",
        " ",
        "where do we store the login state?",
        "ECONNRESET-4411 ☃ 東京",
        "a" * 500,
    ):
        assert_query_vector(model, text)


def assert_query_vector(model, text):
    plain = model.embed_query(text)
    assert isinstance(plain, array) and plain.typecode == "f" and len(plain) == model.dims
    assert np.abs(np.asarray(plain) - model.embed(text)).max() <= 2e-7


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_the_query_vector_is_embeds_on_random_texts(text):
    pytest.importorskip("wordllama")
    from convo.embed.wordllama import WordLlamaEmbedder

    assert_query_vector(_model(WordLlamaEmbedder), text)


_MODELS: list = []


def _model(kind):
    if not _MODELS:
        _MODELS.append(kind())
    return _MODELS[0]


def test_semantic_and_similar_rank_as_numpys_path(tmp_path, monkeypatch):
    """Through ``convo.embed.nearest``: the same ids and printed scores with or without
    simsimd (its search of all messages, among candidates, and ``similar``)."""
    from convo.embed import embed_store

    from .conftest import record

    words = [
        *["login", "cookie", "deploy", "error", "pizza", "budget", "review", "state", "session"]
    ]
    rng = np.random.default_rng(7)
    texts = {f"m{i}": " ".join(rng.choice(words, 4)) + f" n{i}" for i in range(60)}
    store = tmp_path / "s.jsonl"
    write_store(store, [record(k, t) for k, t in texts.items()])
    model = WordHash(dims=64)
    embed_store(store, model)
    some = [f"m{i}" for i in range(0, 60, 3)]

    def runs():
        return (
            semantic(store, "login session state", None, 10, embedder=model),
            semantic(store, "budget pizza", some, 7, embedder=model),
            similar(store, "m4", None, 10),
            similar(store, "m4", some, 5),
        )

    # WordHash is not in the registry: similar() needs no embedder, semantic() is given one
    fast = runs()
    monkeypatch.setattr(simd, "chosen", lambda dims, rows: False)
    plain = runs()
    tol = quantized.slack(64)
    for a, b in zip(fast, plain, strict=True):
        assert len(a) == len(b) and a
        mine = {x.id: x.score for x in a}
        for x, y in zip(a, b, strict=True):
            assert abs(x.score - y.score) <= tol
            # another id only where its own score ties with this place's (or the last's)
            assert x.id == y.id or abs(mine.get(y.id, a[-1].score) - x.score) <= tol


def test_a_large_scan_runs_on_numpy(tmp_path, monkeypatch):
    """From ``simd.LARGE`` rows the search runs numpy's scan (cheaper there than its
    import), with the same ranking."""
    from convo.embed import nearest

    matrix = unit_rows(3, 40, 16, 0, 0)
    vf = vectors_of(tmp_path, matrix)
    q = query(3, 16, 1.0)
    try:
        small = nearest._best_rows(vf, array("f", q.tolist()), 10)
        monkeypatch.setattr(simd, "LARGE", 40)
        monkeypatch.setattr(simd, "top_rows", None)  # not called
        large = nearest._best_rows(vf, array("f", q.tolist()), 10)
    finally:
        vf.close()
    assert_same_ranking(reference(matrix, q), small[0], large[0], quantized.slack(16))


def test_many_candidates_are_rescored_a_few_at_a_time(tmp_path, monkeypatch):
    """A query of zeros ties every row: all are rescored, ``GATHER`` rows at a time."""
    matrix = unit_rows(5, 50, 8, 2, 1)
    vf = vectors_of(tmp_path, matrix)
    monkeypatch.setattr(quantized, "GATHER", 7)
    zero = np.zeros(8, dtype=np.float32)
    try:
        rows, scores = simd.top_rows(vf, array("f", bytes(32)), 50)
        plain, _ = quantized.top_rows(vf, zero, 50)
    finally:
        vf.close()
    assert rows == plain.tolist() == list(range(50)) and scores == [0.0] * 50
