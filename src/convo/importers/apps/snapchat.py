"""Snapchat's "My Data" download: ``chat_history.json`` and ``snap_history.json``
(``snapchat``).

Two layouts (users' parsers and a public schema write-up of 2018-2025 exports, found
with the code search; raleighlittles/Snapchat-Chats-And-Location-Analyzer
``snapchat_chat_parser.py`` for the older one):

- newer (``messages/json/chat_history.json``): ``{"<conversation id>": [{"From",
  "Media Type", "Created": "2024-04-20 01:29:22 UTC", "Content", "Conversation Title",
  "IsSender", "Created(microseconds)", "IsSaved", "Media IDs": "b~... | b~..."}]}``; the
  key is the friend's username for a chat of two, an id for a group (whose ``Conversation
  Title`` names it). ``Media Type``: ``TEXT``, ``MEDIA``, ``STICKER``, ``SHARE``,
  ``NOTE``, ``LOCATION`` and status notices (``STATUSERASEDMESSAGE``...);
  ``snap_history.json`` has the same shape without ``Content`` (``IMAGE``, ``VIDEO``).
- older (``json/chat_history.json``): ``{"Received Saved Chat History": [{"From",
  "Media Type", "Created", "Text"}], "Sent Saved Chat History": [{"To", ...}]}`` (and
  the unsaved and snap lists alike), ``Text`` with HTML entities (``&#39;``).

Decisions:
- speaker = ``From``; a sent item of the older layout names no sender (the account is
  not in the file): no speaker. Newer layout: the account is the ``From`` of the rows
  ``IsSender`` marks; listeners = the other of a chat of two (the account or the friend
  the key names), a group's other members seen writing; older: ``To``.
- thread = ``Conversation Title``, else the conversation's key (the friend), else
  (older) the friend of the row.
- text = ``Content`` (older ``Text``, its entities unescaped); a snap or a media item
  without text reads ``[media]``, ``[sticker]``, ``[image]``..., its ``Media IDs`` in
  ``extra.media_ids``; status notices are messages tagged ``system`` (``[a message was
  erased]``). ``extra``: ``media_type``, ``saved``, ``media_ids``, ``conversation``.
- a row that is not an object, or whose ``Created`` does not read, is rejected.
- the file is read whole (its members are conversations named by the data, which the
  streaming reader cannot address): at most ``core.io``'s document cap.

Ids and their scope (docs/ids.md): no message ids: the content hash, scoped by the
thread.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter, other_party, utc_named
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, has_key, json_head_with
from convo.importers.registry import Format

NAME = "snapchat"
_OLD_KEY = re.compile(r"^(Received|Sent) .*History$")
_NOTICES = {
    "STATUSERASEDMESSAGE": "[a message was erased]",
    "STATUSPARTICIPANTREMOVED": "[a participant was removed]",
    "STATUSSAVETOCAMERAROLL": "[saved to the camera roll]",
}


def sniff(source: Source) -> int:
    text = json_head_with(source, key="Media Type", opens="{")
    if not text or not has_key(text, "Created"):
        return 0
    if has_key(text, "IsSender") or re.search(r'"(?:Received|Sent) [^"]*History"\s*:', text):
        return 90
    return 0


class _Chat:
    """One conversation's names: its key, title, the people seen writing, the account."""

    def __init__(self, key: str, rows: list[Any], owner: str, old: bool) -> None:
        self.key = "" if old else key
        self.sent = old and key.startswith("Sent")
        titles = [as_str(as_dict(r).get("Conversation Title")) for r in rows]
        self.title = next((t for t in titles if t), "")
        people = {as_str(as_dict(r).get("From")): None for r in rows} | {owner: None}
        if self.key and not self.title:
            people[self.key] = None
        self.people = [p for p in people if p]

    def listeners(self, speaker: str, friend: str, old: bool) -> list[str]:
        """A group's other members seen writing, the other of two; older: the friend sent to."""
        if old:
            return [friend] if self.sent and friend else []
        if self.title:
            return [p for p in self.people if p != speaker]
        return other_party(self.people, speaker)


def _owner(doc: dict[str, Any]) -> str:
    """The account's username: the ``From`` of a row ``IsSender`` marks (newer layout)."""
    for rows in doc.values():
        for row in map(as_dict, as_list(rows)):
            if row.get("IsSender") is True and as_str(row.get("From")):
                return as_str(row.get("From"))
    return ""


