"""The index's tables, where the file lives, and how to open it.

Names are chosen for people browsing the file in Datasette or sqlite-utils: ``messages``
(one row per record, in store order), ``names`` (every distinct speaker/listener),
``name_tokens``, ``message_listeners``, ``message_tags``, the FTS5 table
``messages_fts`` with ``fts_terms`` (every token it holds, and perhaps some it held) and
``messages_unfolded`` (the messages whose text the tokens fold otherwise than Python:
``convo.index.folding``), and the view ``messages_view`` that joins them back into one row per
message with readable columns.
"""

from __future__ import annotations

import functools
import os
import sqlite3

from convo.index.paths import SUFFIX, index_file, index_path  # noqa: F401 (their home was here)

SCHEMA_VERSION = "6"  # 4: fts_terms and messages_unfolded (text words from the index);
# 5: value_counts (how many messages have each format and role);
# 6: messages.thread is the conversation (fields.conversation: a file for thread-less ones)
TOKENIZER = "unicode61 remove_diacritics 2"
WEIGHTS = "2.0, 1.0"  # BM25 column weights: subject, text

# FTS5 keeps up to ``hashsize`` bytes of pending terms before it writes a segment: 32 MiB
# tokenised 1M benchmark messages in the same CPU time as 64 MiB (16 MiB: 15% more), and
# a build's peak memory holds it.
FTS_DDL = f"""
CREATE VIRTUAL TABLE messages_fts USING fts5(
    subject, text, content='', tokenize='{TOKENIZER}'
);
INSERT INTO messages_fts(messages_fts, rank) VALUES ('rank', 'bm25({WEIGHTS})');
INSERT INTO messages_fts(messages_fts, rank) VALUES ('hashsize', 33554432);
"""

DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE names (
    name_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE name_tokens (
    token TEXT NOT NULL,
    name_id INTEGER NOT NULL REFERENCES names(name_id),
    PRIMARY KEY (token, name_id)
) WITHOUT ROWID;
CREATE TABLE messages (
    message_id INTEGER PRIMARY KEY,
    id TEXT,
    byte_offset INTEGER NOT NULL,
    byte_length INTEGER NOT NULL,
    timestamp TEXT NOT NULL,
    speaker_id INTEGER REFERENCES names(name_id),
    thread TEXT,
    format TEXT,
    role TEXT NOT NULL,
    subject TEXT
);
CREATE TABLE message_listeners (
    message_id INTEGER NOT NULL REFERENCES messages(message_id),
    name_id INTEGER NOT NULL REFERENCES names(name_id),
    PRIMARY KEY (message_id, name_id)
) WITHOUT ROWID;
CREATE TABLE message_tags (
    message_id INTEGER NOT NULL REFERENCES messages(message_id),
    tag_folded TEXT NOT NULL,
    tag TEXT NOT NULL,
    PRIMARY KEY (message_id, tag_folded)
) WITHOUT ROWID;
CREATE TABLE fts_terms (term TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE messages_unfolded (message_id INTEGER PRIMARY KEY);
CREATE TABLE value_counts (
    field TEXT NOT NULL,
    value TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (field, value)
) WITHOUT ROWID;
{fts}
CREATE VIEW messages_view AS
SELECT
    m.message_id, m.id, m.timestamp, s.name AS speaker,
    (SELECT group_concat(n.name, '; ') FROM message_listeners ml
        JOIN names n ON n.name_id = ml.name_id WHERE ml.message_id = m.message_id) AS listeners,
    (SELECT group_concat(t.tag, ', ') FROM message_tags t
        WHERE t.message_id = m.message_id) AS tags,
    m.thread, m.format, m.role, m.subject, m.byte_offset, m.byte_length
FROM messages m LEFT JOIN names s ON s.name_id = m.speaker_id;
""".replace("{fts}", FTS_DDL.strip())

# A build writes a new file that is renamed into place only when complete: no journal,
# no syncs until the end. The rows are appended in key order, so the cache holds little
# that is read again: on the 1M-message benchmark store 16 MiB built as fast as 64 MiB
# (which took 40 s against 47 s with 256 MiB on a loaded machine) and the build's peak
# RSS fell from 290 to 195 MB. The sorts of the secondary indexes spill to temporary
# files, so a build's memory does not grow with the store; they are faster in a small
# cache (``SORT_PRAGMA``, set before them): 2.2 s against 3.0 s for the six indexes it had then, on
# that store with 64 MiB, the sorter's memory following the cache (19-23 MB against 128).
BUILD_PRAGMAS = (
    "PRAGMA journal_mode = OFF",
    "PRAGMA synchronous = OFF",
    "PRAGMA cache_size = -16384",
    "PRAGMA temp_store = FILE",
)
SORT_PRAGMA = "PRAGMA cache_size = -4096"

# Secondary indexes are made after a bulk build (faster than keeping them up to date);
# the link tables are keyed by message, so a build appends to them in key order.
INDEXES = """
CREATE INDEX IF NOT EXISTS messages_by_id ON messages(id);
CREATE INDEX IF NOT EXISTS messages_by_time ON messages(timestamp, message_id);
CREATE INDEX IF NOT EXISTS messages_by_speaker ON messages(speaker_id);
CREATE INDEX IF NOT EXISTS messages_by_thread ON messages(thread);
CREATE INDEX IF NOT EXISTS messages_by_format ON messages(format);
CREATE INDEX IF NOT EXISTS messages_by_role ON messages(role);
CREATE INDEX IF NOT EXISTS message_listeners_by_name ON message_listeners(name_id);
CREATE INDEX IF NOT EXISTS message_tags_by_tag ON message_tags(tag_folded);
"""


# How many messages have each format and each role (``value_counts``), so that
# ``format:mbox`` and ``role:user`` are counted by reading one row: SQLite counts them by
# stepping through their entries of ``messages_by_format``/``_by_role``, about 45 ns
# each (``format:mbox``, 200k messages of the 1M-message benchmark store: 9.2 ms of
# CPU, 90M instructions; ``role:user``, all of them: 34 ms), where the sqlite3 CLI
# answering the same question pays the same walk. ``writer`` keeps the table as it adds
# and removes rows, a few rows a batch (triggers on ``messages`` doubled the CPU time of
# appending 100k messages, 3.6 → 7.5 s, measured); ``check`` compares it with the rows.
COUNTED = ("format", "role")
ADD_COUNTS = (
    "INSERT INTO value_counts VALUES (?, ?, ?)"
    " ON CONFLICT (field, value) DO UPDATE SET n = n + excluded.n"
)
TAKE_COUNT = "UPDATE value_counts SET n = n - 1 WHERE field = ? AND value = ?"
DROP_ZERO = "DELETE FROM value_counts WHERE field = ? AND value = ? AND n <= 0"


def connect(path: str | os.PathLike[str], *, readonly: bool = False) -> sqlite3.Connection:
    """Open the index (autocommit off: callers use explicit transactions)."""
    if readonly:
        conn = sqlite3.connect(f"file:{os.fspath(path)}?mode=ro", uri=True, isolation_level=None)
    else:
        conn = sqlite3.connect(os.fspath(path), isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 10000")
    return conn


def _run(conn: sqlite3.Connection, ddl: str) -> None:
    for statement in ddl.split(";\n"):
        if statement.strip():
            conn.execute(statement)


def create(conn: sqlite3.Connection) -> None:
    """Make the tables (inside the caller's transaction: executescript would commit it)."""
    _run(conn, DDL)
    conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))


def create_fts(conn: sqlite3.Connection) -> None:
    """Only the full-text table, as ``create`` makes it (``index.fts`` builds one apart),
    and its list of tokens."""
    _run(conn, FTS_DDL)
    conn.execute("CREATE TABLE fts_terms (term TEXT PRIMARY KEY) WITHOUT ROWID")


def fill_terms(conn: sqlite3.Connection, table: str = "messages_fts") -> None:
    """Add every token of the FTS5 table ``table`` (in ``conn``'s main database) to
    ``fts_terms``. (Reading the vocabulary walks the whole full-text index: 1.2 s for the
    1M-message benchmark store, once per rebuild; an append reads only its new rows'.)"""
    conn.execute(f"CREATE VIRTUAL TABLE temp.fts_vocab USING fts5vocab(main, {table}, row)")
    try:
        conn.execute("INSERT OR IGNORE INTO main.fts_terms SELECT term FROM temp.fts_vocab")
    finally:
        conn.execute("DROP TABLE temp.fts_vocab")


NUMBERS = ("store_dev", "store_ino", "store_mtime_ns", "store_size", "indexed_bytes",
           "messages", "bad_lines")  # fmt: skip


class DamagedIndex(sqlite3.DatabaseError):
    """A valid SQLite file that is not a whole index: a meta value that is not a number,
    a table or column missing. Every caller treats it as any index it cannot read: a
    read goes without it, the next write (``ingest --save``, ``index``) rebuilds it."""


def read_meta(conn: sqlite3.Connection) -> dict[str, str]:
    """The meta table, once the index is seen whole (else ``DamagedIndex``)."""
    meta = {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
    for key in NUMBERS:
        value = meta.get(key)
        if value is not None and not value.lstrip("-").isdecimal():
            raise DamagedIndex(f"the index is damaged: its meta {key} is not a number")
    if meta.get("schema_version") != SCHEMA_VERSION:
        return meta  # another version's tables: rebuilt (``state.freshness``), never read
    for table, columns in _tables().items():
        have = {row[1] for row in conn.execute(f"PRAGMA table_info('{table}')")}
        if not have:
            raise DamagedIndex(f"the index is damaged: no table {table}")
        if missing := sorted(columns - have):
            raise DamagedIndex(f"the index is damaged: table {table} lacks {', '.join(missing)}")
    return meta


@functools.cache
def _tables() -> dict[str, set[str]]:
    """Every table ``create`` makes, with its columns (from a database in memory)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        _run(conn, DDL)
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            name: {row[1] for row in conn.execute(f"PRAGMA table_info('{name}')")}
            for name in names
            if not name.startswith("messages_fts_")  # FTS5's own shadow tables
        }
    finally:
        conn.close()


def write_meta(conn: sqlite3.Connection, values: dict[str, object]) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO meta VALUES (?, ?)", [(k, str(v)) for k, v in values.items()]
    )


def close_quietly(conn: sqlite3.Connection | None) -> None:
    if conn is not None:
        # not contextlib.suppress: no contextlib on an indexed read (docs/startup.md)
        try:  # noqa: SIM105
            conn.close()
        except sqlite3.Error:
            pass
