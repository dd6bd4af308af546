"""Search by meaning over the store's vectors: ``semantic`` (a text) and ``similar`` (a
message), each among all messages or among ``candidates`` only.

Candidates restrict *before* ranking: with a candidate set (the ids the filters and the
query language's field terms select), only their rows are read and scored, so a match
inside a date range is found however many closer messages lie outside it. Without one,
every row is scored. Either way the rows are scored from their int8 copy and the few
that can be among the best again from the float32 rows, so the ranking is the float32
one, and memory stays a block and two scores a row: on simsimd's kernels without numpy
(``convo.embed.simd``) when simsimd is installed and the rows scanned are fewer than
``simd.LARGE``, else on numpy (``convo.embed.quantized``, the plain twin the tests hold
the first to). A message's
score is its best chunk's cosine similarity: its float32 rows' dot product with the
query's float32 vector, rounded to 6 decimals (``Scored.score``; the two paths' sums may
differ in the last of them, ``convo.embed.simd`` says how far).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from convo.core.errors import UsageError
from convo.embed.protocol import Embedder
from convo.embed.vectors import VectorFile

if TYPE_CHECKING:
    from convo.embed.protocol import Vectors


class Scored(NamedTuple):
    id: str
    score: float


def open_vectors(store_path: str | os.PathLike[str]) -> VectorFile:
    vf = VectorFile.existing(store_path)
    if vf is None:
        raise UsageError(
            "the store has no vectors yet", where=str(store_path), hint="run `convo embed`"
        )
    return vf


def query_embedder(vf: VectorFile, embedder: Embedder | None, store: Path) -> Embedder:
    """``embedder``, or the one the vectors were made with; another model is an error."""
    from convo.embed.vectors import mismatch

    if embedder is None:
        from convo.embed.registry import make

        choice = vf.meta.get("choice")
        if not choice:
            raise UsageError(
                f"the vectors were made by {vf.model}, which is not a registered model",
                where=str(store),
                hint="pass the embedder that made them",
            )
        embedder = make(choice)
    if embedder.model_name != vf.model:
        raise mismatch(vf, embedder.model_name, None, store)
    return embedder


def semantic(
    store_path: str | os.PathLike[str],
    text: str,
    candidates: Iterable[str] | None = None,
    limit: int = 20,
    *,
    embedder: Embedder | None = None,
    vector: Vectors | None = None,
) -> list[Scored]:
    """The ``limit`` messages nearest in meaning to ``text``, best first (among
    ``candidates`` when given: record ids). ``vector``: ``text``'s, made by ``embedder``
    beforehand (the store's hybrid search makes it while its keyword lists run)."""
    vf = open_vectors(store_path)
    try:
        model = query_embedder(vf, embedder, Path(store_path))
        return rank(vf, query_vector(model, text) if vector is None else vector, candidates, limit)
    finally:
        vf.close()


def query_vector(model: Embedder, text: str) -> Any:
    """``text``'s vector by ``model``: without numpy when the model can (its
    ``embed_query``, an ``array('f')``: the default model's) and the scan runs without it
    (``convo.embed.simd.usable``), else its ``embed``."""
    from convo.embed import simd

    plain = getattr(model, "embed_query", None)
    if plain is not None and simd.usable(model.dims):
        return plain(text)
    return model.embed(text)


def similar(
    store_path: str | os.PathLike[str],
    message_id: str,
    candidates: Iterable[str] | None = None,
    limit: int = 20,
) -> list[Scored]:
    """The ``limit`` messages nearest to message ``message_id`` (itself left out); the
    query is the unit-length mean of its rows."""
    from convo.embed import simd

    vf = open_vectors(store_path)
    try:
        spans = list(vf.spans([message_id]))
        if not spans:
            raise UsageError(
                f"message {message_id!r} has no vectors",
                where=str(store_path),
                hint="check the id (`convo show`), or run `convo embed` after an ingest",
            )
        _, row, n = spans[0]
        if simd.chosen(vf.dims, vf.rows):
            q: Any = simd.mean_of(vf, row, n)
        else:
            import numpy as np

            q = vf.read_rows(row, n).mean(axis=0)
            norm = float(np.linalg.norm(q))
            q = (q / norm if norm else q).astype(np.float32)
        return rank(vf, q, candidates, limit, exclude=message_id)
    finally:
        vf.close()


def rank(
    vf: VectorFile, q: Vectors, candidates: Iterable[str] | None, limit: int, exclude: str = ""
) -> list[Scored]:
    if limit <= 0 or not vf.rows:
        return []
    if candidates is None:
        return _rank_all(vf, q, limit, exclude)
    return _rank_among(vf, q, candidates, limit, exclude)


def _rank_all(vf: VectorFile, q: Vectors, limit: int, exclude: str) -> list[Scored]:
    """Every row scored; the best rows mapped to their messages (zeroed rows and further
    chunks of a message already taken are passed over; too few: look deeper)."""
    want = limit * 4 + 32
    while True:
        rows, scores = _best_rows(vf, q, want)
        out: list[Scored] = []
        taken: set[str] = {exclude}
        for row, score in zip(rows, scores, strict=True):
            ident = vf.owner(row)
            if ident is None or ident in taken:
                continue
            taken.add(ident)
            out.append(Scored(ident, round(score, 6)))
            if len(out) == limit:
                return out
        if want >= vf.rows:
            return out
        want *= 4


def _best_rows(vf: VectorFile, q: Vectors, want: int) -> tuple[Any, Any]:
    """The ``want`` best rows and their scores: by ``convo.embed.simd`` when it can (no
    numpy), else by ``convo.embed.quantized`` (its plain twin)."""
    from convo.embed import simd

    if simd.chosen(vf.dims, vf.rows):
        return simd.top_rows(vf, q, want)
    from convo.embed.quantized import top_rows

    rows, scores = top_rows(vf, _numpy(q), want)
    return rows.tolist(), scores.tolist()


def _numpy(q: Any) -> Vectors:
    import numpy as np

    return np.asarray(q, dtype=np.float32)


def _rank_among(
    vf: VectorFile, q: Vectors, candidates: Iterable[str], limit: int, exclude: str
) -> list[Scored]:
    """Only the candidates' rows, scored in row order; a message's score is its best row's
    (by ``convo.embed.simd`` when it can, else by numpy, ``convo.embed.quantized``)."""
    from convo.embed import simd

    spans = sorted(vf.spans(c for c in candidates if c != exclude), key=lambda s: s[1])
    if not spans:
        return []
    if simd.chosen(vf.dims, sum(s[2] for s in spans)):
        found, scores = simd.best_of_spans(vf, q, [(s[1], s[2]) for s in spans], limit)
        return [
            Scored(spans[i][0], round(score, 6)) for i, score in zip(found, scores, strict=True)
        ]
    import numpy as np

    from convo.embed.quantized import best_of_spans

    q = _numpy(q)
    starts = np.fromiter((s[1] for s in spans), dtype=np.int64, count=len(spans))
    counts = np.fromiter((s[2] for s in spans), dtype=np.int64, count=len(spans))
    offsets = np.cumsum(counts) - counts
    rows = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(offsets, counts)
    rows += np.repeat(starts, counts)
    top, best = best_of_spans(vf, q, rows, offsets, limit)
    return [
        Scored(spans[i][0], round(score, 6))
        for i, score in zip(top.tolist(), best.tolist(), strict=True)
    ]
