"""Gitter room exports: the chat messages of Gitter's REST API (``gitter``).

Shape (developer.gitter.im/docs/messages-resource, as dumped by room archivers such as
``GET /v1/rooms/:roomId/chatMessages`` pages): ``[{"id", "text" (markdown), "html",
"sent", "editedAt", "fromUser": {"id", "username", "displayName", "url", "avatarUrl"},
"unread", "readBy", "urls": [{"url"}], "mentions": [{"screenName", "userId"}], "issues",
"meta", "v", "parentId"?, "threadMessageCount"?}]``; a JSON array (streamed), JSONL (one
message or one page a line), or ``{"messages": [...]}``.

Decisions:
- speaker = ``fromUser.displayName`` (else ``username``; the username in
  ``extra.username``); listeners = the mentioned users, by the display name they wrote
  under when seen (else their screen name).
- text = ``text``; thread = the room: the file name without extension (Gitter's messages
  do not name their room), replyTo = ``gitter:<parentId>`` for thread replies;
  id = ``gitter:<id>``; timestamp = ``sent``; ``editedAt``, ``urls``, ``issues``,
  ``readBy`` and ``threadMessageCount`` in ``extra``.
- An item without ``fromUser`` is rejected with its location.

Ids and their scope (docs/ids.md): Gitter's message ids are MongoDB ObjectIds (time,
machine, counter), unique everywhere (``gitter:<id>``, no scope).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.samples import iter_samples, messages_of, sample_values, sub
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

NAME = "gitter"


def _is_message(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("fromUser"), dict) and "sent" in obj


def sniff(source: Source) -> int:
    text = json_head_with(source, '"fromUser"')
    if not text:
        return 0
    items = [x for v in sample_values(text) for x in messages_of(v)][:40]
    if items:
        return 90 if sum(map(_is_message, items)) * 2 >= len(items) else 0
    return 80 if '"sent"' in text and '"readBy"' in text else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    room = PurePath(source.match_name).stem or source.name
    names: dict[str, str] = {}
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        nested = isinstance(sample, list) or (isinstance(sample, dict) and "messages" in sample)
        for k, item in enumerate(messages_of(sample), 1):
            here = sub(ctx, where, f"msg-{k}") if nested else where
            if not _is_message(item):
                ctx.reject(here, "not a Gitter message (no fromUser)", item)
                continue
            yield _message(item, here, room, names)


def _message(
    msg: dict[str, Any], where: str, room: str, names: dict[str, str]
) -> ConversationMessage:
    user = msg["fromUser"]
    username = as_str(user.get("username"))
    speaker = as_str(user.get("displayName")) or username
    if as_str(user.get("id")):
        names[as_str(user["id"])] = speaker
    heard = []
    for m in map(as_dict, as_list(msg.get("mentions"))):
        heard.append(names.get(as_str(m.get("userId"))) or as_str(m.get("screenName")))
    mid, parent = as_str(msg.get("id")), as_str(msg.get("parentId"))
    return message(
        as_str(msg.get("text")),
        speaker=speaker or None,
        listeners=[h for h in heard if h],
        timestamp=iso_ts(msg.get("sent")),
        id=f"{NAME}:{mid}" if mid else None,
        source_id=where,
        format=NAME,
        thread=room,
        reply_to=f"{NAME}:{parent}" if parent else None,
        extra={
            "username": username if username != speaker else None,
            "edited_at": as_str(msg.get("editedAt")),
            "urls": as_list(msg.get("urls")),
            "issues": as_list(msg.get("issues")),
            "read_by": msg.get("readBy") or None,
            "thread_messages": msg.get("threadMessageCount") or None,
        },
    )


DESCRIPTION = "Gitter room messages (REST API chatMessages JSON)"
EXAMPLE = (
    '[{"id": "5a1", "text": "hi @bob", "sent": "2020-01-01T10:00:00.000Z", '
    '"fromUser": {"id": "u1", "username": "alice", "displayName": "Alice"}, '
    '"mentions": [{"screenName": "bob", "userId": "u2"}]}]'
)
FIELDS = Fields(
    speaker="`fromUser.displayName` (else `username`)",
    listeners="the mentioned users, by the display name they wrote under when seen",
    time="`sent`",
    zone="the offset the source writes (UTC `Z`); a naive time is read as UTC, not in `--tz`",
    thread="the room: the file's name without extension",
    id="`gitter:<id>`",
    scope="none: Gitter's ids are MongoDB ObjectIds, unique everywhere",
    reply_to="`gitter:<parentId>` for thread replies",
    extra="`username`, `edited_at`, `urls`, `issues`, `read_by`, `thread_messages`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
