"""``Store``: the one object that reads and changes the store, for commands and for Python.

    from convo import Store

    store = Store("~/convo/messages.jsonl")
    for record in store.query("from:alice tag:urgent date:2024-03.."):
        print(record["timestamp"], record["textChunks"][0])
    store.count("format:mbox -tag:spam")
    for hit in store.search("what did we decide about login tokens?", "from:bob"):
        print(hit.score, hit.why, hit.record["id"])
    store.similar("<CAF3x9@mail.example.com>", "date:2024..", limit=5)
    store.tag("thread:<auth-1@example.org>", add=["security"], remove=["inbox"])
    store.remove("tag:spam", dry_run=True).matched

A query is a ``convo.query.model.Query`` or query-language text (read with the store's
time zone and people file, as the command line reads it). Reads go through the index
when it is fresh and can answer (``convo.store.select``; the planner is
``convo.query.plan``), else scan the JSONL file; results are identical either way.
Appends (``append``, ``append_messages``) and rewrites (``remove``, ``tag``,
``compact``) hold the store lock; see ``convo.store.append`` and ``convo.store.rewrite``.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from convo.core.plural import counted, plural
from convo.store.append import StoreFile

SEARCH_LIMIT = 20  # hits when none is asked for: Store.search, convo search, MCP, the web view

if TYPE_CHECKING:
    from convo.core.people import People
    from convo.embed.protocol import Embedder
    from convo.index.search import Hits
    from convo.query.model import Query
    from convo.store.rewrite import MaintenanceResult
    from convo.store.select import Selection


class _Skipped:
    """The lines of a library read that are not records: counted, the first kept, said
    once at the end (Python's warnings: a library does not print)."""

    def __init__(self, path: Any):
        self.path, self.n, self.first = path, 0, ""

    def __call__(self, error: Exception, line: Any) -> None:
        self.n += 1
        self.first = self.first or str(error)

    def warn(self) -> None:
        if self.n:
            import warnings

            warnings.warn(
                f"{counted(self.n, 'line')} of {self.path} "
                f"{plural(self.n, 'is not a record and was', 'are not records and were')} skipped "
                f"(the first: {self.first}); `convo validate` lists them, `convo compact` sets "
                "them aside",
                RuntimeWarning,
                stacklevel=3,
            )


class Store(StoreFile):
    """The store at ``path`` (``--store``, else ``$CONVO_STORE``, else the XDG default).

    ``tz``: the zone naive query times are read in (default: local); ``people``: a people
    file's ``People``, so a name matches every alias of its person; ``embedder``: the
    model that embeds search texts (default: the one the store's vectors were made with,
    made on first use and kept).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        tz: str | None = None,
        utc: bool = False,
        people: People | None = None,
        embedder: Embedder | None = None,
    ):
        super().__init__(path)
        self.tz = tz
        self.utc = utc
        self.people = people
        self.embedder = embedder

    # -- reading

    def query_of(self, query: Query | str | None = None, **order: Any) -> Query:
        """``query`` as a ``Query`` (text is read by the rules of ``query.model.build``)."""
        from convo.query.model import Query, build

        if isinstance(query, Query):
            return query.replace(**order) if order else query
        return build(query or "", tz=self.tz, utc=self.utc, people=self.people, **order)

    def parts(self) -> list[Any]:
        """The store file as the scan's input (an empty list when it does not exist)."""
        from convo.store.select import RawFile

        return [RawFile(str(self.real))] if self.path.exists() else []

    def select(
        self, query: Query | str | None = None, *, on_error=None, need_record: bool = True,
        track=None,
    ) -> Selection:  # fmt: skip
        """The matches of ``query`` in batches, with how they were found (the plan)."""
        from convo.store.select import select

        return select(
            self.query_of(query), self.parts(), store=self._indexable(), on_error=on_error,
            need_record=need_record, track=track,
        )  # fmt: skip

    def query(self, query: Query | str | None = None, **order: Any) -> Iterator[dict[str, Any]]:
        """The records ``query`` selects (``order``: ``limit``, ``reverse``, ``sort``,
        ``latest``). Lines of the store that are not records (a torn last line, a
        hand-edited line) are skipped and, once the read ends, said in one
        ``RuntimeWarning`` with their count and the first one's place, as the command
        line says them; ``select(on_error=...)`` sees each."""
        skipped = _Skipped(self.path)
        try:
            for batch in self.select(self.query_of(query, **order), on_error=skipped).batches:
                for m in batch:
                    yield m.record
        finally:  # a read cut short (a break, next()) says what it met too
            skipped.warn()

    def count(self, query: Query | str | None = None) -> int:
        """How many records ``query`` selects (lines that are not records: as ``query``)."""
        from convo.store.select import count

        skipped = _Skipped(self.path)
        n, _ = count(self.query_of(query), self.parts(), store=self._indexable(), on_error=skipped)
        skipped.warn()
        return n

    def get(self, message_id: str) -> dict[str, Any] | None:
        """The record with this id, or None."""
        from convo.core.errors import check_decoded
        from convo.query.model import Query
        from convo.query.tree import Term

        check_decoded(message_id)
        return next(self.query(Query(Term("id", message_id), limit=1)), None)

    def thread(self, thread_id: str) -> list[dict[str, Any]]:
        """The messages of a conversation (``fields.conversation``: a thread, or the file
        of messages without one), in time order. ``thread_id`` may also be the id of any
        of its messages."""
        from convo.core import fields
        from convo.core.errors import check_decoded
        from convo.query.model import Query
        from convo.query.tree import Term

        check_decoded(thread_id)
        found = list(self.query(Query(Term("thread", thread_id), sort="time")))
        if len(found) == 1 and (other := fields.conversation(found[0])) not in (None, thread_id):
            found = list(self.query(Query(Term("thread", other), sort="time")))
        return found

    def search(
        self, text: str, query: Query | str | None = None, *, limit: int = SEARCH_LIMIT,
        mode: str | None = None, fts: bool = False, track=None,
    ) -> Hits:  # fmt: skip
        """The best ``limit`` messages for ``text`` (what a person types: field terms
        filter, the rest is ranked; ``convo.query.search_text``) among those ``query``
        selects, the filters applied before the ranking. ``mode``: ``fts`` (BM25),
        ``semantic`` (meaning), ``hybrid`` (both fused); None: hybrid when the store has
        vectors (``convo embed``), else fts (``convo.store.searching``). ``fts``: ``text``
        is FTS5 syntax, used as it is."""
        from convo.store.searching import search

        return search(
            self, text, self.query_of(query), limit=limit, fts=fts, mode=mode, track=track
        )  # fmt: skip

    def explain(
        self, text: str | None, query: Query | str | None = None, *, fts: bool = False,
        mode: str | None = None,
    ) -> str:  # fmt: skip
        """``--explain`` of ``search(text, query)`` (``text`` None: of ``similar``): the
        ranking, and how the filters' candidates are found."""
        from convo.store.searching import explain

        return explain(self, text, self.query_of(query), fts=fts, mode=mode)

    def similar(
        self, message_id: str, query: Query | str | None = None, *, limit: int = 20
    ) -> Hits:
        """The ``limit`` messages nearest in meaning to message ``message_id`` (itself
        left out) among those ``query`` selects; needs the store's vectors."""
        from convo.store.meaning import similar

        return similar(self, message_id, self.query_of(query), limit=limit)

    def _indexable(self):
        """The store's real path when it exists (the index lives beside it)."""
        return self.real if self.path.exists() else None

    # -- changing

    def remove(
        self, query: Query | str | None = None, *, ids: Collection[str] = (),
        dry_run: bool = False, track=None,
    ) -> MaintenanceResult:  # fmt: skip
        """Remove the messages ``query`` (and ``ids``, when given) select; ``track``
        wraps the lines read (a progress line), in ``remove``, ``tag`` and ``compact``.
        A dry run the index answers reads no line of the store (``_preview``)."""
        from convo.store.rewrite import remove

        q = self.query_of(query)
        if dry_run and (preview := self._preview(q, ids)) is not None:
            from convo.store.rewrite import removed

            return removed(preview)
        return remove(
            self, ids=ids, matcher=self._matcher(q), dry_run=dry_run, track=track,
            within=_required(q),
        )  # fmt: skip

    def tag(
        self, query: Query | str | None = None, *, add: Sequence[str] = (),
        remove: Sequence[str] = (), ids: Collection[str] = (), dry_run: bool = False,
        track=None,
    ) -> MaintenanceResult:  # fmt: skip
        """Add the tags ``add`` to and remove ``remove`` from the selected messages."""
        from convo.store.rewrite import retagged, tag

        q = self.query_of(query)
        if dry_run and (preview := self._preview(q, ids)) is not None:
            return retagged(preview, add, remove)
        return tag(
            self, add=add, remove=remove, ids=ids, matcher=self._matcher(q),
            dry_run=dry_run, track=track, within=_required(q),
        )  # fmt: skip

    def compact(self, *, dry_run: bool = False, track=None) -> MaintenanceResult:
        """Drop lines that are not records and repeated ids (kept in ``<store>.torn``)."""
        from convo.store.rewrite import compact

        return compact(self, dry_run=dry_run, track=track)

    def _preview(self, q: Query, ids: Collection[str]) -> Iterator[dict[str, Any]] | None:
        """The records a dry run of ``rm`` or ``tag`` selects, as they are read, when the
        store's index answers ``q`` (``store.select.through_index``; ``ids`` checked on
        them), else None (the dry run reads the store as the change would). Not a list:
        the dry run keeps their count and first ids only, whatever the selection's size."""
        if not self.path.exists():
            return None
        from convo.core import fields
        from convo.store.select import through_index

        chosen = through_index(q, self.real)
        if chosen is None:
            return None
        records = (m.record for batch in chosen.batches for m in batch)
        wanted = set(ids)
        return (r for r in records if not wanted or fields.record_id(r) in wanted)

    def _matcher(self, query: Query | str | None):
        """The exact check of ``query``, or None when it selects everything."""
        q = self.query_of(query)
        if q.where is None:
            return None
        from convo.query.scan import Selector

        return Selector(q.filters()).matches


def _required(q: Query) -> frozenset[str] | None:
    """The ids every record ``q`` selects has one of (``store.idlines``), or None."""
    from convo.store.idlines import required_ids

    return required_ids(q.where)
