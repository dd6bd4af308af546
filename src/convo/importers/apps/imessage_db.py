"""Messages' own database: macOS's ``~/Library/Messages/chat.db``, and an iPhone backup's
``sms.db`` (the same schema), format ``imessage-db``, records ``imessage``. Opened
read-only and immutable (``convo.importers.sqlitedb``); copy it out of
``~/Library/Messages`` first if macOS refuses to let a terminal read it.

Schema (as ReagentX/imessage-exporter's ``imessage-database/src/tables`` reads it):
``message`` (``ROWID``, ``guid``, ``text``, ``attributedBody``, ``handle_id``,
``service``, ``subject``, ``date``, ``is_from_me``, ``item_type``, ``group_title``,
``group_action_type``, ``other_handle``, ``associated_message_guid``,
``associated_message_type``, ``expressive_send_style_id``, ``thread_originator_guid``,
``date_edited``, ``date_retracted``; older databases lack the later columns),
``handle`` (``ROWID``, ``id``: a number or an address), ``chat`` (``ROWID``,
``chat_identifier``, ``display_name``), ``chat_message_join``, ``chat_handle_join``,
``attachment`` (``filename``, ``transfer_name``, ``mime_type``) with
``message_attachment_join``.

Decisions:
- speaker = ``Me`` for the owner's messages (as imessage-exporter writes them), else the
  sender's handle (``+15558675309``, ``ann@icloud.com``: the database holds no contact
  names); listeners = the other party of a chat of two (the chat's handles and ``Me``).
- thread = the chat's ``display_name``, else its ``chat_identifier``; a message in no
  chat: ``orphaned``. Messages are read a chat at a time, in time order.
- time = ``date``: nanoseconds since 2001-01-01 UTC (seconds in databases before macOS
  10.13, told by their size); zero: unknown, warned.
- text = ``text``, else the string in ``attributedBody`` (recent macOS keeps it only
  there: an ``NSAttributedString`` typedstream, its ``NSString`` after ``\\x01+`` and a
  length); each attachment an ``[attachment] NAME`` chunk (``transfer_name``, else the
  file's name), the ``\\ufffc`` placeholders it leaves in the text dropped; the file's
  path, type and name in ``extra.attachments``.
- A tapback (``associated_message_type`` 2000-2007; 3000-3007 one taken back) is a record
  of its own, ``[tapback] Loved`` (``[tapback removed] ...``), tagged ``reaction``,
  replying to the message it is on; a threaded reply's ``replyTo`` is the message its
  thread starts from (``thread_originator_guid``).
- Group events (``item_type`` 1-3, ``group_title``) are ``[named] Garden``, ``[added]
  +1555...``, ``[removed] ...``, ``[left]``, ``[group photo changed]``, tagged ``system``;
  a message unsent (``date_retracted``) is ``[unsent]``, tagged ``deleted``; an edit's
  time goes to ``extra.edited``, an effect's id to ``extra.effect``, the service
  (``iMessage``, ``SMS``) to ``extra.service``. A row with nothing to read is counted in
  one warning.

Ids and their scope (docs/ids.md): ``imessage:<guid>`` (each message's own UUID, the same
in every copy of the database).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts
from convo.importers import sqlitedb
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter, other_party
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.registry import Format

NAME = "imessage-db"
_TABLES = {"message", "handle", "chat", "chat_message_join"}
_APPLE_EPOCH = 978307200  # 2001-01-01T00:00:00Z in Unix seconds
_TAPBACKS = (
    "Loved",
    "Liked",
    "Disliked",
    "Laughed",
    "Emphasized",
    "Questioned",
    "Emoji",
    "Sticker",
)
# the columns read when the database has them (older ones lack the later)
_OPTIONAL = (
    "attributedBody", "subject", "service", "item_type", "group_title", "group_action_type",
    "other_handle", "associated_message_guid", "associated_message_type",
    "expressive_send_style_id", "thread_originator_guid", "date_edited", "date_retracted",
)  # fmt: skip


def sniff(source: Source) -> int:
    return 90 if sqlitedb.holds(source, lambda con: sqlitedb.tables(con) >= _TABLES) else 0


def body_text(blob: Any) -> str:
    """The string of an ``attributedBody`` typedstream: after ``\\x01+``, a length (one
    byte; ``0x81`` and two bytes, ``0x82`` and four, little-endian), then UTF-8."""
    if not isinstance(blob, bytes):
        return ""
    at = blob.find(b"\x01+")
    if at < 0 or at + 3 > len(blob):
        return ""
    n, start = blob[at + 2], at + 3
    if n in (0x81, 0x82):
        width = 2 if n == 0x81 else 4
        n, start = int.from_bytes(blob[start : start + width], "little"), start + width
    return blob[start : start + n].decode("utf-8", "replace")


def _time(value: Any) -> str | None:
    """``date``: nanoseconds (seconds before macOS 10.13) since 2001-01-01 UTC."""
    if not isinstance(value, int) or value == 0:
        return None
    seconds = value / 1e9 if abs(value) > 1e11 else value
    return epoch_ts(seconds + _APPLE_EPOCH)


def _query(con: Any) -> str:
    have = sqlitedb.columns(con, "message")
    extra = ", ".join(f"m.{c}" if c in have else f"NULL AS {c}" for c in _OPTIONAL)
    other = "o.id" if "other_handle" in have else "NULL"
    join = "LEFT JOIN handle o ON o.ROWID = m.other_handle " if "other_handle" in have else ""
    return (
        f"SELECT m.ROWID AS rowid, m.guid, m.text, m.date, m.is_from_me, {extra}, "
        f"j.chat_id, h.id AS handle, {other} AS other FROM message m "
        "LEFT JOIN chat_message_join j ON j.message_id = m.ROWID "
        f"LEFT JOIN handle h ON h.ROWID = m.handle_id {join}"
        "ORDER BY j.chat_id IS NULL, j.chat_id, m.date, m.ROWID"
    )


def _chats(con: Any) -> dict[int, tuple[str, list[str]]]:
    """Each chat's name and its handles (``Me`` and the others)."""
    cols = sqlitedb.columns(con, "chat")
    name = "c.display_name" if "display_name" in cols else "NULL"
    chats = {
        r[0]: ((r[1] or r[2] or f"chat {r[0]}"), ["Me"])
        for r in con.execute(f"SELECT c.ROWID, {name}, c.chat_identifier FROM chat c")
    }
    if "chat_handle_join" in sqlitedb.tables(con):
        rows = con.execute(
            "SELECT j.chat_id, h.id FROM chat_handle_join j JOIN handle h ON h.ROWID = j.handle_id"
        )
        for chat_id, handle in rows:
            if chat_id in chats and handle:
                chats[chat_id][1].append(handle)
    return chats


