"""The ``fts`` mode of ``Store.search``, and the keyword lists of ``hybrid``: BM25 over the
index's full text (``convo.index.search``) among the messages the query's filters
select, a message whose id the question names first.

The planner (``convo.query.plan``) compiles the filters to the index's SQL; when the
plan is a superset (text words, a regex), each hit is checked exactly and the ranking
runs over every candidate. A token of the text that is a message's id (a pasted
Message-ID: the full-text index holds subjects and text, not ids) puts that message
first. ``convo.store.searching`` chooses the mode; ``convo.store.meaning`` fuses these
lists with the nearest in meaning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from convo.core import fields
from convo.index.search import Hit, Hits
from convo.index.search import search as fts_search
from convo.query.model import Query
from convo.query.plan import compile_where
from convo.query.tree import all_of
from convo.query.tree import terms as any_term

if TYPE_CHECKING:
    from convo.store.api import Store

ALL = 10**9
MAX_ID_TOKENS = 32  # tokens of a question looked up as message ids at most


def keyword(
    store: Store, match: str, query: Query, *, limit: int, track=None, free: str = ""
) -> Hits:
    """BM25's best ``limit`` for the FTS5 ``match`` among the messages ``query`` selects;
    first, the messages whose id is a token of ``free``."""
    exact = True

    def narrow(conn) -> tuple[str, tuple[Any, ...]]:
        nonlocal exact
        plan = compile_where(conn, query.where)
        exact = plan.exact
        return plan.cond, plan.params

    hits, note = fts_search(store.real, match, narrow, limit=limit, track=track)
    if not exact:  # a superset: rank every candidate, keep the best that match exactly
        from convo.query.scan import Selector

        matches = Selector(query.filters()).matches
        hits, note = fts_search(store.real, match, narrow, limit=ALL, track=track)
        hits[:] = [h for h in hits if matches(h.record)][:limit]
    named = by_id(store, free, query)
    if named:
        top = max((h.score for h in hits), default=1.0)
        for h in named:
            h.score = top
        seen = {fields.record_id(h.record) for h in named}
        kept = [h for h in hits if fields.record_id(h.record) not in seen]
        hits[:] = (named + kept)[:limit]
    hits.note = note
    return hits


def by_id(store: Store, free: str, query: Query) -> list[Hit]:
    """The messages ``query`` selects whose id is ``free`` or one of its tokens (ids
    hold punctuation or digits: plain words are not looked up)."""
    from convo.embed.fusion import tokens

    found = [t for t in (free.strip(), *tokens(free)) if t and not t.isalpha()]
    wanted = list(dict.fromkeys(found))[:MAX_ID_TOKENS]
    if not wanted:
        return []
    where = all_of([any_term("id", wanted), query.where])
    order = {ident: n for n, ident in enumerate(wanted)}
    out: list[Hit] = []
    for batch in store.select(Query(where)).batches:
        for m in batch:
            out.append(Hit(m.raw, m.record, 0.0, query=free))
    out.sort(key=lambda h: order.get(fields.record_id(h.record) or "", len(order)))
    return out
