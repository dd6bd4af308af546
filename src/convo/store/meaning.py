"""Search by meaning in the store: the ``semantic`` and ``hybrid`` modes of
``Store.search``, and ``Store.similar``.

Candidates first: when the query filters, the ids of the messages it selects
(``candidate_ids``: one SQL query when the planner's condition is exact, else the
planner's superset checked message by message) are the only rows the vectors score
(``convo.embed.nearest``), and the keyword lists run under the same filters
(``convo.store.keyword``). So a match inside a date range is found however
many closer messages lie outside it, and every hit satisfies the filters.

``hybrid`` fuses three lists, each ``DEPTH`` deep (``convo.embed.fusion.hybrid``): the
*exact* list (a message whose id is a token of the text, then those holding every
token: an error string, a version, a Message-ID), the *loose* list (any content word,
by BM25; only its best ``fusion.LOOSE_DEPTH`` count, and only they are read) and the
nearest in meaning. Fusion keeps a hit that only one list has, and the exact list
weighs double, so an exact token the vectors do not rank still comes first.
Each hit says why it matched: ``keyword``, ``meaning`` or ``both``.

The meaning half runs on a second thread while the keyword lists run (``_meaning_beside``):
loading the model and embedding the question is a good part of a search's start-up, and
SQLite and simsimd's kernels (or numpy's, ``convo.embed.simd.usable``) let go of the
interpreter while they work. With the default model and simsimd installed, a search
does not import numpy (``convo.embed.simd``).

The embedder is made once per ``Store`` (``Store.embedder``; by default the model the
vectors were made with) and kept, so a program that searches many times loads it once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from convo.core import fields
from convo.core.plural import counted
from convo.index.search import Hit, Hits
from convo.query.model import Query
from convo.query.tree import terms as any_term
from convo.store.keyword import by_id, keyword

if TYPE_CHECKING:
    from convo.embed.protocol import Embedder
    from convo.store.api import Store

DEPTH = 50  # hits each list gives the fusion
# A hybrid search whose words no message holds still lists the nearest in meaning, the
# first at 100% (scores are shares of the best): say so, or they read as matches.
NO_KEYWORD = "no message holds these words: these are only the nearest in meaning"


def ranked(store: Store, free: str, query: Query, mode: str, *, limit: int, track=None) -> Hits:
    """The best ``limit`` messages for the free text ``free`` by ``mode`` (``semantic`` or
    ``hybrid``) among those ``query`` selects."""
    from convo.embed.fusion import Fused, hybrid
    from convo.embed.nearest import semantic

    depth = max(limit, DEPTH)
    known: dict[str, Hit] = {}
    out = Hits()
    out.notice = _upgraded(store)
    lists: list[list[str]] = [[], []]
    if mode == "hybrid":
        meaning_of = _meaning_beside(store, free, query, depth)
        try:
            lists = _keyword_lists(store, free, query, depth, known, out, track)
        except Exception:
            with contextlib.suppress(Exception):  # this error is the one to tell
                meaning_of()
            raise
        meaning = meaning_of()
    else:
        candidates = candidate_ids(store, query)
        meaning = semantic(store.real, free, candidates, depth, embedder=embedder_of(store))
    if mode == "hybrid":
        fused = hybrid(lists[0], lists[1], [s.id for s in meaning], limit)
    else:
        fused = [Fused(s.id, s.score, "meaning") for s in meaning[:limit]]
    out.extend(_hits(store, fused, known, free))
    out.mode = mode
    if mode == "hybrid" and out and not any(lists):
        out.notice = "; ".join(filter(None, (out.notice, NO_KEYWORD)))
    return out


def _meaning_beside(store: Store, free: str, query: Query, depth: int) -> Callable[[], list]:
    """Start the meaning half of a hybrid search on a second thread; what gives its
    nearest ``depth`` messages (or raises its error). The thread loads the model and
    embeds ``free`` while the keyword lists run on
    this one, in SQLite, which lets go of the interpreter; with no filter it also scans
    the vectors. With filters, the candidates are read from the index
    and scored here, after the keyword lists: the index is read by one thread at a time."""
    from convo.embed.nearest import query_vector, semantic

    def vector() -> tuple[Embedder, Any]:
        model = embedder_of(store)
        return model, query_vector(model, free)

    def nearest(candidates: list[str] | None, made: tuple[Embedder, Any]) -> list:
        return semantic(store.real, free, candidates, depth, embedder=made[0], vector=made[1])

    if query.where is None:
        return _beside(lambda: nearest(None, vector()))
    made = _beside(vector)
    return lambda: nearest(candidate_ids(store, query), made())


def _beside(task: Callable[[], Any]) -> Callable[[], Any]:
    """``task`` started on a daemon thread; what waits for it and gives its result, or
    raises its exception."""
    import threading

    done: list[Any] = []

    def run() -> None:
        try:
            done.append((True, task()))
        except BaseException as e:  # raised again on the caller's thread, below
            done.append((False, e))

    thread = threading.Thread(target=run, name="convo-meaning", daemon=True)
    thread.start()

    def result() -> Any:
        thread.join()
        ok, value = done[0]
        if not ok:
            raise value
        return value

    return result


def _keyword_lists(
    store: Store, free: str, query: Query, depth: int, known: dict[str, Hit], out: Hits,
    track,
) -> list[list[str]]:  # fmt: skip
    """The exact list (a pasted id, every token, every special token) and the loose one."""
    from convo.embed.fusion import LOOSE_DEPTH, exact_query, loose_query, special_query

    lists: list[list[str]] = [_ids(Hits(by_id(store, free, query)), known), []]
    for n, match in ((0, exact_query(free)), (0, special_query(free)), (1, loose_query(free))):
        if match:
            deep = depth if n == 0 else min(depth, LOOSE_DEPTH)  # only those count
            hits = keyword(store, match, query, limit=deep, track=track)
            out.note = out.note or hits.note
            lists[n] = list(dict.fromkeys(lists[n] + _ids(hits, known)))
    return lists


def similar(store: Store, message_id: str, query: Query, *, limit: int) -> Hits:
    """The ``limit`` messages nearest in meaning to message ``message_id`` (itself left
    out) among those ``query`` selects. A message the store does not hold is an error,
    though its vectors may be there still (``convo rm`` leaves them to the next ``convo
    embed``): "similar to what is gone" would answer from a message nobody can see."""
    from convo.embed.fusion import Fused
    from convo.embed.nearest import similar as nearest

    notice = _upgraded(store)
    if store.get(message_id) is None:
        from convo.core.errors import UsageError

        raise UsageError(
            f"no message with id {message_id!r}", where=str(store.path),
            hint="ids come from `convo search` and `convo query`",
        )  # fmt: skip
    found = nearest(store.real, message_id, candidate_ids(store, query), limit)
    out = Hits(_hits(store, [Fused(s.id, s.score, "meaning") for s in found], {}, ""))
    out.notice = notice
    out.mode = "semantic"
    return out


def _upgraded(store: Store) -> str:
    """Give vectors made before their int8 copy existed that copy, once; what to say."""
    from convo.embed.vectors import upgrade

    n = upgrade(store.real)
    return (
        f"gave the store's vectors their int8 search copy ({counted(n, 'row', grouped=True)}; once)"
        if n
        else ""
    )


def embedder_of(store: Store) -> Embedder:
    """The store's embedder: the one given, else the one its vectors were made with."""
    if store.embedder is None:
        from convo.embed.nearest import open_vectors, query_embedder

        vf = open_vectors(store.real)
        try:
            store.embedder = query_embedder(vf, None, store.real)
        finally:
            vf.close()
    return store.embedder


