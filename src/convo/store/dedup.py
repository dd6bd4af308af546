"""Dedup through the index: what the store's append path asks instead of reading every id.

Inside the store lock, ``open_ids`` brings the index up to date (the appended tail only,
normally) and returns ``IndexIds``, a drop-in for ``convo.core.idset.IdSet``
(``in``, ``add``, ``len``): each id costs one indexed lookup, so a save costs in
proportion to the new messages. ``after_append`` then indexes the lines just written.
Neither raises: None / an ``unavailable`` result means "use the old way".

A repeated id is not always a repeated message: two sources can give one id to two
messages (``core.stamps`` has the rule and why). ``admit`` tells them apart by the
message's stamp: ``SAME`` is the message the store holds under that id (perhaps edited
since, or its time rendered another way: the store keeps the one it has), ``NEW`` an id
it does not hold, and ``OTHER`` another message, which the save stores under its content
hash (``renamed``) instead of dropping it as a duplicate. The store's compaction
(``store.rewrite.compact``) holds a store to the same rule.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import orjson

from convo.core.idset import IdStamps
from convo.core.stamps import other_message, record_stamp, when
from convo.index import schema
from convo.index.state import SyncResult, Track, status

NEW, SAME, OTHER = 0, 1, 2  # what ``admit`` says of an id and the message it comes with


def line_stamp(line: bytes) -> int:
    """``record_stamp`` of a JSONL line (0, "nothing known", when it is not a record)."""
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return 0
    return record_stamp(record) if isinstance(record, dict) else 0


class HeldIds(IdStamps):
    """The ids of a store read line by line (no index), each with its message's stamp."""

    def admit(self, rid: str, new: int) -> int:
        """``NEW`` (now held), ``SAME`` or ``OTHER`` (module docstring)."""
        held = self.setdefault(rid, new)
        if held is None:
            return NEW
        return OTHER if other_message(held, new) else SAME


class IndexIds:
    """The store's ids as the index knows them, plus the ids added through ``add`` and
    ``admit``."""

    def __init__(self, conn: sqlite3.Connection, count: int, store: Path):
        self.conn = conn
        self.store = store
        self.new = HeldIds()  # a large save's new ids: ~16-32 bytes each, not a dict of str
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

    def admit(self, rid: str, new: int) -> int:
        """``NEW`` (now held), ``SAME`` or ``OTHER`` (module docstring). A stored id
        costs one indexed lookup; its line is read only when its time differs."""
        if rid in self.new:
            return self.new.admit(rid, new)
        row = self.conn.execute(
            "SELECT timestamp, byte_offset, byte_length FROM messages WHERE id = ? LIMIT 1",
            (rid,),
        ).fetchone()
        if row is None:
            self.new.setdefault(rid, new)
            return NEW
        held_when = when(row[0])
        if not held_when or not new >> 32 or held_when == new >> 32:
            return SAME
        with open(self.store, "rb") as f:  # the store's bytes, fixed while the lock is held
            f.seek(row[1])
            held = line_stamp(f.read(row[2]))
        return OTHER if other_message(held, new) else SAME

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
    return IndexIds(conn, int(n), path)


def after_append(store_path: str | os.PathLike[str]) -> SyncResult:
    """Index what was just appended (call still holding the store lock). Never raises."""
    if os.environ.get("CONVO_NO_INDEX") == "1":
        return SyncResult("unavailable", reason="disabled by CONVO_NO_INDEX=1")
    from convo.index.build import sync

    return sync(store_path, create=False)
