"""Rocket.Chat messages (``rocketchat``): the REST API's room history, a ``mongoexport``
of the ``rocketchat_message`` collection, and the "Download my data" JSON files.

Shapes (Rocket.Chat's ``IMessage``, ``packages/core-typings``):
- REST (``channels.history``, ``groups.history``, ``im.history``, ``chat.getThreadMessages``
  ...): ``{"messages": [{"_id", "rid", "msg", "ts" (ISO), "u": {"_id", "username",
  "name"}, "mentions": [{"_id", "username", "name"}], "t"? (a system message's type:
  ``uj``, ``ul``, ``au``, ``ru``, ``r``, ``rm``...), "tmid"? (its thread's first message),
  "attachments"? [{"title", "title_link", "text", "author_name", "message_link",
  "image_url"...}], "file"? {"_id", "name", "type"}, "reactions"? {":+1:": {"usernames":
  [...]}}, "editedAt"?, "editedBy"?, "tcount"?, "drid"?}], "count", "offset", "total",
  "success": true}``; a bare array of them too.
- ``mongoexport --collection=rocketchat_message``: the same documents one a line, dates
  in MongoDB extended JSON (``{"$date": "2024-03-06T10:00:00.000Z"}`` or ``{"$date":
  {"$numberLong": "1709719200000"}}``); an edit's older copies kept by
  ``Message_KeepHistory`` are ``"_hidden": true``. Room names come from a
  ``rocketchat_room.json`` / ``rocketchat_rooms.json`` export beside the file (the
  ``rocketchat_room`` collection: ``{"_id", "name", "fname", "t"}``), when there is one.
- "Download my data" (``server/lib/dataExport/exportRoomMessagesToFile.ts``): one file
  per room, one ``{"msg", "username", "ts", "attachments"?, "type"?}`` a line, the
  system messages' text already written out by the server.

Decisions:
- speaker = ``u.name`` (else ``u.username``; the username in ``extra.username``), the
  download's ``username``; listeners = the ``mentions`` (``all``/``here`` left out),
  by name.
- text = ``msg``, then each attachment as a line: a quoted message ``> author: text``
  (``replyTo`` the message its ``message_link`` names, when not a thread's reply), a
  file ``[file] title`` and its ``description`` (its link in ``extra.attachments``), an
  integration's card its title, text and fields; a system message (``t``)
  as ``[joined]``, ``[added NAME]``, ``[renamed the room to NAME]``... tagged ``system``.
- Messages of one JSON document in time order (the REST history answers newest
  first); a mongoexport's lines as they come.
- thread = the room's name (the room file beside; a direct room's usernames), else its
  ``rid``; the download's
  file name without extension; replyTo = ``rocketchat:<tmid>`` for a thread reply.
- A removed message (``t: rm``) and an edit's hidden older copy are skipped and counted
  in one warning; an item without ``msg`` and ``u``/``username`` is rejected with its
  location; one whose ``ts`` is missing or does not read is kept without a time,
  warned about at its place.

Ids and their scope (docs/ids.md): message ``_id``s are Meteor random ids (17
characters of 55 symbols, about 99 bits), unique across servers in practice:
``rocketchat:<_id>``, no scope. The download has no ids (the content hash).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

import orjson

from convo.core.io import Source
from convo.core.jsonl import iter_lines
from convo.core.record import ConversationMessage
from convo.core.timestamps import from_epoch_ms, iso_ts
from convo.importers.agents.samples import iter_samples, messages_of, sample_values, sub
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head_with
from convo.importers.registry import Format

NAME = "rocketchat"


def _is_message(obj: Any) -> bool:
    """A Rocket.Chat message: ``msg`` with ``rid`` and ``u`` (the API, mongo), or the
    download's ``msg``, ``username`` and ``ts``."""
    if not isinstance(obj, dict) or "msg" not in obj:
        return False
    if isinstance(obj.get("u"), dict):
        return "rid" in obj or "ts" in obj
    return "username" in obj and "ts" in obj and len(obj) <= 5


