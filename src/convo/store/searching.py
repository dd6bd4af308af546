"""``Store.search``: ranked full-text search with the query's filters applied first.

The text is split into filters and ranked words (``convo.query.search_text``); the
filters AND with the given query, and the planner (``convo.query.plan``) compiles them to
the index's SQL, so the candidates are restricted *before* BM25 ranks them (a match in a
date range is found however many better matches lie outside it). When the plan is a
superset (text words, a regex), each hit is checked exactly and the ranking runs over
every candidate. With no word to rank (only filters), the matches come newest first.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from convo.core.errors import UsageError
from convo.index.search import HINT, Hit, Hits, snippet
from convo.index.search import search as fts_search
from convo.query.model import Query, build
from convo.query.plan import compile_where

if TYPE_CHECKING:
    from convo.store.api import Store

ALL = 10**9


def search(
    store: Store, text: str, query: Query, *, limit: int, fts: bool = False, track=None
) -> Hits:
    """The best ``limit`` hits for ``text`` among the messages ``query`` selects."""
    dropped = 0
    if fts:
        match = text
        if not match.strip():
            raise UsageError("empty search query", hint=HINT)
    else:
        from convo.query.search_text import split

        parts = split(text)
        if parts.filters:
            query = query.and_(
                build(parts.filters, tz=store.tz, utc=store.utc, people=store.people).where
            )
        match = parts.match()
        dropped = parts.dropped
    if not match:
        return _newest(store, query, limit)
    if not store.path.exists():
        return Hits()
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
    hits.note = note
    hits.dropped = dropped
    return hits


def _newest(store: Store, query: Query, limit: int) -> Hits:
    """Only filters: the matching messages, newest first."""
    out = Hits()
    for record in store.query(replace(query, sort="-time", limit=limit)):
        out.append(Hit(b"", record, 0.0, snippet(record, [], "")))
    return out
