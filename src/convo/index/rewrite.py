"""Following a rewrite of the store in the index, without rebuilding it.

Maintenance (``convo.store.rewrite``) copies the store line by line to a new file,
dropping or changing some lines. ``Follower`` is told about each line and, in one index
transaction, deletes the rows of dropped lines, updates changed tags, and moves the byte
offsets of later rows by how much the new file is shorter or longer so far (one UPDATE
per run of rows with the same shift; ``gap``: a run of lines copied unread, one step).
``commit`` is called after the new file was
renamed over the store: a kill in between leaves an index that names the old file's
inode, which is seen as stale and rebuilt.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import IO, Any

from convo.index import schema
from convo.index.rows import row_of
from convo.index.state import status, store_meta
from convo.index.writer import delete_message, set_tags


class Follower:
    """Index updates for one rewrite; ``None`` from ``open`` when the index is not fresh."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        rows = conn.execute(
            "SELECT message_id, byte_offset FROM messages ORDER BY message_id"
        ).fetchall()
        self._ids = [r[0] for r in rows]
        self._offsets = [r[1] for r in rows]  # ascending: rows are added in file order
        self._i = 0  # the first row not passed yet
        self._run: list[int] = []  # [first id, last id, shift]
        self.removed = 0
        self._file: IO[bytes] | None = None  # the new store, described by ``finish``

    @classmethod
    def open(cls, store_path: Path) -> Follower | None:
        """Call just after a successful ``sync`` under the lock: the index then holds every
        whole line (a partial last line, if any, is not indexed and not a problem)."""
        if status(store_path).state not in ("fresh", "append"):
            return None
        try:
            conn = schema.connect(schema.index_path(store_path))
            conn.execute("BEGIN IMMEDIATE")
            return cls(conn)
        except sqlite3.Error:
            return None

    def _message_at(self, offset: int) -> int | None:
        offsets, i = self._offsets, self._i
        while i < len(offsets) and offsets[i] < offset:
            i += 1
        self._i = i
        if i < len(offsets) and offsets[i] == offset:
            return int(self._ids[i])
        return None

    def gap(self, old_start: int, old_end: int, delta: int) -> None:
        """The whole lines of the old store from ``old_start`` to ``old_end``, copied
        as they are, ``delta`` bytes later in the new file (``store.idlines``)."""
        from bisect import bisect_left

        first = bisect_left(self._offsets, old_start, self._i)
        last = bisect_left(self._offsets, old_end, first) - 1
        if last >= first:
            self._shift(int(self._ids[first]), delta)
            self._shift(int(self._ids[last]), delta)
        self._i = last + 1 if last >= first else first

    def line(
        self,
        old_offset: int,
        new_offset: int | None,
        record: dict[str, Any] | None,
        new_length: int | None = None,
        new_tags: list[str] | None = None,
        new_id: tuple[str | None, str | None] | None = None,
    ) -> None:
        """One line of the old store: kept at ``new_offset`` (None: dropped); ``new_id``:
        its new ``(id, thread)`` when an edit changed its id (compact's content hash)."""
        mid = self._message_at(old_offset)
        if mid is None:
            return
        if new_offset is None:
            if record is not None:
                delete_message(self.conn, mid, row_of(record))
                self.removed += 1
            return
        if new_length is not None:
            self.conn.execute(
                "UPDATE messages SET byte_length = ? WHERE message_id = ?", (new_length, mid)
            )
        if new_tags is not None:
            set_tags(self.conn, mid, new_tags)
        if new_id is not None:
            self.conn.execute(
                "UPDATE messages SET id = ?, thread = ? WHERE message_id = ?", (*new_id, mid)
            )
        self._shift(mid, new_offset - old_offset)

    def _shift(self, mid: int, delta: int) -> None:
        if self._run and self._run[2] == delta:
            self._run[1] = mid
            return
        self._flush_run()
        self._run = [mid, mid, delta]

    def _flush_run(self) -> None:
        if self._run and self._run[2]:
            first, last, delta = self._run
            self.conn.execute(
                "UPDATE messages SET byte_offset = byte_offset + ? WHERE message_id BETWEEN ? AND ?",
                (delta, first, last),
            )
        self._run = []

    def finish(self, new_file: IO[bytes], end: int, bad_lines: int | None = None) -> None:
        """Describe the new file (before it is renamed over the store)."""
        self._flush_run()
        meta = schema.read_meta(self.conn)
        values = store_meta(new_file, end)
        values["messages"] = int(meta.get("messages", "0")) - self.removed
        values["bad_lines"] = meta.get("bad_lines", "0") if bad_lines is None else bad_lines
        schema.write_meta(self.conn, values)
        self._file = new_file

    def commit(self) -> None:
        """Commit, after the rename: the rename moved the new file's ctime, which the
        index records (``state.freshness``), else the next read would rebuild it."""
        if self._file is not None:
            ctime = os.fstat(self._file.fileno()).st_ctime_ns
            schema.write_meta(self.conn, {"store_ctime_ns": ctime})
        self.conn.execute("COMMIT")
        self.conn.close()

    def abandon(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.conn.execute("ROLLBACK")
        schema.close_quietly(self.conn)
