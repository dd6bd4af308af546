"""Adding and removing index rows in batches (one transaction is the caller's)."""

from __future__ import annotations

import sqlite3

from convo.core.names import words
from convo.index.rows import Row, fts_values, space_cjk

BATCH = 5000


class Writer:
    """Buffers rows and writes them with ``executemany``; ``flush`` before committing."""

    def __init__(self, conn: sqlite3.Connection, *, empty: bool = False):
        self.conn = conn
        self.empty = empty  # a new index: no names to look up
        self.next_id = (conn.execute("SELECT max(message_id) FROM messages").fetchone()[0] or 0) + 1
        self.next_name = (conn.execute("SELECT max(name_id) FROM names").fetchone()[0] or 0) + 1
        self.name_ids: dict[str, int] = {}
        self.added = 0
        self._messages: list[tuple] = []
        self._fts: list[tuple] = []
        self._listeners: list[tuple[int, int]] = []
        self._tags: list[tuple[int, str, str]] = []
        self._names: list[tuple[int, str]] = []
        self._tokens: list[tuple[str, int]] = []

    def name_id(self, name: str) -> int:
        nid = self.name_ids.get(name)
        if nid is not None:
            return nid
        found = (
            None
            if self.empty
            else self.conn.execute("SELECT name_id FROM names WHERE name = ?", (name,)).fetchone()
        )
        if found is not None:
            nid = int(found[0])
        else:
            nid = self.next_name
            self.next_name += 1
            self._names.append((nid, name))
            self._tokens.extend((t, nid) for t in set(words(name)))
        self.name_ids[name] = nid
        return nid

    def add(self, offset: int, length: int, row: Row) -> int:
        mid = self.next_id
        self.next_id += 1
        known = self.name_ids.get
        name = row.speaker
        speaker = None if name is None else known(name) or self.name_id(name)
        self._messages.append(
            (mid, row.id, offset, length, row.timestamp, speaker, row.thread, row.format,
             row.role, row.subject)
        )  # fmt: skip
        self._fts.append((mid, space_cjk(row.subject or ""), space_cjk(row.text)))
        if row.listeners:
            self._listeners.extend((mid, known(x) or self.name_id(x)) for x in row.listeners)
        if row.tags:
            self.add_tags(mid, row.tags)
        self.added += 1
        if len(self._messages) >= BATCH:
            self.flush()
        return mid

    def add_tags(self, mid: int, tags: list[str]) -> None:
        self._tags.extend((mid, t.casefold(), t) for t in tags)

    def flush(self) -> None:
        c = self.conn
        if self._names:
            c.executemany("INSERT INTO names (name_id, name) VALUES (?, ?)", self._names)
            c.executemany("INSERT OR IGNORE INTO name_tokens VALUES (?, ?)", self._tokens)
        c.executemany("INSERT INTO messages VALUES (?,?,?,?,?,?,?,?,?,?)", self._messages)
        c.executemany("INSERT INTO messages_fts (rowid, subject, text) VALUES (?,?,?)", self._fts)
        c.executemany("INSERT OR IGNORE INTO message_listeners VALUES (?, ?)", self._listeners)
        c.executemany("INSERT OR IGNORE INTO message_tags VALUES (?, ?, ?)", self._tags)
        for buf in (self._names, self._tokens, self._messages, self._fts, self._listeners):
            buf.clear()
        self._tags.clear()


def delete_message(conn: sqlite3.Connection, mid: int, row: Row) -> None:
    """Remove one message (``row``: what was indexed for it, for the contentless FTS)."""
    subject, text = fts_values(row)
    conn.execute(
        "INSERT INTO messages_fts (messages_fts, rowid, subject, text) VALUES ('delete', ?, ?, ?)",
        (mid, subject, text),
    )
    conn.execute("DELETE FROM message_listeners WHERE message_id = ?", (mid,))
    conn.execute("DELETE FROM message_tags WHERE message_id = ?", (mid,))
    conn.execute("DELETE FROM messages WHERE message_id = ?", (mid,))


def set_tags(conn: sqlite3.Connection, mid: int, tags: list[str]) -> None:
    conn.execute("DELETE FROM message_tags WHERE message_id = ?", (mid,))
    conn.executemany(
        "INSERT OR IGNORE INTO message_tags VALUES (?, ?, ?)",
        [(mid, t.casefold(), t) for t in tags],
    )
