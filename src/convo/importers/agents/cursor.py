"""Cursor's chats (``cursor``): the editor's SQLite ``state.vscdb``, read read-only.

Cursor writes no export; its chats live in VS Code's key-value databases
(``~/Library/Application Support/Cursor/User/`` on macOS, ``~/.config/Cursor/User/`` on
Linux, ``%APPDATA%/Cursor/User/`` on Windows): ``globalStorage/state.vscdb`` and one
``workspaceStorage/<hash>/state.vscdb`` a workspace, each with the tables ``ItemTable``
and ``cursorDiskKV`` (``key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB``). The shape is
not documented by Cursor; it is the one the readers of these files agree on (this
module follows the field tables of michaeldhood/chatrxiv ``docs/cursor/
storage-reference.md``, schema ``_v`` 10 composers and ``_v`` 3 bubbles, and the
legacy panel as pppp606/cursor-efficiency ``docs/vscdbRelation.md`` and other readers
decode it):

- Composer (Chat, Agent, since late 2024), in ``cursorDiskKV``: ``composerData:<id>``
  holds ``{"_v", "composerId", "name", "createdAt" (ms), "lastUpdatedAt",
  "fullConversationHeadersOnly": [{"bubbleId", "type", "serverBubbleId"}],
  "modelConfig": {"modelName"}, ...}`` (older ones the messages inline:
  ``"conversation": [bubble...]`` or ``"conversationMap": {id: bubble}``); each message
  (a "bubble") is ``bubbleId:<composer>:<bubble>``: ``{"_v", "type": 1 (user) | 2
  (assistant), "bubbleId", "text", "richText", "createdAt" (ISO, on newer bubbles),
  "requestId", "thinking": {"text"}, "toolFormerData": {"name", "rawArgs" | "params",
  "result", "status", "additionalData"}, "codeBlocks": [{"content", "languageId",
  "uri"}], "images", "attachedCodeChunks", "tokenCount", "timingInfo", ...}``; a bubble
  may be JSON ``null``.
- The chat panel before the composer, in a workspace's ``ItemTable``:
  ``workbench.panel.aichat.view.aichat.chatdata`` = ``{"tabs": [{"tabId", "chatTitle",
  "lastSendTime", "bubbles": [{"type": "user" | "ai", "id", "text", "rawText",
  "modelType", ...}]}]}``.

Only these keys are read: the global database's ``ItemTable`` also holds the account's
tokens, never touched.

Decisions:
- One record a bubble, speaker ``user`` or ``assistant`` → the other; the composer's
  messages in its header order, then any bubble of it the headers do not list (a
  reverted or edited turn), tagged ``unlisted``.
- Chunks: the text; an assistant's code blocks when its text is empty (an edit);
  a tool call and its result (Cursor keeps both in the assistant's bubble) as
  ``[tool_use NAME] {args}`` and ``[tool_result NAME] result`` (``error`` flagged),
  whole; images named. Thinking is private: ``extra.thinking`` (``--include-thinking``:
  ``[thinking]`` chunks).
- time: the bubble's ``createdAt`` (ISO or ms), else its ``timingInfo.clientRpcSendTime``
  (ms), else the composer's ``createdAt`` (``extra.time_from: "conversation"``); the
  panel keeps only the tab's ``lastSendTime``, which every bubble of the tab gets.
- thread = ``cursor:<composerId>`` / ``cursor:<tabId>``; subject the composer's
  ``name`` (the tab's ``chatTitle``) on its first record. id = ``cursor:<composer>:
  <bubble>`` (the panel: ``cursor:<tab>:<bubble id>``), else the content hash.
- A bubble that is not JSON is rejected with its key; ``null`` bubbles, and bubbles a
  composer lists that the database does not hold, are counted in one warning each.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import orjson

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers import sqlitedb
from convo.importers.agents.blocks import dumps, whole_chunk
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str
from convo.importers.registry import Format

NAME = "cursor"
PANEL = "workbench.panel.aichat.view.aichat.chatdata"
OTHER = {"user": ["assistant"], "assistant": ["user"]}
SPEAKERS = {1: "user", 2: "assistant", "user": "user", "ai": "assistant"}


def sniff(source: Source) -> int:
    head = source.head
    if not head.startswith(sqlitedb.MAGIC):
        return 0
    if b"cursorDiskKV" in head:
        return 90
    if b"ItemTable" in head and _has_panel(source):
        return 85  # an older workspace database: the chat panel's key
    return 0


def _connect(source: Source) -> sqlite3.Connection:
    """The database read-only; a WAL file beside it is read too when SQLite can, else the
    file alone (``immutable``: Cursor's latest writes may be missed)."""
    con = None
    try:
        con = sqlitedb.connect(source, immutable=False)
        con.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return con
    except sqlitedb.ERRORS:
        if con is not None:
            con.close()  # (the WAL could not be read: the file alone, below)
        return sqlitedb.connect(source)


def _has_panel(source: Source) -> bool:
    try:
        with closing(_connect(source)) as con:
            if "ItemTable" not in sqlitedb.tables(con):
                return False
            row = con.execute("SELECT 1 FROM ItemTable WHERE key = ?", (PANEL,)).fetchone()
    except sqlitedb.ERRORS:
        return False
    return row is not None


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    con = None
    try:
        con = _connect(source)
        tables = sqlitedb.tables(con)
    except sqlitedb.ERRORS as e:
        if con is not None:
            con.close()
        raise InputError(f"cannot open the Cursor database ({e})", where=source.name) from None
    db = _Db(source, ctx, con)
    try:
        if "cursorDiskKV" in tables:
            yield from db.composers()
        if "ItemTable" in tables:
            yield from db.panel()
    except sqlitedb.ERRORS as e:
        raise InputError(
            f"not a readable Cursor database ({e})",
            where=source.name,
            hint="state.vscdb has the tables ItemTable and cursorDiskKV",
        ) from None
    finally:
        con.close()
        db.finish()


def _json(value: Any) -> Any:
    """A stored value (text or bytes) as JSON; raises ValueError when it is not JSON."""
    if isinstance(value, str):
        value = value.encode("utf-8", "surrogatepass")
    if not isinstance(value, bytes):
        raise ValueError("not text")
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError as e:
        raise ValueError(str(e)) from None


class _Db:
    """One database's chats: its rows read a composer at a time (memory: one composer's
    bubble keys and one bubble)."""

    def __init__(self, source: Source, ctx: ImportContext, con: sqlite3.Connection):
        self.source = source
        self.ctx = ctx
        self.con = con
        self.empty = 0
        self.missing = 0
        self.bad: set[str] = set()  # keys rejected (not JSON): not counted missing too

    def _where(self, key: str) -> str:
        return f"{self.source.name}:{key}"

    def _value(self, table: str, key: str) -> tuple[bool, Any]:
        """(found, value) of one key; a value that is not JSON is rejected (found False)."""
        row = self.con.execute(f"SELECT value FROM {table} WHERE key = ?", (key,)).fetchone()
        if row is None:
            return False, None
        try:
            return True, _json(row[0])
        except ValueError as e:
            self.ctx.reject(self._where(key), f"not JSON ({e})", row[0])
            self.bad.add(key)
            return False, None

    def rejected(self, key: str) -> bool:
        return key in self.bad

    def composers(self) -> Iterator[ConversationMessage]:
        rows = self.con.execute(
            "SELECT key, value FROM cursorDiskKV WHERE key >= 'composerData:' "
            "AND key < 'composerData;' ORDER BY key"
        )
        for key, raw in rows:
            if not isinstance(key, str) or not key.startswith("composerData:"):
                # only a damaged index gives a row its range does not hold
                self.ctx.reject(self._where(str(key)), "not a composerData key", raw)
                continue
            try:
                data = _json(raw)
            except ValueError as e:
                self.ctx.reject(self._where(key), f"not JSON ({e})", raw)
                continue
            if not isinstance(data, dict):
                self.ctx.reject(self._where(key), "not a Cursor composer (an object)", data)
                continue
            yield from _Chat(self, key.partition(":")[2], data).records()

    def bubble_keys(self, composer: str) -> list[str]:
        prefix = f"bubbleId:{composer}:"
        rows = self.con.execute(
            "SELECT key FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY key",
            (prefix, prefix[:-1] + ";"),
        )
        return [r[0] for r in rows]

    def panel(self) -> Iterator[ConversationMessage]:
        found, data = self._value("ItemTable", PANEL)
        if not found:
            return
        for tab in as_list(as_dict(data).get("tabs")):
            if not isinstance(tab, dict):
                self.ctx.reject(self._where(PANEL), "not a Cursor chat tab (an object)", tab)
                continue
            yield from _Chat(self, as_str(tab.get("tabId")), tab, panel=True).records()

    def finish(self) -> None:
        if self.empty:
            self.ctx.warn(self.source.name, f"{counted(self.empty, 'Cursor message')} stored empty (null): nothing to read")  # fmt: skip
        if self.missing:
            self.ctx.warn(self.source.name, f"{counted(self.missing, 'message')} a composer lists {plural(self.missing, 'is', 'are')} not in the database")  # fmt: skip


class _Chat:
    """One composer (or one tab of the old panel): its bubbles in order."""

    def __init__(self, db: _Db, chat_id: str, data: dict[str, Any], panel: bool = False):
        self.db = db
        self.id = chat_id
        self.data = data
        self.panel = panel
        self.thread = f"{NAME}:{chat_id}" if chat_id else db.ctx.thread_of(db.source.name)
        name_key, time_key = ("chatTitle", "lastSendTime") if panel else ("name", "createdAt")
        self.subject = as_str(data.get(name_key)) or None
        self.started = _time(data.get(time_key))
        self.model = as_str(as_dict(data.get("modelConfig")).get("modelName")) or None

    def records(self) -> Iterator[ConversationMessage]:
        for where, bubble, tags in self._bubbles():
            if bubble is None:
                self.db.empty += 1
                continue
            kind = bubble.get("type") if isinstance(bubble, dict) else None
            if not isinstance(kind, int | str) or isinstance(kind, bool) or kind not in SPEAKERS:
                self.db.ctx.reject(where, "not a Cursor message (type 1 or 2)", bubble)
                continue
            yield self._record(bubble, where, tags)

    def _bubbles(self) -> Iterator[tuple[str, Any, list[str]]]:
        data = self.data
        where = self.db._where(f"{'tab' if self.panel else 'composerData'}:{self.id}")
        if self.panel:
            for bubble in as_list(data.get("bubbles")):
                yield where, bubble, []
            return
        inline = data.get("conversation")
        if isinstance(inline, list) and inline:
            for bubble in inline:
                yield where, bubble, []
            return
        listed: set[str] = set()
        mapped = as_dict(data.get("conversationMap"))
        for header in as_list(data.get("fullConversationHeadersOnly")):
            bubble_id = as_str(as_dict(header).get("bubbleId"))
            key = f"bubbleId:{self.id}:{bubble_id}"
            listed.add(key)
            if bubble_id in mapped:
                yield where, mapped[bubble_id], []
                continue
            found, value = self.db._value("cursorDiskKV", key)
            if found:
                yield self.db._where(key), value, []
            elif not self.db.rejected(key):
                self.db.missing += 1
        for key in self.db.bubble_keys(self.id):
            if key not in listed:
                found, value = self.db._value("cursorDiskKV", key)
                if found:
                    yield self.db._where(key), value, ["unlisted"]

    def _record(self, bubble: dict[str, Any], where: str, tags: list[str]) -> ConversationMessage:
        speaker = SPEAKERS[bubble["type"]]
        include = self.db.ctx.options.include_thinking
        thinking = _thinking(bubble)
        chunks = [f"[thinking] {t}" for t in thinking] if include else []
        chunks += _chunks(bubble)
        when = _time(bubble.get("createdAt")) or _time(
            as_dict(bubble.get("timingInfo")).get("clientRpcSendTime")
        )
        bubble_id = as_str(bubble.get("bubbleId")) or as_str(bubble.get("id"))
        own = f"{NAME}:{self.id}:{bubble_id}" if self.id and bubble_id else None
        subject, self.subject = self.subject, None
        return message(
            chunks or [""],
            speaker=speaker,
            listeners=OTHER[speaker],
            timestamp=when or self.started,
            id=own,
            source_id=where,
            format=NAME,
            thread=self.thread,
            subject=subject,
            role=speaker,
            tags=tags,
            extra={
                **_extra(bubble, bubble_id, self.model),
                "time_from": "conversation" if not when and self.started else None,
                "thinking": None if include else thinking or None,
            },
        )


def _extra(bubble: dict[str, Any], bubble_id: str, model: str | None) -> dict[str, Any]:
    """A bubble's ids, model (its own, else the composer's), attached files and tokens."""
    return {
        "bubble_id": bubble_id or None,
        "request_id": bubble.get("requestId"),
        "model": as_str(as_dict(bubble.get("modelInfo")).get("modelName"))
        or as_str(bubble.get("modelType"))
        or model,
        "files": _files(bubble) or None,
        "tokens": bubble.get("tokenCount") or None,
    }


def _thinking(bubble: dict[str, Any]) -> list[str]:
    said = [as_str(as_dict(bubble.get("thinking")).get("text"))]
    said += [as_str(as_dict(b).get("thinking") or as_dict(b).get("text")) for b in as_list(bubble.get("allThinkingBlocks"))]  # fmt: skip
    out: list[str] = []
    for text in said:
        if text and text not in out:
            out.append(text)
    return out


def _chunks(bubble: dict[str, Any]) -> list[str]:
    text = as_str(bubble.get("text")) or as_str(bubble.get("rawText"))
    chunks = [text] if text else []
    if not text:
        for block in as_list(bubble.get("codeBlocks")):
            block = as_dict(block)
            code = as_str(block.get("content"))
            if code:
                chunks.append(f"```{as_str(block.get('languageId'))}\n{code}\n```")
    tool = as_dict(bubble.get("toolFormerData"))
    if tool:
        chunks += _tool(tool)
    for image in as_list(bubble.get("images")):
        image = as_dict(image)
        label = as_str(image.get("path")) or as_str(image.get("uri")) or as_str(image.get("name"))
        chunks.append(f"[image] {label}".rstrip())
    return chunks


def _tool(tool: dict[str, Any]) -> list[str]:
    name = as_str(tool.get("name")) or as_str(tool.get("tool")) or "?"
    raw = tool.get("rawArgs", tool.get("params"))
    args: Any = raw
    if isinstance(raw, str):
        try:
            args = orjson.loads(raw)
        except orjson.JSONDecodeError:
            args = raw
    call = whole_chunk(
        {"type": "tool_use", "name": name, "input": args if args is not None else {}}
    )
    result = tool.get("result")
    status = as_str(tool.get("status")) or as_str(as_dict(tool.get("additionalData")).get("status"))
    failed = status == "error"
    if result is None and not failed:
        return [call]
    text = result if isinstance(result, str) else "" if result is None else dumps(result)
    return [call, whole_chunk({"type": "tool_result", "name": name, "content": text, "is_error": failed})]  # fmt: skip


def _files(bubble: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for chunk in as_list(bubble.get("attachedCodeChunks")) + as_list(
        bubble.get("attachedFileCodeChunksMetadataOnly")
    ):
        chunk = as_dict(chunk)
        path = as_str(chunk.get("relativeWorkspacePath")) or as_str(chunk.get("uri"))
        if path and path not in out:
            out.append(path)
    return out


def _time(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return parse_any(value)
    except ValueError:
        return None


DESCRIPTION = "Cursor chats (its SQLite state.vscdb: composers and the old chat panel)"
EXAMPLE = (
    "state.vscdb (SQLite): cursorDiskKV 'composerData:<id>' = "
    '{"composerId": "…", "name": "Fix the tests", "fullConversationHeadersOnly": '
    '[{"bubbleId": "…", "type": 1}]}, \'bubbleId:<id>:<bubble>\' = {"type": 1, "text": "hi"}'
)
FIELDS = Fields(
    speaker="`user` (bubble type 1, the panel's `user`), `assistant` (type 2, `ai`)",
    listeners="the other party",
    time="the bubble's `createdAt` or `timingInfo.clientRpcSendTime`, else the "
    "composer's `createdAt` (the panel: the tab's `lastSendTime`)",
    zone="ISO times with their offset; epoch milliseconds: UTC",
    thread="`cursor:<composerId>` (the panel: `cursor:<tabId>`)",
    id="`cursor:<composer>:<bubble>`; without a bubble id, " + CONTENT_HASH,
    scope="the composer (or tab)",
    subject="the composer's `name` (the tab's `chatTitle`), on its first record",
    tags="`unlisted` (a bubble the composer's headers do not list)",
    extra="`bubble_id`, `request_id`, `model`, `files` (attached), `tokens`, `time_from`; "
    "thinking in `thinking` unless `--include-thinking`",
)

FORMATS = (
    Format(
        NAME, "chat", DESCRIPTION, ("state.vscdb", "*.vscdb"), sniff, read, EXAMPLE, fields=FIELDS
    ),
)