def _chunks(row: dict[str, Any], old: bool) -> tuple[list[str], list[str], bool]:
    """(chunks, media ids, whether it is a status notice)."""
    kind = as_str(row.get("Media Type")).upper()
    text = as_str(row.get("Text")) if old else as_str(row.get("Content"))
    text = html.unescape(text) if old and "&" in text else text
    ids = [m.strip() for m in as_str(row.get("Media IDs")).split("|") if m.strip()]
    if text.strip():
        return [text], ids, False
    if kind.startswith("STATUS"):
        return [_NOTICES.get(kind, f"[{kind[6:].lower() or 'status'}]")], ids, True
    if kind and kind != "TEXT":
        return [f"[{kind.lower()}]"], ids, False
    return [], ids, False


def _message(row: Any, where: str, chat: _Chat, old: bool) -> ConversationMessage | str | None:
    if not isinstance(row, dict):
        return "not a Snapchat chat item (not an object)"
    stamp = iso_ts(utc_named(as_str(row.get("Created"))))
    if stamp is None:
        return f"Created {as_str(row.get('Created'))[:40]!r} is not a time"
    chunks, ids, notice = _chunks(row, old)
    if not chunks:
        return None
    speaker = "" if chat.sent else as_str(row.get("From"))
    friend = as_str(row.get("To")) if chat.sent else speaker if old else ""
    return message(
        chunks,
        speaker=speaker or None,
        listeners=chat.listeners(speaker, friend, old),
        timestamp=stamp,
        source_id=where,
        format=NAME,
        thread=chat.title or chat.key or friend,
        tags=[SYSTEM_TAG] if notice else [],
        extra={
            "media_type": as_str(row.get("Media Type")),
            "saved": row.get("IsSaved") if isinstance(row.get("IsSaved"), bool) else None,
            "media_ids": ids,
            "conversation": chat.key,
        },
    )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if not sniff(source):
        raise InputError(
            "not a Snapchat chat_history.json",
            where=source.name,
            hint='My Data\'s chat_history.json: {"<friend>": [{"From", "Media Type", '
            '"Created", "Content"...}]}, or the older {"Received Saved Chat History": [...]}',
        )
    doc = load_json(source)
    if not isinstance(doc, dict):
        raise InputError("not a Snapchat chat_history.json (not an object)", where=source.name)
    old = any(_OLD_KEY.match(k) for k in doc)
    owner = "" if old else _owner(doc)
    empty = EmptyCounter()
    for key, rows in doc.items():
        where = ctx.loc(key)
        if not isinstance(rows, list):
            ctx.reject(where, "not a Snapchat conversation (not a list)", rows)
            continue
        chat = _Chat(key, rows, owner, old)
        for k, row in enumerate(rows):
            got = _message(row, f"{where}[{k}]", chat, old)
            if isinstance(got, str):
                ctx.reject(f"{where}[{k}]", got, row)
            elif got is None:
                empty.skip(f"{where}[{k}]")
            else:
                yield got
    empty.report(ctx)


DESCRIPTION = (
    "Snapchat My Data chat_history.json and snap_history.json (the conversation-keyed "
    "layout and the older Received/Sent Saved Chat History lists)"
)
EXAMPLE = (
    '{"ann.lee": [{"From": "ann.lee", "Media Type": "TEXT", "Created": "2024-04-20 01:29:22 UTC", '
    '"Content": "hi", "Conversation Title": null, "IsSender": false, "IsSaved": true, '
    '"Media IDs": ""}]}'
)
FIELDS = Fields(
    speaker="`From` (the older layout's sent items: none, the account is not named)",
    listeners="the other of a chat of two, a group's other members seen writing; older: `To`",
    time="`Created` (`2024-04-20 01:29:22 UTC`)",
    zone="UTC (the export writes it)",
    thread="`Conversation Title`, else the conversation's key (the friend), else the row's friend",
    id="no message ids: " + CONTENT_HASH,
    scope="the thread",
    tags="`system` on status notices (`STATUSERASEDMESSAGE`...)",
    extra="`media_type`, `saved`, `media_ids`, `conversation`",
)

FORMATS = (
    Format(
        NAME,
        "chat",
        DESCRIPTION,
        ("chat_history.json", "snap_history.json", "*.json"),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