def sniff(source: Source) -> int:
    text = json_head_with(source, '"msg"')
    if not text:
        return 0
    items = [x for v in sample_values(text) for x in messages_of(v)][:40]
    if items:
        return 90 if sum(map(_is_message, items)) * 2 >= len(items) else 0
    # a head too long to parse whole: the API's keys in the first message
    return 80 if re.search(r'"rid"\s*:', text) and re.search(r'"u"\s*:\s*\{', text) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    rooms = _rooms(source)
    stem = PurePath(source.match_name).stem or source.name
    skipped = EmptyCounter()
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        nested = isinstance(sample, list) or (isinstance(sample, dict) and "messages" in sample)
        for k, item in _oldest_first(messages_of(sample), loc):
            here = sub(ctx, where, f"msg-{k}") if nested else where
            if not _is_message(item):
                ctx.reject(here, "not a Rocket.Chat message (no msg and sender)", item)
                continue
            if item.get("t") == "rm" or item.get("_hidden"):
                skipped.skip(here)
                continue
            if _time(item.get("ts")) is None:
                ctx.warn(here, "no readable ts; time left unknown")
            yield _message(item, here, rooms, stem)
    skipped.report(ctx, "removed messages and older copies of edited ones")


def _oldest_first(items: list[Any], loc: str) -> list[tuple[int, Any]]:
    """A whole document's messages numbered, in time order (the REST history answers
    newest first); a streamed array or a line as it comes."""
    numbered = list(enumerate(items, 1))
    if loc != "doc" or len(numbered) < 2:
        return numbered
    return sorted(numbered, key=lambda km: _time(as_dict(km[1]).get("ts")) or "")


def _rooms(source: Source) -> dict[str, str]:
    """Room id -> name, from a ``rocketchat_room(s).json`` mongoexport beside the file."""
    if source.path is None or source.is_stdin:
        return {}
    names: dict[str, str] = {}
    for candidate in ("rocketchat_room.json", "rocketchat_rooms.json"):
        path = source.path.with_name(candidate)
        if path == source.path or not path.is_file():
            continue
        with open(path, "rb") as stream:
            for line in iter_lines(stream):
                try:
                    room = as_dict(orjson.loads(line.raw))
                except ValueError:
                    continue
                rid = as_str(room.get("_id"))
                if rid:
                    people = ", ".join(as_str(u) for u in as_list(room.get("usernames")))
                    names[rid] = as_str(room.get("fname")) or as_str(room.get("name")) or people
    return {rid: name for rid, name in names.items() if name}


def _time(value: Any) -> str | None:
    """An ISO string, or mongo's ``{"$date": ISO | {"$numberLong": ms}}``."""
    if isinstance(value, dict):
        value = value.get("$date")
        if isinstance(value, dict):
            value = value.get("$numberLong")
        if isinstance(value, (int, str)) and str(value).isdigit():
            try:
                return from_epoch_ms(int(value))
            except (ValueError, OverflowError, OSError):
                return None
    return iso_ts(value)


_SYSTEM = {
    "uj": "[joined]", "ul": "[left]", "ult": "[left the team]", "ujt": "[joined the team]",
    "au": "[added {}]", "ru": "[removed {}]", "r": "[renamed the room to {}]",
    "wm": "[welcome]", "room_changed_topic": "[changed the topic to {}]",
    "room_changed_description": "[changed the description to {}]",
    "room_changed_announcement": "[changed the announcement to {}]",
    "discussion-created": "[started a discussion: {}]",
    "message_pinned": "[pinned a message]", "livechat-close": "[conversation finished]",
    "livechat-started": "[chat started]", "added-user-to-team": "[added {} to the team]",
    "removed-user-from-team": "[removed {} from the team]",
}  # fmt: skip


def _attachment_lines(attachments: list[Any]) -> list[str]:
    """Each attachment as a line: a quoted message ``> author: text``; a file ``[file]
    title`` (``[image]``, ...) and the description its sender wrote; an integration's card
    (a bot's, a webhook's: no file) its title, text and fields."""
    lines = []
    for a in map(as_dict, attachments):
        text, title = as_str(a.get("text")), as_str(a.get("title"))
        if a.get("message_link") and text:  # a quoted message
            author = as_str(a.get("author_name"))
            quoted = "\n".join(f"> {x}" for x in text.split("\n"))
            lines.append(f"> {author}:\n{quoted}" if author else quoted)
        elif a.get("title_link") or a.get("image_url") or a.get("type") == "file":
            kind = "image" if a.get("image_url") or a.get("image_type") else "file"
            lines.append(f"[{kind}] {title or as_str(a.get('fileName'))}".rstrip())
            lines += [x for x in (as_str(a.get("description")), text) if x.strip()]
        else:
            lines += _card(a)
    return lines