def _attachments(con: Any, rowid: int) -> list[dict[str, Any]]:
    rows = con.execute(
        "SELECT a.filename, a.transfer_name, a.mime_type FROM message_attachment_join j "
        "JOIN attachment a ON a.ROWID = j.attachment_id WHERE j.message_id = ?",
        (rowid,),
    )
    return [{"path": r[0], "name": r[1], "type": r[2]} for r in rows]


def _int(value: Any) -> int:
    """A column that should hold a number (a damaged row's may not): else 0."""
    return value if isinstance(value, int) else 0


def _target(guid: Any) -> str | None:
    """The message a tapback is on: ``p:0/GUID`` or ``bp:GUID``."""
    if not isinstance(guid, str) or not guid:
        return None
    return guid.rpartition("/")[2].rpartition(":")[2] if ":" in guid else guid


def _event(r: dict[str, Any]) -> str | None:
    """A group event's words (``item_type`` 1-3), else None."""
    kind, action = _int(r["item_type"]), _int(r["group_action_type"])
    if r["group_title"] is not None and kind in (0, 2):
        return f"[named] {r['group_title']}"
    if kind == 1:
        return f"[{'removed' if action == 1 else 'added'}] {r['other'] or ''}".rstrip()
    if kind == 3:
        return "[group photo changed]" if action == 1 else "[left]" if action == 0 else (
            f"[group event {action}]"
        )  # fmt: skip
    return f"[event {kind}]" if kind not in (0, 4, 5) else None


