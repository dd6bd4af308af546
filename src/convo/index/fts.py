"""A rebuild's full-text index, built beside the rest on the second core.

SQLite lets one connection write a database at a time, and tokenising the text is a
third of a build's SQLite work. During a rebuild, ``SideFts`` writes the FTS rows into
a database of their own (``<index>.tmp-PID.fts``, the same ``messages_fts`` table) from
a thread: the sqlite3 module releases the GIL while SQLite works, so the thread and
the main connection (rows, secondary indexes) run at once. ``finish`` optimises it
(one b-tree) and ``copy_into`` copies its four shadow tables (``_data``, ``_idx``,
``_docsize``, ``_config``: ordinary tables holding the whole FTS5 index) over the new
index's empty ones; the main connection never touches ``messages_fts`` after making it
(FTS5 caches the structure it read), and is closed after the copy. Where shadow tables cannot be written
(SQLite's defensive mode), ``usable`` says no and the build inserts the text itself.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

from convo.index import schema

SHADOWS = ("data", "idx", "docsize", "config")
INSERT = "INSERT INTO messages_fts (rowid, subject, text) VALUES (?, ?, ?)"
_DONE = None  # the end of the rows


def numbered(base: int, subjects: list[bytes], texts: list[bytes]) -> Iterator[tuple]:
    """``INSERT``'s rows: record n of a batch is message ``base + n``."""
    return zip(itertools.count(base), subjects, texts, strict=False)


def usable(conn: sqlite3.Connection) -> bool:
    """Whether ``conn`` may write the FTS shadow tables (no defensive mode)."""
    try:
        conn.execute("DELETE FROM messages_fts_docsize WHERE 0")
    except sqlite3.Error:
        return False
    return True


class SideFts:
    """The FTS rows of a rebuild, inserted by a thread into their own database."""

    def __init__(self, path: Path):
        self.path = path
        self._rows: queue.Queue = queue.Queue(maxsize=4)  # batches waiting: bounded memory
        self._error: BaseException | None = None
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        self._thread = threading.Thread(target=self._run, name="convo-fts", daemon=True)
        self._thread.start()

    def put(self, base: int, subjects: list[bytes], texts: list[bytes]) -> None:
        """The full-text values of the records whose message ids start at ``base``."""
        if self._error is None:
            self._rows.put((base, subjects, texts))

    def _run(self) -> None:
        conn = None
        try:
            conn = schema.connect(self.path)
            for pragma in schema.BUILD_PRAGMAS:
                conn.execute(pragma)
            # FTS5 appends segments and merges them in passes: its speed does not depend on
            # the cache (1M messages took the same time with 2, 8 and 32 MiB), and a large
            # save holds the two connections' caches at once.
            conn.execute("PRAGMA cache_size = -8192")
            conn.execute("BEGIN")
            schema.create_fts(conn)
            while (item := self._rows.get()) is not _DONE:
                conn.executemany(INSERT, numbered(*item))
            conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')")
            schema.fill_terms(conn)
            conn.execute("COMMIT")
        except BaseException as e:  # raised in the building thread by finish()
            self._error = e
            while self._rows.get() is not _DONE:  # drain: the producer never blocks
                pass
        finally:
            schema.close_quietly(conn)

    def finish(self) -> None:
        """Wait for the thread; raise what it raised."""
        self._rows.put(_DONE)
        self._thread.join()
        if self._error is not None:
            raise self._error

    def copy_into(self, conn: sqlite3.Connection) -> None:
        """Replace the FTS shadow tables of ``conn``'s database with the side database's,
        in a transaction of its own (SQLite attaches only between transactions)."""
        conn.execute("ATTACH DATABASE ? AS side", (os.fspath(self.path),))
        try:
            conn.execute("BEGIN")
            for shadow in SHADOWS:
                table = f"messages_fts_{shadow}"
                conn.execute(f"DELETE FROM main.{table}")
                conn.execute(f"INSERT INTO main.{table} SELECT * FROM side.{table}")
            conn.execute("INSERT OR IGNORE INTO main.fts_terms SELECT term FROM side.fts_terms")
            conn.execute("COMMIT")
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.execute("DETACH DATABASE side")

    def abandon(self) -> None:
        """Stop the thread (after an error elsewhere) and remove the side database."""
        with contextlib.suppress(BaseException):
            self.finish()
        self.remove()

    def remove(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
