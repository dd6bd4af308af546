"""The OpenAI Agents SDK's sessions in SQLite (``openai-agents``):
``SQLiteSession(session_id, db_path)``'s database.

Shape (openai/openai-agents-python ``src/agents/memory/sqlite_session.py``): a table of
sessions (``agent_sessions``: ``session_id``, ``created_at``, ``updated_at``) and one of
items (``agent_messages``: ``id`` autoincrement, ``session_id``, ``message_data`` the
item's JSON, ``created_at`` SQLite's ``CURRENT_TIMESTAMP``, UTC); the names are the
constructor's ``sessions_table`` and ``messages_table``, so a table is known by its
columns. An item is what ``Runner`` gives ``add_items``: a Responses API input or output
item (``to_input_list()``'s: a message, ``function_call``, ``function_call_output``,
``reasoning``...).

Decisions: each session is read as ``openai-responses`` reads an item list (the records
say ``openai-responses``), in ``id`` order, thread ``openai-agents:<session_id>``, each
item timed at its row's ``created_at``. Opened read-only; a row whose item is not JSON is
rejected with its place (``FILE#<table>-<id>``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers import sqlitedb
from convo.importers.agents.openai_responses import read_stored_items
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format

NAME = "openai-agents"
_COLUMNS = frozenset({"session_id", "message_data", "created_at"})


def _items_table(con: Any) -> str | None:
    """The table holding the session items (by its columns), else None."""
    for table in sorted(sqlitedb.tables(con)):
        if sqlitedb.columns(con, table) >= _COLUMNS:
            return table
    return None


def sniff(source: Source) -> int:
    return 90 if sqlitedb.holds(source, lambda con: _items_table(con) is not None) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    rows = sqlitedb.read_whole(
        source, lambda con: _rows(con, source.name), "an Agents SDK session database"
    )
    session: str | None = None
    batch: list[tuple[Any, str, str | None]] = []
    for sid, where, item, ts in rows:
        if sid != session and batch:
            yield from read_stored_items(batch, f"openai-agents:{session}", ctx)
            batch = []
        session = sid
        if isinstance(item, (dict, list)):
            batch.append((item, where, _time(ts)))
        else:
            ctx.reject(where, "not a session item (its message_data is not JSON)", item)
    if batch:
        yield from read_stored_items(batch, f"openai-agents:{session}", ctx)


def _rows(con: Any, name: str) -> Iterator[tuple[str, str, Any, Any]]:
    table = _items_table(con)
    if table is None:
        return
    query = (
        f'SELECT session_id, id, message_data, created_at FROM "{table}" ORDER BY session_id, id'
    )
    for sid, rid, data, created in con.execute(query):
        yield str(sid), f"{name}#{table}-{rid}", sqlitedb.lenient_json(data), created


def _time(value: Any) -> str | None:
    """SQLite's ``CURRENT_TIMESTAMP``: UTC, written without its zone."""
    try:
        return parse_any(value, UTC)
    except ValueError:
        return None


DESCRIPTION = (
    "OpenAI Agents SDK sessions (SQLiteSession's database: agent_sessions, agent_messages)"
)
EXAMPLE = "SQLite: agent_messages(id, session_id, message_data, created_at)"
FIELDS = Fields(
    speaker="as `openai-responses`: the role; calls `assistant`, their outputs `tool`",
    listeners="user ↔ assistant; a tool's output → assistant",
    time="the row's `created_at` (SQLite's `CURRENT_TIMESTAMP`)",
    zone="UTC (SQLite's `CURRENT_TIMESTAMP`, whatever `--tz` says)",
    thread="`openai-agents:<session_id>`",
    id="`openai:<id>` (the item's id), else " + CONTENT_HASH,
    scope="none: OpenAI's ids are unique everywhere",
    reply_to="a `function_call_output`: the call with its `call_id` (as `openai-responses`)",
    extra="as `openai-responses`: `type`, `item`, `parts`, `response`, `thinking`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.db", "*.sqlite", "*.sqlite3"), sniff, read, EXAMPLE,
           fields=FIELDS),
)  # fmt: skip