def _content(r: dict[str, Any], files: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """The chunks and tags of an ordinary message, a tapback or an event."""
    kind = _int(r["associated_message_type"])
    if 2000 <= kind <= 2007 or 3000 <= kind <= 3007:
        name = _TAPBACKS[kind % 1000]
        what = "[tapback removed]" if kind >= 3000 else "[tapback]"
        text = (r["text"] or "").strip() if kind % 1000 == 6 else ""
        return [f"{what} {name} {text}".rstrip()], ["reaction"]
    event = _event(r)
    if event is not None:
        return [event], [SYSTEM_TAG]
    if r["date_retracted"]:
        return ["[unsent]"], ["deleted"]
    text = r["text"] if r["text"] is not None else body_text(r["attributedBody"])
    text = text.replace("\ufffc", "").strip()
    chunks = [text] if text else []
    return chunks + [f"[attachment] {f['name'] or f['path']}" for f in files], []


def _record(
    r: dict[str, Any], chat: tuple[str, list[str]], files: list[dict[str, Any]], ctx: ImportContext
) -> ConversationMessage | None:
    chunks, tags = _content(r, files)
    if not chunks:
        return None
    speaker = "Me" if r["is_from_me"] else (r["handle"] or None)
    ts = _time(r["date"])
    loc = ctx.loc(f"message-{r['rowid']}")
    if ts is None:
        ctx.warn(loc, "no date; time left unknown")
    target = _target(r["associated_message_guid"]) if "reaction" in tags else None
    origin = r["thread_originator_guid"]
    reply = target or (origin if isinstance(origin, str) and origin else None)
    return message(
        chunks,
        speaker=speaker,
        listeners=[] if SYSTEM_TAG in tags else other_party(chat[1], speaker),
        timestamp=ts,
        id=f"imessage:{r['guid']}" if r["guid"] else None,
        source_id=loc,
        format="imessage",
        thread=chat[0],
        reply_to=f"imessage:{reply}" if reply else None,
        subject=r["subject"] or None,
        tags=tags,
        extra={
            "service": r["service"],
            "attachments": files or None,
            "effect": r["expressive_send_style_id"],
            "edited": _time(r["date_edited"]),
        },
    )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    def rows(con: Any) -> Iterator[ConversationMessage]:
        chats = _chats(con)
        joined = {"message_attachment_join", "attachment"} <= sqlitedb.tables(con)
        empty = EmptyCounter()
        cursor = con.execute(_query(con))
        names = [d[0] for d in cursor.description]
        for row in cursor:  # streamed: one row at a time
            r = dict(zip(names, row, strict=True))
            files = _attachments(con, r["rowid"]) if joined else []
            rec = _record(r, chats.get(r["chat_id"], ("orphaned", ["Me"])), files, ctx)
            if rec is None:
                empty.skip(ctx.loc(f"message-{r['rowid']}"))
            else:
                yield rec
        empty.report(ctx)

    yield from sqlitedb.read_whole(source, rows, "a Messages database (chat.db)")


DESCRIPTION = (
    "iMessage / SMS from Messages' own database (macOS chat.db, an iPhone backup's sms.db)"
)
EXAMPLE = "chat.db (SQLite: message, handle, chat, chat_message_join)"
FIELDS = Fields(
    speaker="`Me` for the owner's messages, else the sender's handle (a number or address)",
    listeners="the other party of a chat of two",
    time="`date` (nanoseconds since 2001-01-01; seconds in databases before macOS 10.13)",
    zone="UTC (an absolute time)",
    thread="the chat's `display_name`, else its `chat_identifier`",
    id="`imessage:<guid>`",
    scope="none needed: message guids are UUIDs",
    reply_to="a threaded reply's `thread_originator_guid`; a tapback's message",
    subject="`subject`",
    tags="`reaction` (tapbacks), `system` (group events), `deleted` (unsent)",
    extra="`service`, `attachments` (`path`, `name`, `type`), `effect`, `edited`",
)
FORMATS = (
    Format(
        NAME,
        "chat",
        DESCRIPTION,
        ("chat.db", "sms.db", "*.db"),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