def _card(a: dict[str, Any]) -> list[str]:
    """An integration's card (a bot's, a webhook's: no file): its words."""
    fields = [
        f"{as_str(f.get('title'))}: {as_str(f.get('value'))}"
        for f in map(as_dict, as_list(a.get("fields")))
    ]
    shown = (as_str(a.get("pretext")), as_str(a.get("title")), as_str(a.get("text")), *fields)
    return [x for x in shown if x.strip()]


def _quoted(attachments: list[Any]) -> str:
    """The id of the message a quote links to (``message_link``'s ``?msg=ID``), or ''."""
    for a in map(as_dict, attachments):
        got = _MSG_LINK.search(as_str(a.get("message_link")))
        if got:
            return got[1]
    return ""


_MSG_LINK = re.compile(r"[?&]msg=([^&#\s]+)")


def _reactions(value: Any) -> list[dict[str, Any]]:
    return [
        {"emoji": emoji, "by": [as_str(u) for u in as_list(as_dict(r).get("usernames"))]}
        for emoji, r in as_dict(value).items()
    ]


def _text(m: dict[str, Any], kind: str) -> str:
    """``msg``; a system message's as one line (the download writes its own text)."""
    text = as_str(m.get("msg"))
    if kind and "u" in m:
        return _SYSTEM.get(kind, f"[{kind}]{' {}' if text else ''}").format(text).strip()
    return text


def _heard(m: dict[str, Any]) -> list[str]:
    """The mentioned users by name (``all`` and ``here`` are not people)."""
    return [
        as_str(x.get("name")) or as_str(x.get("username"))
        for x in map(as_dict, as_list(m.get("mentions")))
        if as_str(x.get("username")) not in ("all", "here")
    ]


def _message(
    m: dict[str, Any], where: str, rooms: dict[str, str], stem: str
) -> ConversationMessage:
    user = as_dict(m.get("u"))
    username = as_str(user.get("username")) or as_str(m.get("username"))
    speaker = as_str(user.get("name")) or username
    kind = as_str(m.get("t")) or as_str(m.get("type"))
    rid, mid, parent = as_str(m.get("rid")), as_str(m.get("_id")), as_str(m.get("tmid"))
    parent = parent or (_quoted(as_list(m.get("attachments"))) if mid else "")
    return message(
        [_text(m, kind), *_attachment_lines(as_list(m.get("attachments")))],
        speaker=speaker or None,
        listeners=_heard(m),
        timestamp=_time(m.get("ts")),
        id=f"{NAME}:{mid}" if mid else None,
        source_id=where,
        format=NAME,
        thread=(rooms.get(rid) or rid) if rid else stem,
        reply_to=f"{NAME}:{parent}" if parent else None,
        tags=[SYSTEM_TAG] if kind else [],
        extra={
            "username": username if username != speaker else None,
            "type": kind,
            "edited_at": _time(m.get("editedAt")),
            "edited_by": as_str(as_dict(m.get("editedBy")).get("username")),
            "attachments": as_list(m.get("attachments")),
            "file": as_dict(m.get("file")),
            "reactions": _reactions(m.get("reactions")),
            "thread_replies": m.get("tcount") or None,
            "discussion": as_str(m.get("drid")),
        },
    )


DESCRIPTION = "Rocket.Chat messages: REST room history, mongoexport of rocketchat_message, Download my data JSON"
EXAMPLE = (
    '{"messages": [{"_id": "Xk3nB2vQp9RtY7aLm", "rid": "GENERAL", "msg": "hi @bob", '
    '"ts": "2024-03-06T10:00:00.000Z", "u": {"_id": "u1", "username": "ann", "name": "Ann Lee"}, '
    '"mentions": [{"_id": "u2", "username": "bob", "name": "Bob"}]}], "success": true}'
)
FIELDS = Fields(
    speaker="`u.name` (else `u.username`); the download's `username`",
    listeners="the `mentions` (not `all`/`here`), by name",
    time="`ts` (ISO, or mongo's `$date`)",
    zone="the offset the source writes (UTC `Z`); a naive time is read as UTC, not in `--tz`",
    thread="the room's name (from a `rocketchat_room.json` beside the file), else its `rid`; "
    "the download: the file's name",
    id="`rocketchat:<_id>`; the download: the content hash",
    scope="none: message ids are Meteor random ids (about 99 bits)",
    reply_to="`rocketchat:<tmid>` for a thread reply",
    tags="`system` for system messages (`t`)",
    extra="`username`, `type`, `edited_at`, `edited_by`, `attachments`, `file`, "
    "`reactions`, `thread_replies`, `discussion`",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
