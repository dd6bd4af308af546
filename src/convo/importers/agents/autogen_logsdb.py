"""The SQLite logger's ``logs.db`` of AutoGen 0.2 runtime logging, as the file logger's
objects (``convo.importers.agents.autogen_runtime`` reads both; its docstring has the
tables and the rules).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers import sqlitedb
from convo.importers.sqlitedb import lenient_json


def is_db(source: Source) -> bool:
    return sqlitedb.is_sqlite(source)


def db_rows(source: Source) -> Iterator[tuple[str, str | None, dict[str, Any] | None]]:
    """The SQLite logger's rows as the file logger's objects, in time order: agents (by
    ``timestamp``), events (``timestamp``) and chat completions (``end_time``, when
    the file logger writes them); each with its session (events: the session of their
    agent's row, the latest one at or before the event)."""
    try:
        con = sqlitedb.connect(source)
    except sqlitedb.ERRORS as e:
        raise InputError(f"cannot open the SQLite log ({e})", where=source.name) from None
    try:
        yield from _merged(con)
    except sqlitedb.ERRORS as e:
        raise InputError(
            f"not an AutoGen SQLite log ({e})",
            where=source.name,
            hint="autogen.runtime_logging's logs.db has agents, events and chat_completions",
        ) from None
    finally:
        con.close()


def _merged(con: Any) -> Iterator[tuple[str, str | None, dict[str, Any] | None]]:
    cols = sqlitedb.columns(con, "chat_completions")
    sessions: dict[int, list[tuple[str, str]]] = {}
    for agent_id, sid, ts in con.execute(
        "SELECT agent_id, session_id, timestamp FROM agents ORDER BY timestamp"
    ):
        sessions.setdefault(agent_id, []).append((str(ts or ""), str(sid)))
    named = "source_name" if "source_name" in cols else "NULL"
    agents = (
        (str(r[6] or ""), 0, f"agents-{r[0]}", r[3], _agent_row(r))
        for r in con.execute(
            "SELECT id, agent_id, wrapper_id, session_id, name, class, timestamp, init_args "
            "FROM agents ORDER BY timestamp, id"
        )
    )
    events = (
        (str(r[7] or ""), 1, f"events-{r[0]}", _session_of(sessions, r[2], r[7]), _event_row(r))
        for r in con.execute(
            "SELECT id, event_name, source_id, source_name, agent_module, agent_class_name, "
            "json_state, timestamp FROM events ORDER BY timestamp, id"
        )
    )
    completions = (
        (str(r[11] or ""), 2, f"chat_completions-{r[0]}", r[4], _completion_row(r))
        for r in con.execute(
            "SELECT id, invocation_id, client_id, wrapper_id, session_id, request, response, "
            f"is_cached, cost, {named}, start_time, end_time "
            "FROM chat_completions ORDER BY end_time, id"
        )
    )
    for _, _, loc, session, obj in heapq.merge(agents, events, completions, key=_order):
        yield loc, session, obj


def _order(row: tuple[Any, ...]) -> tuple[str, int]:
    return row[0], row[1]


def _session_of(sessions: dict[int, list[tuple[str, str]]], agent: Any, when: Any) -> str | None:
    seen = sessions.get(agent) or []
    before = [sid for ts, sid in seen if ts <= str(when or "")]
    return before[-1] if before else (seen[0][1] if seen else None)


def _agent_row(r: tuple[Any, ...]) -> dict[str, Any]:
    return {"id": r[1], "agent_name": r[4], "wrapper_id": r[2], "session_id": r[3],
            "agent_type": r[5], "current_time": r[6], "args": lenient_json(r[7])}  # fmt: skip


def _event_row(r: tuple[Any, ...]) -> dict[str, Any]:
    return {"source_id": r[2], "source_name": r[3], "event_name": r[1], "agent_module": r[4],
            "agent_class": r[5], "json_state": r[6], "timestamp": r[7]}  # fmt: skip


def _completion_row(r: tuple[Any, ...]) -> dict[str, Any]:
    return {"invocation_id": r[1], "client_id": r[2], "wrapper_id": r[3],
            "request": lenient_json(r[5]), "response": lenient_json(r[6]), "is_cached": r[7],
            "cost": r[8], "source_name": r[9], "start_time": r[10], "end_time": r[11]}  # fmt: skip
