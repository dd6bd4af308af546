"""Indexed reads: the byte spans of the lines a condition selects, from an open index.

The condition is SQL on ``messages m``, compiled from a query by ``convo.query.plan``
(this package knows no query). Lines are read by byte offset from the very file the
index describes: its inode is checked on the open descriptor, so a rewrite renamed over
the store meanwhile cannot mix versions.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator

from convo.index import schema
from convo.index.state import Track, freshness, refresh

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import IO, Any

ORDERS = {
    "store": "m.message_id",
    "-store": "m.message_id DESC",  # --reverse: with a limit, the last N matches, last first
    "time": "m.timestamp, m.message_id",
    "-time": "m.timestamp DESC, m.message_id DESC",
}


class Reader:
    """An index that matches the open store file ``f``, read in one transaction."""

    def __init__(self, conn: sqlite3.Connection, f: IO[bytes], meta: dict[str, str] | None = None):
        self.conn = conn
        self.f = f
        # Lines of the store that are not records (not indexed; the scan reports them).
        self.bad_lines = int((meta or {}).get("bad_lines", "0"))
        self.messages = int((meta or {}).get("messages", "0"))

    def spans(
        self, cond: str = "1", params: Iterable[Any] = (), *, order: str = "store",
        limit: int | None = None,
    ) -> Iterator[tuple[int, int]]:  # fmt: skip
        """``(offset, length)`` of the lines ``cond`` selects, streamed from SQLite (memory
        stays flat however many match); valid while the reader is open."""
        if cond == "0" or (limit is not None and limit <= 0):
            return iter(())
        sql = f"SELECT m.byte_offset, m.byte_length FROM messages m WHERE {cond} ORDER BY {ORDERS[order]}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return iter(self.conn.execute(sql, tuple(params)))

    def latest_spans(
        self, cond: str, params: Iterable[Any], latest: int, *, newest_first: bool
    ) -> list[tuple[int, int]]:
        """The ``latest`` most recent lines ``cond`` selects, oldest first unless
        ``newest_first``."""
        spans = list(self.spans(cond, params, order="-time", limit=latest))
        if not newest_first:
            spans.reverse()
        return spans

    def at_least(self, cond: str, params: Iterable[Any], n: int) -> bool:
        """``cond`` selects ``n`` messages or more (counted up to ``n`` only)."""
        return self.bounded(cond, params, n) >= n

    def bounded(self, cond: str, params: Iterable[Any], n: int) -> int:
        """How many messages ``cond`` selects, counted up to ``n``."""
        sql = f"SELECT count(*) FROM (SELECT 1 FROM messages m WHERE {cond} LIMIT {int(n)})"
        return int(self.conn.execute(sql, tuple(params)).fetchone()[0])

    def rows(self, select: str, params: Iterable[Any] = ()) -> int:
        """How many rows ``select`` (a SELECT on the index) gives."""
        sql = f"SELECT count(*) FROM ({select})"
        return int(self.conn.execute(sql, tuple(params)).fetchone()[0])

    def at_least_rows(self, select: str, params: Iterable[Any], n: int) -> bool:
        """``select`` (a SELECT on the index) gives ``n`` rows or more (read up to ``n``)."""
        sql = f"SELECT count(*) FROM (SELECT 1 FROM ({select}) LIMIT {int(n)})"
        return int(self.conn.execute(sql, tuple(params)).fetchone()[0]) >= n

    def count(self, cond: str = "1", params: Iterable[Any] = ()) -> int:
        """How many messages ``cond`` selects. Every message: the count the meta table
        keeps (each build, append and rewrite updates it in the same transaction), not
        ``count(*)``, which reads the whole table: 40-80 ms of a 1M-message store's
        ``convo query --count`` on a loaded machine, the meta row well under 1 ms."""
        if cond == "0":
            return 0
        if cond == "1":
            return self.messages
        sql = f"SELECT count(*) FROM messages m WHERE {cond}"
        return int(self.conn.execute(sql, tuple(params)).fetchone()[0])


def read_spans(f: IO[bytes], spans: Iterable[tuple[int, int]]) -> Iterator[bytes]:
    """The lines at ``spans`` of the open file (CR before the newline removed)."""
    fd = f.fileno()
    for offset, length in spans:
        raw = os.pread(fd, length, offset)
        yield raw[:-1] if raw.endswith(b"\r") else raw


def _open(
    path: str,
) -> tuple[sqlite3.Connection | None, IO[bytes] | None, dict[str, str], str, str]:
    """The store and its index opened, a read transaction begun on the index, and
    whether the index is fresh for the open store (``state.freshness``)."""
    conn = None
    f = None
    meta: dict[str, str] = {}
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed by the caller, after its reads
        conn = schema.connect(schema.index_file(path), readonly=True)
        conn.execute("BEGIN")
        meta = schema.read_meta(conn)
        state, reason = freshness(meta, f)
    except (OSError, sqlite3.Error) as e:
        state, reason = "unavailable", f"the index cannot be read ({e})"
    return conn, f, meta, state, reason


def _close(conn: sqlite3.Connection | None, f: IO[bytes] | None) -> None:
    schema.close_quietly(conn)
    if f is not None:
        f.close()


class Opened:
    """``with reader(path) as r``: ``r`` is a ``Reader`` when the index can answer, else
    the reason it cannot (a string); leaving the block closes the index and the store
    (``close``, which ``store.select`` calls itself when the reader outlives a block).
    A class rather than ``contextlib.contextmanager``: an indexed count imports no
    ``contextlib`` (5.1M of its 107M instructions; docs/startup.md, "Third pass")."""

    __slots__ = ("_conn", "_f", "_path", "_track", "_update")

    def __init__(self, path: str, track: Track | None, update: bool) -> None:
        self._path, self._track, self._update = path, track, update
        self._conn: sqlite3.Connection | None = None
        self._f: IO[bytes] | None = None

    def __enter__(self) -> Reader | str:
        path = self._path
        if os.environ.get("CONVO_NO_INDEX") == "1":
            return "disabled by CONVO_NO_INDEX=1"
        conn, f, meta, state, reason = _open(path)
        if self._update and state != "fresh":
            _close(conn, f)
            result = refresh(path, create=False, track=self._track)
            if not result.available:
                return result.reason
            conn, f, meta, state, reason = _open(path)
        self._conn, self._f = conn, f
        return Reader(conn, f, meta) if state == "fresh" and conn and f else (reason or "stale")

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        conn, f = self._conn, self._f
        self._conn = self._f = None
        _close(conn, f)


def reader(
    store_path: str | os.PathLike[str], *, track: Track | None = None, update: bool = True
) -> Opened:
    """``with reader(store) as r``: a ``Reader`` when the index can answer, else the
    reason it cannot (a string).

    ``update``: a stale index is first brought up to date (not created), when no writer
    holds the store lock.

    The index is opened once when it is fresh: the freshness that decides is the one
    read inside the read transaction (as before), and only an index found not fresh
    there goes to ``state.refresh`` (which opens it again to check and update it) and
    is then opened anew. Checking through ``refresh`` first opened every fresh index
    twice: 1.8M of the 109M instructions of ``convo query --count format:mbox`` on a
    1M-message store (docs/startup.md, "Third pass").
    """
    return Opened(os.fspath(store_path), track, update)
