"""What each tool does: one ``Store`` call (or the analysis call its command makes).

``Archive.call(name, arguments)`` checks the arguments (``tools.arguments``), builds the
query as every command does (``convo.query.model.build``: the query text and the filters
ANDed, naive times in the server's ``--tz``, people's aliases) and returns plain data.
Nothing here filters or ranks: ``search`` is ``Store.search``, ``query`` is
``Store.select``, ``get_message``/``get_thread`` are ``Store.get``/``Store.thread``,
``people`` is ``analysis.people`` over ``Store.query``, ``stats`` and ``knowledge`` are
the library calls of ``convo stats`` and ``convo knowledge``.

Bounded: at most ``tools.MAX_RESULTS`` results a call, texts cut (``results``). A call
that would read the whole of a store larger than ``scan_limit`` bytes fails with one
line saying so instead of running for minutes: a read through the index when the index
is missing or must be rebuilt (``convo index`` builds it), a query the index cannot
narrow, and ``people``/``stats``/``knowledge``, which read every selected message.
Errors are ``ConvoError``s, shown by the server as the command line shows them.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from typing import Any

from convo.core import fields
from convo.core.errors import InputError, NoStore, UsageError
from convo.mcp import results
from convo.mcp.tools import BY_NAME, arguments
from convo.store import Store

# Bytes a call may read whole (``convo mcp --scan-limit``): knowledge, the slowest, takes
# about 12 s for 40 MB on every core of the 2-core test machine under load (docs/mcp.md).
SCAN_LIMIT = 64 << 20


@dataclass
class Archive:
    """The store the server reads, and how much of it one call may scan."""

    store: Store
    scan_limit: int = SCAN_LIMIT  # 0: no limit

    def call(self, name: str, given: dict[str, Any] | None) -> dict[str, Any]:
        """The result of tool ``name`` called with ``given``."""
        tool = BY_NAME.get(name)
        if tool is None:
            raise UsageError(f"no tool {name!r}", hint=f"tools: {', '.join(BY_NAME)}")
        args = arguments(tool, given)
        self._exists()
        method = getattr(self, name)
        return results.bounded(method(args))

    # -- the tools

    def search(self, args: dict[str, Any]) -> dict[str, Any]:
        self._indexed()
        query = self._query(args)
        mode = args.get("mode")
        extra: dict[str, Any] = {}
        note = ""
        if "mode" in inspect.signature(self.store.search).parameters:
            extra["mode"] = mode
        elif mode not in (None, "fts"):
            note = f"{mode} search is not available in this convo; ranked by keyword (fts)"
        hits = self.store.search(args["text"], query, limit=args["limit"], fts=args["fts"], **extra)
        out: dict[str, Any] = {
            "mode": getattr(hits, "mode", "fts"),
            "messages": [results.message(h.record, score=h.score) for h in hits],
        }
        notes = [note, getattr(hits, "fallback", "")]
        if hits.note:
            notes.append(f"index not available ({hits.note}); searched without it")
        if any(notes):
            out["note"] = "; ".join(n for n in notes if n)
        return out

    def query(self, args: dict[str, Any]) -> dict[str, Any]:
        self._indexed()
        sort = None if args["sort"] == "store" else args["sort"]
        limit = args["limit"]
        q = self._query(args, sort=sort, latest=args.get("latest"), limit=limit + 1)
        chosen = self.store.select(q)
        if not chosen.indexed and q.where is not None and self._big():
            getattr(chosen.batches, "close", lambda: None)()  # the index reader, at once
            raise UsageError(
                f"the index cannot narrow this query ({chosen.plan}) and the store is "
                f"{_size(self._bytes())}: it would read all of it",
                hint="ask with fields the index holds (from:, tag:, date:, thread:...)",
            )
        records = [m.record for batch in chosen.batches for m in batch]
        return results.messages(records, limit)

    def get_message(self, args: dict[str, Any]) -> dict[str, Any]:
        self._indexed()
        record = self._record(args["id"])
        return results.message(record, offset=args["offset"])

    def get_thread(self, args: dict[str, Any]) -> dict[str, Any]:
        self._indexed()
        return self.thread(args["id"], window=args.get("window"), start=args["start"],
                           limit=args["limit"])  # fmt: skip

    def people(self, args: dict[str, Any]) -> dict[str, Any]:
        from convo.analysis.people import identities, merges

        self._whole("people")
        found = identities(self.store.query(self._query(args)), self.store.people)
        limit = args["limit"]
        return {
            "people": [i.to_dict() for i in found[:limit]],
            "more": len(found) > limit,
            "likely_same_person": [m.to_dict() for m in merges(found)][:limit],
        }

    def stats(self, args: dict[str, Any]) -> dict[str, Any]:
        from convo.analysis.stats import stats_of_parts

        self._whole("stats")
        q = self._query(args)
        found = stats_of_parts(self.store.parts(), q.filters(), people=self.store.people)
        return found.to_json()

    def knowledge(self, args: dict[str, Any]) -> dict[str, Any]:
        from convo.analysis.knowledge.ranges import knowledge_of_parts

        self._whole("knowledge")
        q = self._query(args)
        agg = knowledge_of_parts(
            self.store.parts(), q.filters(), summary=True,
            metadata_only=args["metadata_only"], people=self.store.people,
        )  # fmt: skip
        return agg.to_dict(args["top"]) if agg is not None else {}

    # -- a thread, for get_thread and the convo://thread/ID resource

    def thread(
        self, ident: str, *, window: int | None = None, start: int = 0, limit: int = 100
    ) -> dict[str, Any]:
        """The thread ``ident`` names (a thread id, or any message's id: its thread), in
        time order; with ``window``, the messages around that message only."""
        self._exists()
        found = self.store.thread(ident)
        thread_id = fields.conversation_named(found, ident)
        if not found:
            raise InputError(f"no thread or message with id {ident!r}",
                             hint="ids and threads come from search and query")  # fmt: skip
        at = next((i for i, r in enumerate(found) if fields.record_id(r) == ident), None)
        if window is not None and at is not None:
            found = found[max(0, at - window) : at + window + 1]
        page = found[start : start + limit]
        return {
            "thread": thread_id, "total": len(found), "start": start,
            "messages": [results.message(r) for r in page],
            "more": start + limit < len(found),
        }  # fmt: skip

    # -- helpers

    def _query(self, args: dict[str, Any], **order: Any):
        from convo.query.model import Options, build

        options = Options(
            speakers=args.get("speaker", []), listeners=args.get("listener", []),
            tags=args.get("tag", []), since=args.get("since"), until=args.get("until"),
            texts=args.get("words", []),
            regexes=args.get("regex", []), threads=args.get("thread", []),
        )  # fmt: skip
        s = self.store
        return build(args.get("query", ""), options, tz=s.tz, utc=s.utc, people=s.people, **order)

    def _record(self, ident: str) -> dict[str, Any]:
        record = self.store.get(ident)
        if record is None:
            raise InputError(f"no message with id {ident!r}",
                             hint="ids come from search and query")  # fmt: skip
        return record

    def _exists(self) -> None:
        if not self.store.path.exists():
            raise NoStore(str(self.store.path))

    def _bytes(self) -> int:
        try:
            return os.path.getsize(self.store.real)
        except OSError:
            return 0

    def _big(self) -> bool:
        return bool(self.scan_limit) and self._bytes() > self.scan_limit

    def _indexed(self) -> None:
        """Fail when the index cannot answer and the store is too big to scan."""
        if not self._big():
            return
        from convo.index.state import status

        reason = "disabled by CONVO_NO_INDEX=1" if os.environ.get("CONVO_NO_INDEX") == "1" else ""
        if not reason:
            found = status(self.store.real)
            reason = "" if found.state in ("fresh", "append") else found.reason or found.state
        if reason:
            raise UsageError(
                f"the store is {_size(self._bytes())} and its index cannot answer ({reason}): "
                "this call would read all of it",
                hint="run `convo index` once, then ask again",
            )

    def _whole(self, what: str) -> None:
        if self._big():
            raise UsageError(
                f"{what} reads every message of the store, which is {_size(self._bytes())}, "
                f"over this server's scan limit ({_size(self.scan_limit)})",
                hint=f"run `convo {what}` in a shell, or start `convo mcp --scan-limit` higher",
            )


def _size(n: int) -> str:
    """``n`` bytes as a person reads it."""
    if n < 1024:
        return f"{n:,} bytes"
    power = min(3, (n.bit_length() - 1) // 10)
    return f"{n / (1 << (10 * power)):.1f} {('KiB', 'MiB', 'GiB')[power - 1]}"
