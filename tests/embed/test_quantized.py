"""The int8 copy a search scans: its ranking is the float32 ranking exactly (random
vectors against a plain float32 scan), it rescores few rows, and it stays in step with
the float32 rows through appends, changes, interruptions and old vectors without it."""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.embed import check_vectors, embed_store, quantized, semantic
from convo.embed.quantized import best_of_spans, quantize, record, scores_of, top_rows
from convo.embed.vectors import VectorFile, Writer, quantized_path, upgrade

from .conftest import WordHash, append_store, write_store
from .conftest import record as message

TEXTS = {
    "m1": "we keep the login state in signed cookies",
    "m2": "the deploy failed with ECONNRESET again",
    "m3": "pizza for lunch on friday",
    "m4": "budget review moved to next quarter",
}


def vectors_of(tmp_path, matrix):
    """A VectorFile holding ``matrix`` (one message a row), written as embed writes."""
    store = tmp_path / "v.jsonl"
    store.write_bytes(b"")
    vf = VectorFile(store, write=True)
    vf.set_meta(model="m", dims=matrix.shape[1], rows=0)
    writer = Writer(vf)
    writer.append([(f"r{i}", b"d", 1) for i in range(len(matrix))], matrix)
    writer.close()
    return vf


def unit_rows(draw_seed: int, n: int, dims: int, zeros: int, twins: int):
    rng = np.random.default_rng(draw_seed)
    m = rng.standard_normal((n, dims)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    m[rng.choice(n, min(zeros, n), replace=False)] = 0  # rows of a changed message
    for _ in range(twins):  # equal rows: ties, broken in row order
        a, b = rng.integers(0, n, 2)
        m[a] = m[b]
    return m


def query(seed: int, dims: int, length: float):
    q = np.random.default_rng(seed + 1).standard_normal(dims).astype(np.float32)
    return (q / np.linalg.norm(q) * length).astype(np.float32)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 10**6), st.integers(1, 300), st.sampled_from([4, 16, 64, 256]),
    st.integers(0, 20), st.integers(0, 5), st.integers(1, 320), st.sampled_from([1.0, 0.5]),
    st.booleans(), st.booleans(),
)  # fmt: skip
def test_top_rows_are_the_float32_ranking(
    tmp_path_factory, seed, n, dims, zeros, twins, want, length, two_cores, blas
):
    matrix = unit_rows(seed, n, dims, zeros, twins)
    q = query(seed, dims, length)
    vf = vectors_of(tmp_path_factory.mktemp("q"), matrix)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(quantized, "alone", lambda: blas)  # the scan's matmul, or its einsum
        if two_cores:  # the scan in two halves at once, in blocks of 8 rows
            mp.setattr(quantized, "PARALLEL", 1)
            mp.setattr(quantized, "BLOCK", 8)
            mp.setattr(quantized, "_cores", lambda: 2)
        try:
            rows, scores = top_rows(vf, q, want)
        finally:
            vf.close()
    plain = scores_of(matrix, q)
    order = np.argsort(-plain, kind="stable")[:want]
    assert rows.tolist() == order.tolist()
    assert scores.tolist() == plain[order].tolist()


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 10**6), st.integers(1, 200), st.sampled_from([8, 64]), st.integers(0, 10),
    st.integers(1, 40), st.booleans(), st.data(),
)  # fmt: skip
def test_best_of_spans_is_the_float32_ranking(
    tmp_path_factory, seed, n, dims, zeros, limit, blas, data
):
    matrix = unit_rows(seed, n, dims, zeros, 2)
    q = query(seed, dims, 1.0)
    # Messages of one to three adjacent rows, some left out (not candidates).
    cuts = sorted(data.draw(st.sets(st.integers(1, n - 1), max_size=n - 1)) if n > 1 else set())
    bounds = [0, *cuts, n]
    spans = [(a, b - a) for a, b in itertools.pairwise(bounds)]
    kept = [s for s in spans if data.draw(st.booleans())] or spans[:1]
    counts = np.array([c for _, c in kept])
    offsets = np.cumsum(counts) - counts
    rows = np.concatenate([np.arange(r, r + c) for r, c in kept])
    vf = vectors_of(tmp_path_factory.mktemp("s"), matrix)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(quantized, "alone", lambda: blas)  # the scan's matmul, or its einsum
        try:
            messages, best = best_of_spans(vf, q, rows, offsets, limit)
        finally:
            vf.close()
    plain = np.maximum.reduceat(scores_of(matrix, q)[rows], offsets)
    order = np.argsort(-plain, kind="stable")[:limit]
    assert messages.tolist() == order.tolist()
    assert best.tolist() == plain[order].tolist()


