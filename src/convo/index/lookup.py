"""Indexed reads: the lines matching speaker/listener/tag/thread/time/format/role filters.

Results are those of the scan with the same filters (``convo.query.scan``), in store
order unless sorted: the index only narrows which lines are read, by byte offset, from
the very file the index describes (its inode is checked on the open descriptor, so a
rewrite renamed over the store meanwhile cannot mix versions).

Filter semantics (as the scan's): repeating a filter ORs, different filters AND;
names by ``convo.core.names.NameQuery``; tags case-insensitively equal; ``since <= time
< until``; thread equal to ``thread`` or ``id``; format and role equal.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from convo.core.field_filters import FieldFilters
from convo.core.names import NameQuery
from convo.index import schema
from convo.index.state import Track, judge, refresh

ORDERS = {
    "store": "m.message_id",
    "-store": "m.message_id DESC",  # --reverse: with a limit, the last N matches, last first
    "time": "m.timestamp, m.message_id",
    "-time": "m.timestamp DESC, m.message_id DESC",
}


@dataclass
class IndexQuery(FieldFilters):
    formats: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)

    @classmethod
    def from_filters(cls, filters: Any) -> IndexQuery | None:
        """The whole of a ``query.Filters`` (or any object with those attributes) as an
        index query; None when it also filters on text or regexes (not in the index), or
        is a query-language tree (its flat fields are then prefilter hints only)."""
        if getattr(filters, "tree", None) is not None:
            return None
        if getattr(filters, "texts", None) or getattr(filters, "regexes", None):
            return None
        return cls.part_of(filters)

    @classmethod
    def part_of(cls, filters: Any) -> IndexQuery:
        """The indexable part of ``filters`` (text and regexes left out): what it selects
        is a superset of what ``filters`` selects."""

        def strs(name: str) -> list[str]:
            return [str(v) for v in getattr(filters, name, None) or []]

        return cls(
            speakers=strs("speakers"), listeners=strs("listeners"), tags=strs("tags"),
            since=getattr(filters, "since", None), until=getattr(filters, "until", None),
            threads=strs("threads"), formats=strs("formats"), roles=strs("roles"),
        )  # fmt: skip

    def is_empty(self) -> bool:
        return self.fields_empty() and not (self.formats or self.roles)


def _json(values: Iterable[Any]) -> str:
    return orjson.dumps(list(values)).decode()


def name_ids(conn: sqlite3.Connection, query: str) -> list[int]:
    """Ids of the distinct names the query matches (checked by the name rule)."""
    rule = NameQuery(query)
    if rule.tokens:
        sql = " INTERSECT ".join(
            ["SELECT name_id FROM name_tokens WHERE token = ?"] * len(rule.tokens)
        )
        rows = conn.execute(
            f"SELECT name_id, name FROM names WHERE name_id IN ({sql})", rule.tokens
        )
    else:
        rows = conn.execute("SELECT name_id, name FROM names")
    return [nid for nid, name in rows if rule.matches(name)]


def where(conn: sqlite3.Connection, q: IndexQuery) -> tuple[str, list[Any]] | None:
    """SQL conditions on ``messages m`` and their parameters; None when nothing can match."""
    conds: list[str] = []
    params: list[Any] = []
    for kind in ("speakers", "listeners"):
        names = getattr(q, kind)
        if not names:
            continue
        ids = sorted({i for n in names for i in name_ids(conn, n)})
        if not ids:
            return None
        if kind == "speakers":
            conds.append("m.speaker_id IN (SELECT value FROM json_each(?))")
        else:
            conds.append(
                "m.message_id IN (SELECT message_id FROM message_listeners"
                " WHERE name_id IN (SELECT value FROM json_each(?)))"
            )
        params.append(_json(ids))
    if q.tags:
        conds.append(
            "m.message_id IN (SELECT message_id FROM message_tags"
            " WHERE tag_folded IN (SELECT value FROM json_each(?)))"
        )
        params.append(_json({t.casefold() for t in q.tags}))
    _simple(q, conds, params)
    return " AND ".join(conds) or "1", params


def _simple(q: IndexQuery, conds: list[str], params: list[Any]) -> None:
    if q.since:
        conds.append("m.timestamp >= ?")
        params.append(q.since)
    if q.until:
        conds.append("m.timestamp < ?")
        params.append(q.until)
    if q.threads:
        conds.append(
            "(m.thread IN (SELECT value FROM json_each(?))"
            " OR m.id IN (SELECT value FROM json_each(?)))"
        )
        params += [_json([t for t in q.threads if t])] * 2  # the scan never matches ""
    for column, values in (("format", q.formats), ("role", q.roles)):
        if values:
            conds.append(f"m.{column} IN (SELECT value FROM json_each(?))")
            params.append(_json(values))


class Reader:
    """An index that matches the open store file ``f``, read in one transaction."""

    def __init__(self, conn: sqlite3.Connection, f: IO[bytes], meta: dict[str, str] | None = None):
        self.conn = conn
        self.f = f
        # Lines of the store that are not records (not indexed; the scan reports them).
        self.bad_lines = int((meta or {}).get("bad_lines", "0"))

    def spans(
        self, q: IndexQuery, *, order: str = "store", limit: int | None = None
    ) -> Iterator[tuple[int, int]]:
        """``(offset, length)`` of the matching lines, streamed from SQLite (memory stays
        flat however many match); valid while the reader is open."""
        w = where(self.conn, q)
        if w is None or (limit is not None and limit <= 0):
            return iter(())
        sql, params = w
        sql = f"SELECT m.byte_offset, m.byte_length FROM messages m WHERE {sql} ORDER BY {ORDERS[order]}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return iter(self.conn.execute(sql, params))

    def count(self, q: IndexQuery) -> int:
        w = where(self.conn, q)
        if w is None:
            return 0
        sql, params = w
        return int(
            self.conn.execute(f"SELECT count(*) FROM messages m WHERE {sql}", params).fetchone()[0]
        )


def read_spans(f: IO[bytes], spans: Iterable[tuple[int, int]]) -> Iterator[bytes]:
    """The lines at ``spans`` of the open file (CR before the newline removed)."""
    fd = f.fileno()
    for offset, length in spans:
        raw = os.pread(fd, length, offset)
        yield raw[:-1] if raw.endswith(b"\r") else raw


@contextlib.contextmanager
def reader(
    store_path: str | os.PathLike[str], *, track: Track | None = None, update: bool = True
) -> Iterator[Reader | str]:
    """A ``Reader`` when the index can answer, else the reason it cannot (a string).

    ``update``: a stale index is first brought up to date (not created), when no writer
    holds the store lock.
    """
    path = Path(store_path)
    if os.environ.get("CONVO_NO_INDEX") == "1":
        yield "disabled by CONVO_NO_INDEX=1"
        return
    if update:
        result = refresh(path, create=False, track=track)
        if not result.available:
            yield result.reason
            return
    conn = None
    f = None
    meta: dict[str, str] = {}
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below, after the caller's reads
        conn = schema.connect(schema.index_path(path), readonly=True)
        conn.execute("BEGIN")
        meta = schema.read_meta(conn)
        state, reason = judge(meta, f)
    except (OSError, sqlite3.Error) as e:
        state, reason = "unavailable", f"the index cannot be read ({e})"
    try:
        yield Reader(conn, f, meta) if state == "fresh" and conn and f else (reason or "stale")
    finally:
        schema.close_quietly(conn)
        if f is not None:
            f.close()


class Lines:
    """The lines a lookup found (an iterator), and how many lines of the store are not
    records (``bad_lines``: never indexed, so never found; the scan would report them)."""

    def __init__(self, lines: Iterator[bytes], bad_lines: int):
        self._lines = lines
        self.bad_lines = bad_lines

    def __iter__(self) -> Iterator[bytes]:
        return self._lines

    def __next__(self) -> bytes:
        return next(self._lines)


def lookup(
    store_path: str | os.PathLike[str],
    query: IndexQuery,
    *,
    order: str = "store",
    limit: int | None = None,
    latest: int | None = None,
    track: Track | None = None,
) -> Lines | str:
    """The matching lines, or why the index cannot say (a string: scan instead).

    ``order``: store, -store (``--reverse``), time or -time; ``latest``: the N most
    recent, oldest first for ``store``/``time``, newest first for ``-store``/``-time``.
    Lines are read lazily from the file the index describes, offsets streamed from SQLite.
    """
    stack = contextlib.ExitStack()
    r = stack.enter_context(reader(store_path, track=track))
    if isinstance(r, str):
        stack.close()
        return r
    try:
        spans = _spans(r, query, order, limit, latest)
    except BaseException:
        stack.close()
        raise

    def lines() -> Iterator[bytes]:
        with stack:
            yield from read_spans(r.f, spans)

    return Lines(lines(), r.bad_lines)


def _spans(
    r: Reader, query: IndexQuery, order: str, limit: int | None, latest: int | None
) -> Iterable[tuple[int, int]]:
    if latest is None:
        return r.spans(query, order=order, limit=limit)
    spans = list(r.spans(query, order="-time", limit=latest))  # newest first
    if not order.startswith("-"):
        spans.reverse()  # the latest N, oldest first
    return spans if limit is None else spans[: max(0, limit)]


def count(
    store_path: str | os.PathLike[str], query: IndexQuery, *, track: Track | None = None
) -> int | str:
    """How many records match, or why the index cannot tell."""
    with reader(store_path, track=track) as r:
        return r if isinstance(r, str) else r.count(query)
