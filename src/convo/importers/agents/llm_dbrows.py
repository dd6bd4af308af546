"""The rows of LLM's ``logs.db`` as the objects ``llm logs --json`` writes (the shape
``convo.importers.agents.llm_logs`` reads), for ``convo.importers.agents.llm_logsdb``.

Three generations of tables (simonw/llm ``llm/migrations.py``), each read where it
exists, and every one as a stream of calls in id order (ULIDs: time order):

- ``log``/``logs`` (m001-m008, before 0.5): integer ids, ``chat_id`` the conversation
  (the id of its first row, which has none itself); m009 kept the table when it held
  rows, and no later version reads it (nor ``llm logs --json``).
- ``responses`` (m010-m022, 0.5-0.31) with ``conversations``, ``schemas`` (m014),
  ``prompt_attachments`` (m012), ``prompt_fragments``/``system_fragments`` (m015),
  ``tool_calls``/``tool_results`` (m017-m021); read as ``llm/logs.py``'s
  ``LEGACY_LOG_ROWS_SQL`` and ``legacy_log_row_extras`` read them, a chunk of calls at a
  time (the tool tables have no index on ``response_id``).
- ``turns`` (m023 on, 0.32 and later: the content-addressed message store): a turn is
  the messages from its ``tip_message_hash`` back to its ``parent_message_hash``, its
  input the trailing user and tool messages before that, its system prompt the root's
  (``_LogRowBuilder.build`` and ``log_row_extras`` in ``llm/logs.py``); a part's text
  is its ``text`` column or its payload's ``text_ref`` (literals and fragment ids).
  A response id that is also a turn's is read once, as the turn (llm does the same).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any

from convo.importers.agents.llm_turns import Turns
from convo.importers.sqlitedb import columns, lenient_json

CHUNK = 256  # legacy calls whose extras are fetched by one query each


def _dicts(cur: Any) -> Iterator[dict[str, Any]]:
    names = [d[0] for d in cur.description]
    for row in cur:
        yield dict(zip(names, row, strict=True))


def calls(con: Any, tables: set[str]) -> Iterator[tuple[dict[str, Any], str]]:
    """Every call, as ``llm logs --json``'s object and where it is (``table:id``): the
    pre-0.5 table's first, then the responses and turns merged by id."""
    for old in ("log", "logs"):
        if old in tables and "prompt" in columns(con, old):
            yield from _old_calls(con, old)
    merged = heapq.merge(_legacy_calls(con, tables), _turn_calls(con, tables), key=_by_id)
    yield from merged


def _by_id(item: tuple[dict[str, Any], str]) -> str:
    return str(item[0].get("id") or "")


def _old_calls(con: Any, table: str) -> Iterator[tuple[dict[str, Any], str]]:
    cols = columns(con, table)
    when = next((c for c in ("datetime_utc", "timestamp_utc", "timestamp") if c in cols), "NULL")
    for row in _dicts(con.execute(f'SELECT *, {when} AS _when FROM "{table}" ORDER BY id')):
        chat = row.get("chat_id") or row.get("id")  # a conversation's first row has none
        item = {
            "id": str(row["id"]) if row.get("id") is not None else None,
            "model": row.get("model"),
            "prompt": row.get("prompt"),
            "system": row.get("system"),
            "response": row.get("response"),
            "options_json": lenient_json(row.get("options_json")),
            "conversation_id": str(chat) if chat is not None else None,
            "duration_ms": row.get("duration_ms"),
            "datetime_utc": row.get("_when"),
        }
        yield item, f"{table}:{row.get('id')}"


def _legacy_sql(tables: set[str]) -> str:
    select = ["responses.*"]
    joins = ""
    if "conversations" in tables:
        select.append("conversations.name AS conversation_name")
        select.append("conversations.model AS conversation_model")
        joins += " LEFT JOIN conversations ON responses.conversation_id = conversations.id"
    if "schemas" in tables:
        select.append("schemas.content AS _schema")
        joins += " LEFT JOIN schemas ON responses.schema_id = schemas.id"
    skip = " WHERE responses.id NOT IN (SELECT id FROM turns)" if "turns" in tables else ""
    return f"SELECT {', '.join(select)} FROM responses{joins}{skip} ORDER BY responses.id"


def _legacy_calls(con: Any, tables: set[str]) -> Iterator[tuple[dict[str, Any], str]]:
    if "responses" not in tables:
        return
    chunk: list[dict[str, Any]] = []
    for row in _dicts(con.execute(_legacy_sql(tables))):
        chunk.append(row)
        if len(chunk) == CHUNK:
            yield from _legacy_chunk(con, tables, chunk)
            chunk = []
    yield from _legacy_chunk(con, tables, chunk)


