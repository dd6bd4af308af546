"""The JSON API of ``convo serve``: every answer is a ``convo.store.Store`` call (the same
calls the commands and the memory API make), read-only, shaped for the page.

Routes (all GET; parameters in the query string; ``ROUTES``):

- ``/api/search?q=TEXT&mode=keyword|meaning&limit=N``: ``Store.search`` (what a person
  types: query-language terms filter, the other words are ranked, ``convo search``'s
  rule and its default limit, so the ids are ``convo search -f jsonl``'s); ``meaning``:
  ``convo.embed.semantic`` among the messages the terms select, when the store has
  vectors (``meaning`` in ``/api/facets`` says whether it has); ``convo search
  --mode``'s ``fts``, ``semantic`` and ``hybrid`` are taken too, any other mode is a
  400, never a silent keyword search. Hits carry the snippet
  as ``[text, is_hit]`` pieces: the page marks them up as text, never as HTML.
- ``/api/message?id=ID``: ``Store.get``; ``/api/thread?id=ID``: ``Store.thread`` (time
  order) with each message's reply depth; a message with no thread (a transcript's
  cues) opens the thread-less messages of its source file, which are its conversation.
- ``/api/person?name=NAME``: the person's messages counted (``analysis.stats``: first,
  last, timeline, formats), aliases (the people file's, and the likely merges of
  ``analysis.people``), top topics (``analysis.knowledge``'s summary of their messages).
- ``/api/facets``: the busiest speakers, tags and formats (``convo stats``'s call over
  the store, on every core for a large one), for the filter chips; computed once per
  state of the store file, as are the likely merges a person page shows.

A message goes out as its record plus ``view``: the family of its format (transcript,
email, chat, forum: ``importers.registry``, so a third-party format is shown by its
family), a transcript's offset, a mail's headers. Untrusted text is data: the page puts
it in the DOM with ``textContent`` only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeGuard

from convo.core import fields
from convo.core.errors import UsageError
from convo.core.timestamps import offset_text
from convo.store import Store
from convo.store.api import SEARCH_LIMIT

MAX_LIMIT = 500
FACETS = 30
MAX_DEPTH = 8


class Api:
    """The routes over one store; a lock makes the store's calls one at a time."""

    def __init__(self, store: Store):
        self.store = store
        self.lock = threading.Lock()
        self._families: dict[str, str] | None = None
        self._cache: dict[str, tuple[Any, Any]] = {}

    def answer(self, route: str, params: dict[str, str]) -> dict[str, Any]:
        handler = ROUTES.get(route)
        if handler is None:
            raise LookupError(route)
        with self.lock:
            return handler(self, params)

    # -- shaping

    def families(self) -> dict[str, str]:
        if self._families is None:
            from convo.importers.registry import registry

            self._families = registry.families()
        return self._families

    def message(self, record: dict[str, Any]) -> dict[str, Any]:
        family = self.families().get(fields.string(record, "format") or "", "chat")
        view: dict[str, Any] = {"family": family}
        extra = fields.extra(record)
        start = extra.get("start")
        if family == "transcript" and _seconds(start):
            view["offset"] = offset_text(start)
        if family == "email":
            view["headers"] = [
                [k, v]
                for k, v in (
                    ("From", fields.speaker(record) or ""),
                    ("To", ", ".join(fields.str_list(extra.get("to")) or fields.listeners(record))),
                    ("Cc", ", ".join(fields.str_list(extra.get("cc")))),
                    ("Subject", fields.string(record, "subject") or ""),
                    ("Date", fields.timestamp(record)),
                )
                if v
            ]
        return {**record, "view": view}

    # -- routes

    def search(self, params: dict[str, str]) -> dict[str, Any]:
        text = params.get("q", "").strip()
        limit = _limit(params.get("limit"))
        if not text:
            return {"hits": [], "note": ""}
        asked = params.get("mode") or "keyword"
        if asked not in _MODES:
            raise UsageError(
                f"unknown search mode {asked!r}",
                hint="mode is keyword or meaning (or convo search's fts, semantic, hybrid)",
            )
        mode = _MODES[asked]
        if mode == "semantic":
            return self._meaning(text, limit)
        return self._hits(self.store.search(text, None, limit=limit, mode=mode))

    def _meaning(self, text: str, limit: int) -> dict[str, Any]:
        """``Store.search`` by meaning: ``convo search --mode semantic``'s call, so the
        ids are that command's (the terms filter first, the other words are embedded)."""
        if not self.has_vectors():
            raise UsageError("this store has no vectors", hint="run `convo embed` first")
        return self._hits(self.store.search(text, None, limit=limit, mode="semantic"))

    def _hits(self, hits: Any) -> dict[str, Any]:
        """The hits of a search as the page shows them, with the search's notes."""
        notes = [hits.note and f"index not available ({hits.note}); searched without it",
                 hits.fallback, hits.notice]  # fmt: skip
        return {
            "hits": [
                {**self.message(h.record), "score": h.score, "snippet": h.snippet} for h in hits
            ],
            "note": "; ".join(n for n in notes if n),
        }

    def has_vectors(self) -> bool:
        from convo.embed.vectors import paths

        return self.store.path.exists() and all(p.exists() for p in paths(self.store.real))

    def get(self, params: dict[str, str]) -> dict[str, Any]:
        record = self.store.get(params.get("id", ""))
        if record is None:
            raise LookupError("no message with this id")
        return {"message": self.message(record)}

    def thread(self, params: dict[str, str]) -> dict[str, Any]:
        ident = params.get("id", "")
        records = self.store.thread(ident)  # time order; a cue's: its file's messages
        if not records:
            raise LookupError("no thread with this id")
        depth: dict[str, int] = {}
        out = []
        for r in records:
            parent = fields.string(r, "replyTo")
            d = min(MAX_DEPTH, depth[parent] + 1) if parent in depth else 0
            rid = fields.record_id(r)
            if rid is not None:
                depth.setdefault(rid, d)
            out.append({**self.message(r), "depth": d})
        return {"thread": fields.conversation_named(records, ident), "messages": out}

    def person(self, params: dict[str, str]) -> dict[str, Any]:
        from convo.analysis.knowledge.summary import aggregate
        from convo.analysis.stats import compute
        from convo.query.model import Options, build

        name = params.get("name", "")
        if not name.strip():  # `-s ''` would be every message with a speaker
            raise UsageError("a person needs a name", hint="/api/person?name=NAME")
        # `-s NAME`'s query: the person's every alias with a people file, as queries do
        query = build(options=Options(speakers=[name]), people=self.store.people)
        stats = compute(self.store.query(query)).to_json()
        if not stats["messages"]:
            raise LookupError("no messages from this person")
        topics = aggregate(self.store.query(query)).to_dict(10).get("topics", [])
        return {
            "name": name,
            "aliases": self._aliases(name),
            "messages": stats["messages"],
            "first": stats["first"],
            "last": stats["last"],
            "timeline": stats["timeline"],
            "formats": stats["formats"],
            "topics": topics,
        }

    def _aliases(self, name: str) -> list[str]:
        found: list[str] = []
        if self.store.people is not None:
            found.extend(self.store.people.aliases_for(name))
        for merge in self._merges():
            if name in merge:
                found.extend(merge)
        return [a for a in dict.fromkeys(found) if a != name]

    def _cached(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()``, computed again only when the store file changed."""
        path = self.store.real if self.store.path.exists() else None
        state = path.stat()[7:] if path is not None else None
        held = self._cache.get(key)
        if held is None or held[0] != state:
            held = (state, make())
            self._cache[key] = held
        return held[1]

    def _merges(self) -> list[list[str]]:
        """``convo people``'s likely merges over the whole store (first person page)."""
        from convo.analysis.people import identities, merges

        def make() -> list[list[str]]:
            idents = identities(self.store.query(None), self.store.people)
            return [list(m.names) for m in merges(idents)]

        return self._cached("merges", make)

    def _stats(self) -> dict[str, Any]:
        """``convo stats`` of the whole store: the same call, on every core when large."""
        from convo.analysis.stats import stats_of_parts
        from convo.query.filters import Filters

        return self._cached(
            "stats",
            lambda: stats_of_parts(
                self.store.parts(), Filters(), people=self.store.people
            ).to_json(),
        )

    def facets(self, _params: dict[str, str]) -> dict[str, Any]:
        stats = self._stats()

        def top(key: str) -> list[dict[str, Any]]:
            rows = [r for r in stats[key] if r["name"] != "(none)"][:FACETS]
            return [{"name": r["name"], "messages": r["messages"]} for r in rows]

        return {
            "messages": stats["messages"],
            "speakers": top("speakers"),
            "tags": top("tags"),
            "formats": top("formats"),
            "first": stats["first"],
            "last": stats["last"],
            "meaning": self.has_vectors(),
        }


def _seconds(value: Any) -> TypeGuard[float]:
    """A cue offset: a number of seconds, not a bool, inf or nan."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return number and abs(value) < 1e12


# The page's modes, and ``convo search --mode``'s spellings of them: keyword is the
# command's default (hybrid when the store has vectors, else BM25).
_MODES = {"keyword": None, "meaning": "semantic", "fts": "fts", "semantic": "semantic",
          "hybrid": "hybrid"}  # fmt: skip


def _limit(value: str | None) -> int:
    if not value:
        return SEARCH_LIMIT
    try:
        n = int(value)
    except ValueError:
        raise UsageError(f"limit must be a number, not {value!r}") from None
    return max(1, min(MAX_LIMIT, n))


ROUTES: dict[str, Callable[[Api, dict[str, str]], dict[str, Any]]] = {
    "/api/search": Api.search,
    "/api/message": Api.get,
    "/api/thread": Api.thread,
    "/api/person": Api.person,
    "/api/facets": Api.facets,
}
