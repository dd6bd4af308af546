"""``Store.search``: ranked search with the query's filters applied first.

The text is split into filters and free text (``convo.query.search_text``); the filters
AND with the given query and restrict the candidates *before* anything is ranked (a
match in a date range is found however many better matches lie outside it). Three modes:

- ``fts``: BM25 over the index's full text among the candidates, a message whose id
  the text names first (``convo.store.keyword``).
- ``semantic``: the nearest in meaning among the candidates (``convo.store.meaning``).
- ``hybrid``: keyword and meaning fused (``convo.store.meaning``).

``mode`` None is ``hybrid`` when the store has vectors and the ``[embed]`` extra loads,
else ``fts``; vectors without the extra rank by keyword and say why in
``Hits.fallback`` (the command prints it once), as does a default search whose meaning
half fails (a model server down, vectors of another model). Asking for ``semantic`` or ``hybrid``
without vectors or without the extra is one ``UsageError`` with the fix: a search that
silently answered by keyword would look like a poor search by meaning. With no word to
rank (only filters), the matches come newest first whatever the mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo.core.errors import UsageError, check_decoded
from convo.index.search import HINT, Hit, Hits
from convo.query.model import Query, build
from convo.query.plan import compile_where
from convo.store.keyword import keyword

if TYPE_CHECKING:
    from convo.store.api import Store

MODES = ("fts", "semantic", "hybrid")


def search(
    store: Store, text: str, query: Query, *, limit: int, fts: bool = False,
    mode: str | None = None, track=None,
) -> Hits:  # fmt: skip
    """The best ``limit`` hits for ``text`` among the messages ``query`` selects."""
    check_decoded(text)  # a lone surrogate reached SQLite: an internal error
    if mode is not None and mode not in MODES:
        raise UsageError(f"unknown search mode {mode!r}", hint="choose fts|semantic|hybrid")
    if fts:
        if mode not in (None, "fts"):
            raise UsageError(f"FTS5 syntax searches by keyword only, not {mode}", hint=HINT)
        if not text.strip():
            raise UsageError("empty search query", hint=HINT)
        return keyword(store, text, query, limit=limit, track=track)
    from convo.query.search_text import split

    parts = split(text)
    dropped = parts.dropped  # pieces beyond the bound, said by the caller
    if parts.filters:
        query = query.and_(
            build(parts.filters, tz=store.tz, utc=store.utc, people=store.people).where
        )
    match = parts.match()
    if not match:
        return _dropped(_newest(store, query, limit), dropped)
    if not store.path.exists():
        return Hits()
    chosen, fallback = choose_mode(store, mode)
    if chosen == "fts":
        hits = keyword(store, match, query, limit=limit, track=track, free=parts.free)
        hits.fallback = fallback
        return _dropped(hits, dropped)
    from convo.core.errors import ConvoError
    from convo.store.meaning import ranked

    try:
        return _dropped(ranked(store, parts.free, query, chosen, limit=limit, track=track), dropped)
    except ConvoError as e:
        if mode is not None:
            raise
        # The default mode, and meaning cannot be had (a model server down, vectors
        # of another model): the keyword answer, saying why, rather than none.
        hits = keyword(store, match, query, limit=limit, track=track, free=parts.free)
        hits.fallback = f"searched by keyword only: {e}"
        return _dropped(hits, dropped)


def _dropped(hits: Hits, dropped: int) -> Hits:
    hits.dropped = dropped
    return hits


def choose_mode(store: Store, mode: str | None) -> tuple[str, str]:
    """The mode to run and, when meaning was wanted but cannot be had, why not."""
    from convo.embed.registry import unavailable
    from convo.embed.vectors import paths

    if mode == "fts":
        return "fts", ""
    has_vectors = paths(store.real)[1].exists()
    why = None if store.embedder else unavailable(_recorded(store) if has_vectors else None)
    if mode is None:
        if not has_vectors:
            return "fts", ""
        return ("fts", why) if why else ("hybrid", "")
    if why:
        raise UsageError(why.split(";")[0], hint="or search with --mode fts")
    return mode, ""


def _recorded(store: Store) -> str | None:
    from convo.embed.vectors import recorded_choice

    return recorded_choice(store.real)


def _newest(store: Store, query: Query, limit: int) -> Hits:
    """Only filters: the matching messages, newest first."""
    out = Hits()
    for record in store.query(query.replace(sort="-time", limit=limit)):
        out.append(Hit(b"", record, 0.0))
    return out


def explain(
    store: Store, text: str | None, query: Query, *, fts: bool = False, mode: str | None = None
) -> str:
    """``--explain`` of a search (``text`` None: ``similar``): how it ranks, and how the
    index finds its filters' candidates (``query.plan.explain``'s words)."""
    ranking = "meaning" if text is None else "fts"
    if text is not None and not fts:
        from convo.query.search_text import split

        parts = split(text)
        if parts.filters:
            query = query.and_(
                build(parts.filters, tz=store.tz, utc=store.utc, people=store.people).where
            )
        ranking = choose_mode(store, mode)[0] if parts.match() else "newest first"
    return f"plan: search ({ranking}); filters: {filters_plan(store, query)}"


def filters_plan(store: Store, query: Query) -> str:
    """How the candidates of ``query`` are found: the planner's line without its
    ``plan:``, or why the index cannot say."""
    if query.where is None:
        return "none"
    from convo.index.lookup import reader
    from convo.query.plan import explain as planned

    with reader(store.real) as r:
        if isinstance(r, str):
            return f"scan ({r})"
        return planned(compile_where(r.conn, query.where)).removeprefix("plan: ")