def _legacy_chunk(
    con: Any, tables: set[str], rows: list[dict[str, Any]]
) -> Iterator[tuple[dict[str, Any], str]]:
    if not rows:
        return
    extras = legacy_extras(con, tables, [str(r["id"]) for r in rows])
    for row in rows:
        item = {k: lenient_json(v) if k.endswith("_json") else v for k, v in row.items()}
        item["schema_json"] = lenient_json(item.pop("_schema", None))
        item.update(extras.get(str(row["id"]), {}))
        yield item, f"responses:{row['id']}"


def _query(con: Any, sql: str, ids: list[str]) -> Iterator[dict[str, Any]]:
    marks = ",".join("?" * len(ids))
    yield from _dicts(con.execute(sql.replace("{ids}", marks), ids))


def legacy_extras(con: Any, tables: set[str], ids: list[str]) -> dict[str, dict[str, Any]]:
    """A chunk's attachments, fragments, tool calls and results, by response id."""
    out: dict[str, dict[str, Any]] = {i: {} for i in ids}

    def add(key: str, row: dict[str, Any]) -> None:
        out[str(row.pop("response_id"))].setdefault(key, []).append(row)

    if {"attachments", "prompt_attachments"} <= tables:
        for row in _query(con, _ATTACHMENTS, ids):
            add("attachments", row)
    for kind in ("prompt_fragments", "system_fragments"):
        if {kind, "fragments"} <= tables:
            for row in _query(con, _FRAGMENTS.replace("{t}", kind), ids):
                row["aliases"] = lenient_json(row["aliases"]) or []
                add(kind, row)
    if "tool_calls" in tables:
        for row in _query(con, _TOOL_CALLS, ids):
            row["arguments"] = lenient_json(row["arguments"])
            add("tool_calls", row)
    if "tool_results" in tables:
        for row in _query(con, _tool_results_sql(con, tables), ids):
            add("tool_results", _tool_result(row))
    return out


_ATTACHMENTS = (
    "SELECT prompt_attachments.response_id, attachments.id, attachments.type, "
    "attachments.path, attachments.url, length(attachments.content) AS content_length "
    "FROM attachments JOIN prompt_attachments ON attachments.id = prompt_attachments.attachment_id "
    'WHERE prompt_attachments.response_id IN ({ids}) ORDER BY prompt_attachments."order"'
)
_FRAGMENTS = (
    "SELECT {t}.response_id, fragments.hash, fragments.content, (SELECT json_group_array("
    "fragment_aliases.alias) FROM fragment_aliases WHERE fragment_aliases.fragment_id = "
    "fragments.id) AS aliases FROM {t} JOIN fragments ON {t}.fragment_id = fragments.id "
    'WHERE {t}.response_id IN ({ids}) ORDER BY {t}."order"'
)
_TOOL_CALLS = (
    "SELECT response_id, id, tool_id, name, arguments, tool_call_id FROM tool_calls "
    "WHERE response_id IN ({ids}) ORDER BY id"
)


def _tool_results_sql(con: Any, tables: set[str]) -> str:
    cols = columns(con, "tool_results")
    exception = "tr.exception" if "exception" in cols else "NULL"
    instance = "instance_id" in cols and "tool_instances" in tables
    who = ("ti.name", "ti.plugin", "ti.arguments") if instance else ("NULL",) * 3
    join = " LEFT JOIN tool_instances ti ON tr.instance_id = ti.id" if instance else ""
    files = (
        "(SELECT json_group_array(json_object('id', a.id, 'type', a.type, 'path', a.path, "
        "'url', a.url)) FROM tool_results_attachments tra JOIN attachments a ON "
        "tra.attachment_id = a.id WHERE tra.tool_result_id = tr.id)"
        if {"tool_results_attachments", "attachments"} <= tables
        else "NULL"
    )
    return (
        "SELECT tr.response_id, tr.id, tr.tool_id, tr.name, tr.output, tr.tool_call_id, "
        f"{exception} AS exception, {who[0]} AS i_name, {who[1]} AS i_plugin, "
        f"{who[2]} AS i_args, {files} AS files FROM tool_results tr{join} "
        "WHERE tr.response_id IN ({ids}) ORDER BY tr.id"
    )


def _tool_result(row: dict[str, Any]) -> dict[str, Any]:
    name, plugin, args = row.pop("i_name"), row.pop("i_plugin"), row.pop("i_args")
    row["instance"] = {"name": name, "plugin": plugin, "arguments": args} if name else None
    row["attachments"] = lenient_json(row.pop("files")) or []
    return row


def _turn_calls(con: Any, tables: set[str]) -> Iterator[tuple[dict[str, Any], str]]:
    if not {"turns", "messages", "parts"} <= tables:
        return
    yield from Turns(con, tables).calls()
