"""Adding and removing index rows (one transaction is the caller's).

``Inserter.add(batch)`` writes a ``batch.Batch`` (one byte range's rows) with one
``executemany`` per table. The batch numbers its records from 0 and names speakers and
listeners; here they get their message and name ids (one pass over the rows in a list
comprehension: cheaper than SQL subqueries, measured), and new names their rows.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections import Counter
from typing import cast

from convo.core.names import words
from convo.index import fts, schema
from convo.index.batch import Batch
from convo.index.fts import SideFts
from convo.index.rows import Row, fts_values


class Inserter:
    """Batches into the index, in store order; ``added``: records written so far."""

    def __init__(
        self, conn: sqlite3.Connection, *, empty: bool = False, side: SideFts | None = None,
        rebuild: bool = False,
    ):  # fmt: skip
        self.conn = conn
        self.side = side  # where the full-text rows go, when not into ``conn``
        self.next_id = (conn.execute("SELECT max(message_id) FROM messages").fetchone()[0] or 0) + 1
        self.next_name = (conn.execute("SELECT max(name_id) FROM names").fetchone()[0] or 0) + 1
        # an index with no names to look up: a new one, not one whose store `rm` emptied
        # (its names stay: adding them again was a UNIQUE failure)
        self.empty = empty and self.next_name == 1
        self.ids: dict[str, int] = {}  # name -> name_id, for the names met so far
        self.added = 0
        self.bad = 0
        # An append's new tokens for ``fts_terms``: its text also goes to a table of its
        # own in memory, whose vocabulary ``finish`` adds (a rebuild reads the whole
        # index's vocabulary once instead: ``schema.fill_terms``).
        self.terms = not rebuild
        if self.terms:
            c = conn
            c.execute("PRAGMA temp_store = MEMORY")
            c.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.new_fts USING fts5("
                f"subject, text, content='', tokenize='{schema.TOKENIZER}')"
            )

    def finish(self) -> None:
        """Add an append's new tokens to ``fts_terms``."""
        if self.terms:
            self.conn.execute(
                "CREATE VIRTUAL TABLE temp.new_vocab USING fts5vocab(temp, new_fts, row)"
            )
            self.conn.execute(
                "INSERT OR IGNORE INTO main.fts_terms SELECT term FROM temp.new_vocab"
            )
            self.conn.execute("DROP TABLE temp.new_vocab")
            self.conn.execute("DROP TABLE temp.new_fts")
            self.terms = False

    def _names(self, names: list[str]) -> None:
        new = [n for n in names if n not in self.ids]
        if not new:
            return
        if not self.empty:
            found = self.conn.execute(
                "SELECT name, name_id FROM names WHERE name IN (SELECT value FROM json_each(?))",
                (_json(new),),
            )
            self.ids.update(found)
            new = [n for n in new if n not in self.ids]
        rows = [(self.next_name + i, n) for i, n in enumerate(new)]
        self.next_name += len(rows)
        self.ids.update((n, nid) for nid, n in rows)
        self.conn.executemany("INSERT INTO names (name_id, name) VALUES (?, ?)", rows)
        self.conn.executemany(
            "INSERT OR IGNORE INTO name_tokens VALUES (?, ?)",
            [(t, nid) for nid, n in rows for t in set(words(n))],
        )

    def add(self, batch: Batch) -> None:
        c, base, ids = self.conn, int(self.next_id), self.ids
        self._names(batch.names)
        b = batch
        speaker_id = cast("dict[str | None, int]", ids).get  # None: no speaker
        c.executemany(
            "INSERT INTO messages VALUES (?,?,?,?,?,?,?,?,?,?)",
            zip(
                itertools.count(base), b.ids, b.offsets, b.lengths, b.times,
                map(speaker_id, b.speakers), b.threads, b.formats, b.roles, b.subject_values,
                strict=False,
            ),
        )  # fmt: skip
        if self.side is not None:
            self.side.put(base, batch.subjects, batch.texts)
        else:
            c.executemany(fts.INSERT, fts.numbered(base, batch.subjects, batch.texts))
        c.executemany(
            f"INSERT OR IGNORE INTO message_listeners VALUES (?+{base}, ?)",
            zip(b.listener_of, map(ids.__getitem__, b.listeners), strict=False),
        )
        c.executemany(
            f"INSERT OR IGNORE INTO message_tags VALUES (?+{base}, ?, ?)",
            zip(b.tag_of, b.tags_folded, b.tags, strict=False),
        )
        if batch.unfolded:
            c.executemany(
                "INSERT INTO messages_unfolded VALUES (?)", [(n + base,) for n in batch.unfolded]
            )
        if self.terms:
            c.executemany(_NEW_TERMS_INSERT, fts.numbered(base, batch.subjects, batch.texts))
        counts = Counter(zip(itertools.repeat("format"), b.formats, strict=False))
        counts.update(zip(itertools.repeat("role"), b.roles, strict=False))
        c.executemany(
            schema.ADD_COUNTS, [(f, v, n) for (f, v), n in counts.items() if v is not None]
        )
        self.next_id += batch.count
        self.added += batch.count
        self.bad += batch.bad


_NEW_TERMS_INSERT = "INSERT INTO temp.new_fts (rowid, subject, text) VALUES (?, ?, ?)"


def _json(values: list[str]) -> str:
    import orjson

    return orjson.dumps(values).decode()


def delete_message(conn: sqlite3.Connection, mid: int, row: Row) -> None:
    """Remove one message (``row``: what was indexed for it, for the contentless FTS)."""
    subject, text = fts_values(row)
    conn.execute(
        "INSERT INTO messages_fts (messages_fts, rowid, subject, text) VALUES ('delete', ?, ?, ?)",
        (mid, subject, text),
    )
    conn.execute("DELETE FROM message_listeners WHERE message_id = ?", (mid,))
    conn.execute("DELETE FROM message_tags WHERE message_id = ?", (mid,))
    conn.execute("DELETE FROM messages_unfolded WHERE message_id = ?", (mid,))
    kept = conn.execute("SELECT format, role FROM messages WHERE message_id = ?", (mid,))
    for values in kept.fetchall():  # its counts in value_counts (schema.COUNTED)
        for field, value in zip(schema.COUNTED, values, strict=True):
            if value is not None:
                conn.execute(schema.TAKE_COUNT, (field, value))
                conn.execute(schema.DROP_ZERO, (field, value))
    conn.execute("DELETE FROM messages WHERE message_id = ?", (mid,))


def set_tags(conn: sqlite3.Connection, mid: int, tags: list[str]) -> None:
    conn.execute("DELETE FROM message_tags WHERE message_id = ?", (mid,))
    conn.executemany(
        "INSERT OR IGNORE INTO message_tags VALUES (?, ?, ?)",
        [(mid, t.casefold(), t) for t in tags],
    )
