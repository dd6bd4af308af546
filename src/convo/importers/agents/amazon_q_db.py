"""Amazon Q Developer CLI's store, ``~/.local/share/amazon-q/data.sqlite3`` (Kiro CLI:
``~/.local/share/kiro-cli/data.sqlite3``), read by ``amazon-q``
(``convo.importers.agents.amazon_q``) as its ``/save`` files are.

Shape (aws/amazon-q-developer-cli ``crates/chat-cli/src/database/mod.rs``): a
``conversations`` table, ``key`` the working directory, ``value`` its last
``ConversationState`` as JSON; beside it ``state``, ``history`` (the shell's commands) and
``auth_kv`` (the account's tokens: never read). Opened read-only; only ``conversations``
is read, in ``key`` order; a row whose value is not JSON is rejected with its place
(``FILE#conversations-KEY``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.importers import sqlitedb


def is_q_db(source: Source) -> bool:
    """SQLite holding Amazon Q's ``conversations`` (``key``, ``value``) beside its ``state``."""
    return sqlitedb.holds(source, _q_tables)


def _q_tables(con: Any) -> bool:
    tables = sqlitedb.tables(con)
    return {"conversations", "state"} <= tables and sqlitedb.columns(con, "conversations") >= {
        "key",
        "value",
    }


def conversations(source: Source) -> Iterator[tuple[str, Any]]:
    """(the row's place, its state decoded; the row's text when it is not JSON)."""
    return sqlitedb.read_whole(
        source, lambda con: _rows(con, source.name), "Amazon Q's data.sqlite3"
    )


def _rows(con: Any, name: str) -> Iterator[tuple[str, Any]]:
    for key, value in con.execute("SELECT key, value FROM conversations ORDER BY key"):
        yield f"{name}#conversations-{key}", sqlitedb.lenient_json(value)
