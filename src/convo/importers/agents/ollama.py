"""Ollama (``ollama``): the desktop app's chats (``db.sqlite``) and the API's answers.

Shapes:
- the app's database (ollama/ollama ``app/store/database.go``, schema versions 2-13;
  ``~/Library/Application Support/Ollama/db.sqlite``, ``%LOCALAPPDATA%\\Ollama\\db.sqlite``):
  ``chats`` (``id``, ``title``, ``created_at``), ``messages`` (``id`` autoincrement,
  ``chat_id``, ``role``, ``content``, ``thinking``, ``model_name``, ``created_at``,
  ``updated_at``, ``thinking_time_start``/``_end``, ``tool_result`` JSON since v4),
  ``tool_calls`` (``message_id``, ``type``, ``function_name``, ``function_arguments``,
  ``function_result`` JSON) and ``attachments`` (``message_id``, ``filename``, ``data``);
  times as go-sqlite3 writes them (``2025-08-01 10:00:00.123456789+02:00``);
- the API's answers saved (docs/api.md): ``/api/chat`` ``{"model", "created_at",
  "message": {"role", "content", "thinking", "tool_calls": [{"function": {"name",
  "arguments"}}], "images"}, "done", "done_reason", durations and counts}`` and
  ``/api/generate`` ``{"model", "created_at", "response", "thinking", "done", "context"}``:
  one object, a JSON array, or a stream of them (one a line, ``done: false`` pieces).

Decisions:
- The app: each chat's messages in ``id`` order (as the app loads them); speaker and
  role the message's role, listeners the other party (a tool's output → the
  assistant); a message's tool calls ``[tool_use NAME] {args}`` and, when the app kept
  it with the call, ``[tool_result NAME] result`` chunks of that answer (as Open WebUI's);
  a ``tool`` message's text ``[tool_result NAME] ...`` (NAME the latest call's);
  attachments named (``[file NAME]``, their bytes not kept). Thinking is private:
  ``extra.thinking`` (``--include-thinking``: a ``[thinking]`` chunk). thread =
  ``ollama:<chat id>`` (a UUID), the title the first message's subject; time =
  ``created_at``; ids: content hashes (the app writes a chat's messages again, with new
  row ids, each time it saves it).
- The API: one record an answer, its streamed pieces joined (the first piece's time),
  spoken by ``assistant`` (the ``model`` in ``extra.model``); tool calls and thinking as
  above; the counts of the last piece in ``extra.stats``; thread = the file.
- A message row or an answer that is not one is rejected with its place.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers import sqlitedb
from convo.importers.agents.blocks import dumps
from convo.importers.agents.samples import iter_samples, sample_values
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head
from convo.importers.registry import Format
from convo.importers.sqlitedb import lenient_json

NAME = "ollama"
OTHER = {"user": ["assistant"], "assistant": ["user"], "tool": ["assistant"]}
_STATS = ("done_reason", "total_duration", "load_duration", "prompt_eval_count",
          "prompt_eval_duration", "eval_count", "eval_duration")  # fmt: skip


def _is_answer(value: Any) -> bool:
    """An API answer (or a streamed piece of one)."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("model"), str)
        and isinstance(value.get("created_at"), str)
        and isinstance(value.get("done"), bool)
        and (isinstance(value.get("message"), dict) or isinstance(value.get("response"), str))
    )


_APP_TABLES = frozenset({"chats", "messages", "tool_calls"})
_APP_COLUMNS = frozenset({"chat_id", "role", "content", "thinking"})


def _is_app_db(source: Source) -> bool:
    return sqlitedb.holds(source, _app_tables)


def _app_tables(con: Any) -> bool:
    return sqlitedb.tables(con) >= _APP_TABLES and sqlitedb.columns(con, "messages") >= _APP_COLUMNS