def test_few_rows_are_read_again_from_the_float32_file(tmp_path, monkeypatch):
    matrix = unit_rows(5, 5000, 256, 0, 0)
    vf = vectors_of(tmp_path, matrix)
    read: list[int] = []
    real = vf.gather

    def counted(rows):
        read.append(len(rows))
        return real(rows)

    monkeypatch.setattr(vf, "gather", counted)
    try:
        rows, _ = top_rows(vf, query(5, 256, 1.0), 10)
    finally:
        vf.close()
    assert len(rows) == 10 and 10 <= sum(read) < 500


def test_records_hold_each_row_within_its_error():
    matrix = unit_rows(3, 50, 64, 5, 0)
    recs = quantize(matrix)
    assert recs.dtype == record(64) and recs.dtype.itemsize == quantized.size(64) == 64 + 8
    back = recs["scale"][:, None] * recs["codes"].astype(np.float32)
    assert np.all(np.linalg.norm(matrix - back, axis=1) <= recs["error"])
    assert np.all(recs["codes"][np.all(matrix == 0, axis=1)] == 0)


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s.jsonl"
    write_store(path, [message(i, t) for i, t in TEXTS.items()])
    return path


def copy_of(store) -> np.ndarray:
    return np.frombuffer(quantized_path(store).read_bytes(), dtype=record(64))


def test_the_copy_follows_appends_and_changes(store):
    model = WordHash()
    embed_store(store, model)
    assert len(copy_of(store)) == 4
    append_store(store, [message("m5", "cookies for the login state")])
    embed_store(store, model)
    assert len(copy_of(store)) == 5
    write_store(store, [message("m1", "sessions live in redis now")])  # m1 changed, rest gone
    result = embed_store(store, model)
    assert (result.changed, result.removed) == (1, 4)
    copy = copy_of(store)
    assert len(copy) == 6 and not copy["codes"][:5].any() and not copy["scale"][:5].any()
    assert semantic(store, "redis sessions", limit=5, embedder=model)[0].id == "m1"
    assert check_vectors(store).ok  # type: ignore[union-attr]


def test_old_vectors_without_the_copy_are_searched_then_upgraded(store):
    model = WordHash()
    embed_store(store, model)
    made = quantized_path(store).read_bytes()
    quantized_path(store).unlink()  # vectors from before the copy existed
    report = check_vectors(store)
    assert report is not None and "holds 0 of 4 rows" in report.problems[0]
    before = semantic(store, "login cookies", limit=4, embedder=model)
    assert before[0].id == "m1"
    assert upgrade(store) == 4 and quantized_path(store).read_bytes() == made
    assert upgrade(store) == 0
    assert semantic(store, "login cookies", limit=4, embedder=model) == before
    assert check_vectors(store).ok  # type: ignore[union-attr]


def test_no_upgrade_while_another_writer_runs(store):
    model = WordHash()
    embed_store(store, model)
    quantized_path(store).unlink()
    vf = VectorFile(store, write=True)
    writer = Writer(vf)  # a `convo embed` running: it holds the lock (and made the copy)
    quantized_path(store).unlink()
    try:
        assert upgrade(store) == 0
        assert semantic(store, "login cookies", limit=1, embedder=model)[0].id == "m1"
    finally:
        writer.close()
        vf.close()


def test_an_interrupted_copy_is_cut_and_a_wrong_one_found(store):
    model = WordHash()
    embed_store(store, model)
    with open(quantized_path(store), "ab") as f:
        f.write(b"\x05" * 100)  # written by a run killed before it committed
    append_store(store, [message("m5", "new words here")])
    embed_store(store, model)
    assert quantized_path(store).stat().st_size == 5 * record(64).itemsize
    assert check_vectors(store).ok  # type: ignore[union-attr]
    data = bytearray(quantized_path(store).read_bytes())
    data[:8] = b"\x7f" * 8
    quantized_path(store).write_bytes(bytes(data))
    report = check_vectors(store)
    assert report is not None and "int8 copy that does not match" in report.problems[0]


def test_an_error_in_either_half_of_a_scan_is_raised(tmp_path, monkeypatch):
    matrix = unit_rows(9, 64, 16, 0, 0)
    vf = vectors_of(tmp_path, matrix)
    monkeypatch.setattr(quantized, "PARALLEL", 1)
    monkeypatch.setattr(quantized, "BLOCK", 8)
    monkeypatch.setattr(quantized, "_cores", lambda: 2)
    real = quantized.Copy._score
    main = threading.current_thread()

    def failing(part, q, buffer, out):
        if threading.current_thread() is not main:  # the second half's thread
            raise OSError("read failed")
        return real(part, q, buffer, out)

    monkeypatch.setattr(quantized.Copy, "_score", staticmethod(failing))
    try:
        with pytest.raises(OSError, match="read failed"):
            top_rows(vf, query(9, 16, 1.0), 5)
    finally:
        vf.close()