def candidate_ids(store: Store, query: Query) -> list[str] | None:
    """The ids of the messages ``query`` selects; None when it selects every message."""
    if query.where is None:
        return None
    from convo.index.lookup import reader
    from convo.query.plan import compile_where

    with reader(store.real) as r:
        if not isinstance(r, str):
            plan = compile_where(r.conn, query.where)
            if plan.exact:
                sql = f"SELECT m.id FROM messages m WHERE {plan.cond}"
                return [i for (i,) in r.conn.execute(sql, plan.params) if i]
    selection = store.select(Query(query.where))
    return [i for batch in selection.batches for m in batch if (i := fields.record_id(m.record))]


def _ids(hits: Hits, known: dict[str, Hit]) -> list[str]:
    out = []
    for h in hits:
        ident = fields.record_id(h.record)
        if ident:
            known.setdefault(ident, h)
            out.append(ident)
    return out


def _hits(store: Store, fused: list, known: dict[str, Hit], free: str) -> list[Hit]:
    """The fused ids as hits: the keyword lists' records, the others read by id."""
    missing = [f.id for f in fused if f.id not in known]
    if missing:
        for batch in store.select(Query(any_term("id", missing))).batches:
            for m in batch:
                ident = fields.record_id(m.record)
                if ident:
                    known.setdefault(ident, Hit(m.raw, m.record, 0.0, []))
    out = []
    for f in fused:
        h = known.get(f.id)
        if h is not None:  # None: the message left the store since it was embedded
            out.append(Hit(h.raw, h.record, f.score, why=f.why, query=free))
    return out
