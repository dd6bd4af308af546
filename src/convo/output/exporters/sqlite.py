"""Records to one SQLite database with the text: ``convo export --to sqlite -o convo.db``.

Made for ``datasette convo.db`` and for plain ``sqlite3``: unlike the index beside the
store (``convo.index``, which keeps byte offsets, not text), the database holds every
message's text, so a browser of tables shows the messages themselves.

Tables (one home each; the aggregate tables are computed by SQL once the messages are in,
so memory stays flat whatever the input size):

- ``messages``: one row a message, the columns of ``convo.core.columns`` (``text`` the
  chunks joined; ``listeners``, ``tags``, ``text_chunks`` as JSON arrays, which datasette
  facets with ``_facet_array``; ``extra`` as JSON), ``id`` the primary key. When two
  records share an id (named files that were never deduplicated), the first is kept, as
  the store does.
- ``message_tags(message_id, tag)`` and ``message_listeners(message_id, person)``: the
  lists as rows, for joins and plain facets.
- ``people(name, messages, addressed, first, last)``: every speaker and listener, with the
  messages they wrote and the messages addressed to them.
- ``tags(tag, messages, first, last)`` and ``threads(thread, subject, messages,
  participants, first, last)``.
- ``messages_fts``: an FTS5 table over ``text`` and ``subject`` with ``content="messages"``,
  the layout datasette detects, so its search box works on the messages table.

The file is written beside its final path and renamed over it when complete: a failed or
interrupted export leaves no half database.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from convo.core import scratch
from convo.core.atomic import resolve_target
from convo.core.columns import COLUMN_NAMES, record_values
from convo.core.errors import InputError

_JSON_COLUMNS = frozenset(("listeners", "tags", "text_chunks"))
_MESSAGE_COLUMNS = tuple(c for c in COLUMN_NAMES if c != "month")

SCHEMA = """
CREATE TABLE messages (
    id TEXT PRIMARY KEY, timestamp TEXT, speaker TEXT, listeners TEXT, tags TEXT,
    text_chunks TEXT, text TEXT, format TEXT, source_id TEXT, thread TEXT,
    reply_to TEXT, role TEXT, subject TEXT, extra TEXT,
    undated_offset INTEGER  -- an unknown time is NULL; this keeps its offset (core.columns)
);
CREATE TABLE message_tags (message_id TEXT REFERENCES messages(id), tag TEXT);
CREATE TABLE message_listeners (message_id TEXT REFERENCES messages(id), person TEXT);
"""

AGGREGATES = """
CREATE INDEX messages_timestamp ON messages(timestamp);
CREATE INDEX messages_speaker ON messages(speaker);
CREATE INDEX messages_thread ON messages(thread);
CREATE INDEX messages_format ON messages(format);
CREATE INDEX message_tags_tag ON message_tags(tag);
CREATE INDEX message_listeners_person ON message_listeners(person);
CREATE TABLE people AS
    SELECT name, SUM(wrote) AS messages, SUM(addressed) AS addressed,
           MIN(timestamp) AS first, MAX(timestamp) AS last
    FROM (SELECT speaker AS name, 1 AS wrote, 0 AS addressed, timestamp
          FROM messages WHERE speaker IS NOT NULL
          UNION ALL
          SELECT l.person, 0, 1, m.timestamp
          FROM message_listeners l JOIN messages m ON m.id = l.message_id)
    GROUP BY name ORDER BY messages DESC, name;
CREATE TABLE tags AS
    SELECT t.tag AS tag, COUNT(*) AS messages, MIN(m.timestamp) AS first,
           MAX(m.timestamp) AS last
    FROM message_tags t JOIN messages m ON m.id = t.message_id
    GROUP BY t.tag ORDER BY messages DESC, tag;
CREATE TABLE threads AS
    SELECT thread, MIN(subject) AS subject, COUNT(*) AS messages,
           COUNT(DISTINCT speaker) AS participants, MIN(timestamp) AS first,
           MAX(timestamp) AS last
    FROM messages WHERE thread IS NOT NULL
    GROUP BY thread ORDER BY messages DESC, thread;
CREATE VIRTUAL TABLE messages_fts USING fts5(
    text, subject, content="messages", content_rowid="rowid"
);
INSERT INTO messages_fts(rowid, text, subject) SELECT rowid, text, subject FROM messages;
"""


def _row(record: dict[str, Any]) -> tuple[Any, ...]:
    values = dict(zip(COLUMN_NAMES, record_values(record), strict=True))
    return tuple(
        orjson.dumps(values[c]).decode() if c in _JSON_COLUMNS else values[c]
        for c in _MESSAGE_COLUMNS
    )


def _insert(conn: sqlite3.Connection, records: Iterable[dict[str, Any]]) -> int:
    marks = ",".join("?" * len(_MESSAGE_COLUMNS))
    insert = f"INSERT OR IGNORE INTO messages ({','.join(_MESSAGE_COLUMNS)}) VALUES ({marks})"
    for rec in records:
        row = _row(rec)
        if conn.execute(insert, row).rowcount != 1:
            continue  # an id already written: the first is kept
        msg_id = row[0]
        conn.executemany(
            "INSERT INTO message_tags VALUES (?, ?)",
            [(msg_id, t) for t in dict.fromkeys(orjson.loads(row[4]))],
        )
        conn.executemany(
            "INSERT INTO message_listeners VALUES (?, ?)",
            [(msg_id, p) for p in dict.fromkeys(orjson.loads(row[3]))],
        )
    return int(conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0])


@contextlib.contextmanager
def _database_beside(path: str) -> Iterator[sqlite3.Connection]:
    """A new database written next to ``path`` and renamed over it on success."""
    target = resolve_target(path)
    if target.is_dir():
        raise InputError("is a directory", where=path, hint="name the database file to write")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = scratch.file(target.parent, target.name)
    except OSError as e:
        raise InputError(e.strerror or str(e), where=path, hint="check the folder") from None
    os.close(fd)
    conn = sqlite3.connect(tmp)
    try:
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        yield conn
        conn.commit()
        conn.close()
        os.replace(tmp, target)
    except BaseException:
        conn.close()
        Path(tmp).unlink(missing_ok=True)
        raise


def write_sqlite(records: Iterable[dict[str, Any]], path: str, **_options: Any) -> int:
    """Write ``records`` as the database described above at ``path``; the number of
    messages written (records with an id already written are skipped)."""
    with _database_beside(path) as conn:
        conn.executescript(SCHEMA)
        n = _insert(conn, records)
        conn.executescript(AGGREGATES)
    return n
