"""Dedup through the index: what the store's append path asks instead of reading every id.

Inside the store lock, ``open_ids`` brings the index up to date (the appended tail only,
normally) and returns ``IndexIds``, a drop-in for ``convo.core.idset.IdSet``
(``in``, ``add``, ``len``): each id costs one indexed lookup, so a save costs in
proportion to the new messages. ``after_append`` then indexes the lines just written.
Neither raises: None / an ``unavailable`` result means "use the old way".
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from convo.core.idset import IdSet
from convo.index import schema
from convo.index.state import SyncResult, Track, status


class IndexIds:
    """The store's ids as the index knows them, plus the ids added through ``add``."""

    def __init__(self, conn: sqlite3.Connection, count: int):
        self.conn = conn
        self.new = IdSet()  # a large save's new ids: ~16 bytes each, not a set of str
        self._count = count

    def __contains__(self, rid: str) -> bool:
        if rid in self.new:
            return True
        found = self.conn.execute("SELECT 1 FROM messages WHERE id = ? LIMIT 1", (rid,))
        return found.fetchone() is not None

    def add(self, rid: str) -> bool:
        """Add ``rid``; True when it was not there yet (the ``IdSet.add`` contract)."""
        if rid in self:
            return False
        return self.new.add(rid)

    def __len__(self) -> int:
        return self._count + len(self.new)

    def close(self) -> None:
        schema.close_quietly(self.conn)


def open_ids(
    store_path: str | os.PathLike[str], *, create: bool = True, track: Track | None = None
) -> IndexIds | None:
    """The index's ids, current with the store; None when the index cannot serve.

    Call holding the store lock (it may update the index). ``create``: build the index
    when there is none (once; a store's first save then pays for its index); ``track``
    wraps the lines being indexed (a progress bar, ``convo.output.progress``).
    """
    if os.environ.get("CONVO_NO_INDEX") == "1":
        return None
    path = Path(store_path)
    if not path.exists() and create:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    from convo.index.build import sync  # the writing side: only inside the store lock

    if not sync(path, create=create, track=track).available:
        return None
    if not status(path).fresh:
        return None  # e.g. a partial last line the append path repairs first
    try:
        conn = schema.connect(schema.index_path(path), readonly=True)
        n = schema.read_meta(conn).get("messages", "0")  # kept by every update: no count(*)
    except sqlite3.Error:
        return None
    return IndexIds(conn, int(n))


def after_append(store_path: str | os.PathLike[str]) -> SyncResult:
    """Index what was just appended (call still holding the store lock). Never raises."""
    if os.environ.get("CONVO_NO_INDEX") == "1":
        return SyncResult("unavailable", reason="disabled by CONVO_NO_INDEX=1")
    from convo.index.build import sync

    return sync(store_path, create=False)