def sniff(source: Source) -> int:
    if source.head.startswith(sqlitedb.MAGIC):
        return 90 if _is_app_db(source) else 0
    values = sample_values(json_head(source))
    items = [i for v in values[:40] for i in (v if isinstance(v, list) else [v])]
    good = sum(map(_is_answer, items[:40]))
    return 90 if good and good * 2 > len(items[:40]) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if source.head.startswith(sqlitedb.MAGIC):
        yield from _read_db(source, ctx)
    else:
        yield from _read_answers(source, ctx)


# -- the app's database ------------------------------------------------------------------


def _read_db(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    return sqlitedb.read_whole(source, lambda con: _chats(con, source, ctx), "Ollama's db.sqlite")


def _chats(con: Any, source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    cols = sqlitedb.columns(con, "messages")
    result = "tool_result" if "tool_result" in cols else "NULL"
    attached = "attachments" in sqlitedb.tables(con)
    chats = con.execute("SELECT id, title FROM chats ORDER BY created_at, id").fetchall()
    for chat_id, title in chats:
        calls: list[str] = []  # the chat's tool calls' names, for the tool messages after
        rows = con.execute(
            f"SELECT id, role, content, thinking, model_name, created_at, {result} "
            "FROM messages WHERE chat_id = ? ORDER BY id",
            (chat_id,),
        ).fetchall()
        for n, row in enumerate(rows):
            where = f"{source.name}#messages-{row[0]}"
            if not isinstance(row[1], str) or not isinstance(row[2], str):
                ctx.reject(where, "not an Ollama message (role, content)", sqlitedb.row_value(row))
                continue
            tools = con.execute(
                "SELECT function_name, function_arguments, function_result FROM tool_calls "
                "WHERE message_id = ? ORDER BY id",
                (row[0],),
            ).fetchall()
            files = (
                [f for (f,) in con.execute(
                    "SELECT filename FROM attachments WHERE message_id = ? ORDER BY id", (row[0],))]
                if attached else []
            )  # fmt: skip
            subject = as_str(title) if n == 0 else ""
            yield _app_message(row, tools, files, calls, (where, f"{NAME}:{chat_id}", subject), ctx)


def _app_message(
    row: tuple[Any, ...],
    tools: list[tuple[Any, ...]],
    files: list[Any],
    calls: list[str],
    place: tuple[str, str, str],
    ctx: ImportContext,
) -> ConversationMessage:
    _, role, content, thinking, model, created, result = row
    chunks = _app_chunks(role, content, result, tools, calls)
    chunks += [f"[file {as_str(f)}]" for f in files]
    thoughts = [thinking] if isinstance(thinking, str) and thinking else []
    if ctx.options.include_thinking and thoughts:
        chunks, thoughts = [f"[thinking] {thinking}", *chunks], []
    where, thread, subject = place
    return message(
        chunks or [""],
        speaker=role,
        listeners=OTHER.get(role, []),
        timestamp=iso_ts(created, ctx.options.tz) if isinstance(created, str) else None,
        source_id=where,
        format=NAME,
        thread=thread,
        subject=subject or None,
        role=role if role in ("system", "user", "assistant", "tool") else None,
        extra={"model": model or None, "thinking": thoughts or None,
               "tool_result": lenient_json(result) if result and role != "tool" else None},
    )  # fmt: skip


def _app_chunks(
    role: str, content: str, result: Any, tools: list[tuple[Any, ...]], calls: list[str]
) -> list[str]:
    """A message's text (a tool's output labelled by the latest call), then its calls and
    the results the app kept with them; ``calls`` gets the calls' names."""
    chunks: list[str] = []
    if role == "tool":
        said = content or (dumps(lenient_json(result)) if result else "")
        chunks.append(f"[tool_result {calls[-1] if calls else 'tool'}] {said}")
    elif content:
        chunks.append(content)
    for name, args, output in tools:
        label = as_str(name) or "?"
        calls.append(label)
        chunks.append(f"[tool_use {label}] {dumps(lenient_json(args)) if args else '{}'}")
        if output:
            chunks.append(f"[tool_result {label}] {_text(lenient_json(output))}")
    return chunks


def _text(value: Any) -> str:
    return value if isinstance(value, str) else dumps(value)


# -- the API's answers ---------------------------------------------------------------------


def _read_answers(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    pieces: list[tuple[dict[str, Any], str]] = []
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        items = sample if isinstance(sample, list) else [sample]
        for k, item in enumerate(items, 1):
            here = f"{where}#item-{k}" if isinstance(sample, list) else where
            if not _is_answer(item):
                ctx.reject(here, "not an Ollama API answer (model, created_at, done)", item)
                continue
            pieces.append((item, here))
            if item["done"]:
                yield _answer(pieces, source, ctx)
                pieces = []
    if pieces:  # a stream cut before its last piece
        yield _answer(pieces, source, ctx)


def _answer(
    pieces: list[tuple[dict[str, Any], str]], source: Source, ctx: ImportContext
) -> ConversationMessage:
    first, where = pieces[0]
    last = pieces[-1][0]
    chunks, thinking = _joined([p for p, _ in pieces])
    if ctx.options.include_thinking and thinking:
        chunks, thinking = [f"[thinking] {thinking}", *chunks], ""
    stats = {k: last[k] for k in _STATS if k in last}
    return message(
        chunks or [""],
        speaker="assistant",
        listeners=["user"],
        timestamp=iso_ts(first.get("created_at"), ctx.options.tz),
        source_id=where,
        format=NAME,
        thread=ctx.thread_of(source.name),
        role="assistant",
        tags=[] if last.get("done") else ["incomplete"],
        extra={"model": first.get("model"), "thinking": [thinking] if thinking else None,
               "stats": stats or None, "pieces": len(pieces) if len(pieces) > 1 else None},
    )  # fmt: skip


def _joined(pieces: list[dict[str, Any]]) -> tuple[list[str], str]:
    """(chunks, thinking) of an answer's pieces: the text joined, then the tool calls."""
    said: list[str] = []
    thought: list[str] = []
    calls: list[str] = []
    for piece in pieces:
        msg = as_dict(piece.get("message"))
        said.append(as_str(msg.get("content")) or as_str(piece.get("response")))
        thought.append(as_str(msg.get("thinking")) or as_str(piece.get("thinking")))
        for call in as_list(msg.get("tool_calls")):
            fn = as_dict(as_dict(call).get("function"))
            name = as_str(fn.get("name")) or "?"
            calls.append(f"[tool_use {name}] {dumps(fn.get('arguments') or {})}")
    text = "".join(said)
    return ([text] if text else []) + calls, "".join(thought)


DESCRIPTION = "Ollama: the desktop app's chats (db.sqlite) and the API's saved answers (/api/chat, /api/generate)"
EXAMPLE = (
    "db.sqlite (SQLite: chats, messages, tool_calls, attachments); or "
    '{"model": "llama3.2", "created_at": "2025-01-02T10:00:00Z", "message": {"role": '
    '"assistant", "content": "Hi"}, "done": true}'
)
FIELDS = Fields(
    speaker="the message's role; an API answer: `assistant`",
    listeners="the other party (user ↔ assistant; a tool's output → assistant)",
    time="`created_at` (the app's times with their offset; an answer's first piece's)",
    zone="the offset the source writes; a time without one in `--tz`",
    thread="`ollama:<chat id>` (the app); an answer: the file",
    id=CONTENT_HASH + " (the app writes a chat's rows again on each save)",
    scope="the chat",
    subject="the chat's `title` on its first message",
    tags="`incomplete`: a streamed answer whose last piece is missing",
    extra="`model`, `thinking` (unless `--include-thinking`), `tool_result` (the app's); "
    "an answer's `stats` (its last piece's counts) and `pieces`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("db.sqlite", "*.sqlite", "*.json", "*.jsonl"), sniff,
           read, EXAMPLE, fields=FIELDS),
)  # fmt: skip
