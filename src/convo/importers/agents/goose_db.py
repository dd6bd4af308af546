"""Goose's SQLite session store (``~/.local/share/goose/sessions/sessions.db``), read by
``goose`` (``convo.importers.agents.goose``) as its session files are.

Shape (block/goose ``crates/goose/src/session/session_manager.rs`` and
``migrations.rs``, schema versions 1-13; Goose moved its sessions from JSONL files into
it in 1.10 and imports the old files): ``sessions`` (``id``, ``name``, ``description``,
``working_dir``, ``created_at``, token counts, ``schedule_id``, ``recipe_json``,
``provider_name``, ``session_type``, ``parent_session_id``...) and ``messages``
(``id`` autoincrement, ``message_id`` since v7, ``session_id``, ``role``,
``content_json``: the message's content list, ``created_timestamp``: epoch seconds,
``metadata_json`` since v3: ``{"userVisible", "agentVisible"}``).

Decisions: each session's messages in ``id`` order (the order Goose wrote them), as a
session file's lines: the same records, thread ``goose:<session id>`` (the id Goose
gave the session file it imported, so both give one thread); the session's ``name``
(else ``description``) the first record's subject, its other columns that first
record's ``extra.session``. Messages of a session the ``sessions`` table lacks are
read too, after the others. A row whose content is not a JSON list is rejected with
its place (``FILE#messages-ID``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.importers import sqlitedb

MAGIC = sqlitedb.MAGIC
MESSAGE_COLUMNS = frozenset({"session_id", "role", "content_json", "created_timestamp"})
_SKIPPED = frozenset({"id", "extension_data", "recipe_json", "user_recipe_values_json"})


def is_goose_db(source: Source) -> bool:
    """SQLite holding Goose's ``sessions`` and ``messages`` tables."""
    return sqlitedb.holds(source, _goose_tables)


def _goose_tables(con: Any) -> bool:
    return (
        {"sessions", "messages"} <= sqlitedb.tables(con)
        and sqlitedb.columns(con, "messages") >= MESSAGE_COLUMNS
        and "working_dir" in sqlitedb.columns(con, "sessions")
    )


def sessions(source: Source) -> Iterator[tuple[str, dict[str, Any], str | None, Any]]:
    """Each session, then each of its messages: (the session's id, its columns, None,
    None) first, then (the id, its columns, the message's place, the message as a
    session file's line, or the row itself when its content is not a JSON list). Read
    here whole, so a damaged file is one InputError."""
    return sqlitedb.read_whole(
        source, lambda con: _sessions(con, source.name), "Goose's sessions.db"
    )


def _sessions(con: Any, name: str) -> Iterator[tuple[str, dict[str, Any], str | None, Any]]:
    cols = [r[1] for r in con.execute("PRAGMA table_info(sessions)")]
    order = "created_at, id" if "created_at" in cols else "id"
    rows = [dict(zip(cols, r, strict=True)) for r in con.execute(f"SELECT * FROM sessions ORDER BY {order}")]  # fmt: skip
    known = {str(r["id"]) for r in rows}
    for row in rows:
        sid = str(row["id"])
        meta = {k: v for k, v in row.items() if k not in _SKIPPED and v not in (None, "", "{}")}
        yield sid, meta, None, None
        for where, msg in _messages(con, name, sid):
            yield sid, meta, where, msg
    others = con.execute("SELECT DISTINCT session_id FROM messages ORDER BY session_id")
    for sid in [str(s) for (s,) in others.fetchall() if str(s) not in known]:
        yield sid, {}, None, None
        for where, msg in _messages(con, name, sid):
            yield sid, {}, where, msg


def _messages(con: Any, name: str, sid: str) -> Iterator[tuple[str, Any]]:
    cols = sqlitedb.columns(con, "messages")
    mid = "message_id" if "message_id" in cols else "NULL"
    meta = "metadata_json" if "metadata_json" in cols else "NULL"
    for row in con.execute(
        f"SELECT id, {mid}, role, content_json, created_timestamp, {meta} FROM messages "
        "WHERE session_id = ? ORDER BY id",
        (sid,),
    ):
        rid, own, role, content, created, metadata = row
        row = sqlitedb.row_value(row)
        where = f"{name}#messages-{rid}"
        parsed = sqlitedb.lenient_json(content)
        if not isinstance(parsed, list):
            yield where, row
            continue
        msg: dict[str, Any] = {"role": role, "created": created, "content": parsed}
        if own:
            msg["id"] = own
        if isinstance(sqlitedb.lenient_json(metadata), dict):
            msg["metadata"] = sqlitedb.lenient_json(metadata)
        yield where, msg
