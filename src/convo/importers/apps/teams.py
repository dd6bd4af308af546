"""Microsoft Teams export JSON: Graph ``chatMessage`` objects with HTML bodies.

Two spellings of one shape: PascalCase (Purview/eDiscovery-style exports, the Graph
PowerShell SDK's ``Get-MgChatMessage | ConvertTo-Json``: ``Id``, ``CreatedDateTime``,
``From.User.DisplayName``) and the Graph REST API's own camelCase (``GET
/chats/{id}/messages``, Graph Explorer, ``m365 teams chat message list``: ``id``,
``createdDateTime``, ``from.user.displayName``, pages as ``{"@odata.context", "value"}``).
Keys are read whatever the case of their first letter (``teams_attachments.pascal``).

A top-level array streams in two passes (who is in each chat, then messages); an object
wrapping the list (``value``/``messages``) is read whole (``convo.core.io.load_json``).

Decisions: HTML bodies through ``html_to_text``; attachments by
``convo.importers.apps.teams_attachments`` (a quoted message is the reply, heard by its
sender; a forwarded message and a card are their text; a file its name); ``From: null`` events become
``[system event] <kind>: <what>`` tagged ``system`` (Graph's ``eventDetail`` type in
words, the members it names, by the names their own messages give their ids when it
writes none, a new name, a call's duration); ``thread`` = ChatId (or channel id; a page
of Graph's answer whose messages name none: the chat its ``@odata.context`` names); in a
1:1 chat (``@unq.gbl.spaces``) the listener is the other person seen in that chat.
Messages are emitted in file order.

Ids and their scope (docs/ids.md): a message's ``Id`` is its creation time in
milliseconds, unique only within its chat or channel, so the id names the chat:
``teams:<ChatId or ChannelId>:<Id>`` (chat and channel ids are unique across tenants:
``19:...@thread.v2``, ``19:..._...@unq.gbl.spaces``); ``replyTo`` =
``teams:<same chat>:<ReplyToId>``. A message that names neither has no scope
(``teams:<Id>``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import tzinfo
from typing import Any
from urllib.parse import unquote

from convo.core.errors import InputError
from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.text.html import html_to_text
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter
from convo.importers.apps.teams_attachments import chunks as attachment_chunks
from convo.importers.apps.teams_attachments import pascal, quote
from convo.importers.build import message, scoped_id
from convo.importers.context import ImportContext
from convo.importers.fields import NAIVE_IN_TZ, Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head_with
from convo.importers.registry import Format


def sniff_teams(source: Source) -> int:
    text = json_head_with(source)
    if not text:
        return 0
    for created, body, chat, kind in _SNIFF_KEYS:
        if (
            has_key(text, created)
            and has_key(text, body)
            and (has_key(text, chat) or has_key(text, kind))
        ):
            return 85
    return 0


_SNIFF_KEYS = (
    ("CreatedDateTime", "Body", "ChatId", "MessageType"),
    ("createdDateTime", "body", "chatId", "messageType"),
)


def read_teams(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    data: Any
    context = ""
    if json_head_with(source, opens="["):  # a list of messages: streamed, in two passes
        doc = StreamedDoc(source, ())
        doc.head()
        data = None
    else:  # an object wrapping the list: read whole
        data = load_json(source)
        if isinstance(data, dict):
            context = _context_chat(as_str(data.get("@odata.context")))
            data = data.get("value", data.get("Value", data.get("messages")))
        if not isinstance(data, list):
            raise InputError("not a Teams export (expected a list of messages)", where=source.name)

    def messages() -> Iterable[Any]:
        found = map(pascal, data if data is not None else doc.values())
        return (_in_chat(m, context) for m in found) if context else found

    # Who takes part in each chat, to name the other party of a 1:1 chat, and their ids.
    members: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for m in messages():
        m = as_dict(m)
        name = _teams_from(m)
        if name:
            names.setdefault(as_str(as_dict(as_dict(m.get("From")).get("User")).get("Id")), name)
            members.setdefault(_teams_thread(m), [])
            if name not in members[_teams_thread(m)]:
                members[_teams_thread(m)].append(name)
    empty = EmptyCounter()
    for i, m in enumerate(messages(), 1):
        loc = ctx.loc(f"msg-{i}")
        if not isinstance(m, dict) or not as_str(m.get("Id")):
            ctx.reject(loc, "not a Teams message (no Id)", m)
            continue
        yield from _teams_message(m, loc, (members, names), ctx, empty)
    empty.report(ctx)


# the chat or channel a Graph answer's ``@odata.context`` names (a page of one chat's
# messages: ``.../$metadata#chats('19%3A...%40thread.v2')/messages``)
_CONTEXT_CHAT = re.compile(r"(?:chats|channels)\('([^']+)'\)/messages")


def _context_chat(context: str) -> str:
    m = _CONTEXT_CHAT.search(context)
    return unquote(m[1]) if m else ""


def _in_chat(m: Any, chat: str) -> Any:
    """A message of a page whose context names its chat: that chat when it names none."""
    if isinstance(m, dict) and not _teams_chat(m):
        return {**m, "ChatId": chat}
    return m


def _teams_from(m: dict[str, Any]) -> str:
    frm = as_dict(m.get("From"))
    for who in ("User", "Application", "Device"):
        name = as_str(as_dict(frm.get(who)).get("DisplayName"))
        if name:
            return name
    return ""


def _teams_chat(m: dict[str, Any]) -> str:
    """The chat or channel id, or ''."""
    ident = as_dict(m.get("ChannelIdentity"))
    return as_str(m.get("ChatId")) or as_str(ident.get("ChannelId"))


def _teams_thread(m: dict[str, Any]) -> str:
    return _teams_chat(m) or "teams"


def _system_event(m: dict[str, Any], names: dict[str, str]) -> tuple[str, str]:
    """A system event's ``[system event] <kind>: <what>`` chunk and its initiator's name:
    Graph's ``eventDetail`` type in words (``#microsoft.graph.membersAddedEventMessageDetail``:
    ``members added``), the members it names (by the names their messages give their
    ids, when it writes none), a new name, a call's duration."""
    detail = as_dict(m.get("EventDetail"))
    kinds = [k for k, v in detail.items() if v not in (None, [], {}) and k != "Initiator"]
    odata = as_str(detail.get("@odata.type")).rpartition(".")[2].removesuffix("EventMessageDetail")
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", odata).lower()
    kind = words or as_str(detail.get("EventType")) or ", ".join(kinds)
    initiator = as_dict(as_dict(detail.get("Initiator")).get("User"))
    what = ", ".join(_event_values(detail, names))
    text = f"[system event] {kind}: {what}" if what and kind else f"[system event] {kind or what}"
    initiator_id = as_str(initiator.get("Id"))
    return text.rstrip(), as_str(initiator.get("DisplayName")) or names.get(initiator_id, "")


def _event_values(detail: dict[str, Any], names: dict[str, str]) -> list[str]:
    """What an event names: its members (Graph's ``members``, the PascalCase ``MembersAdded``
    and the like), a display name it sets (``chatDisplayName``, ``teamsAppDisplayName``...),
    a call's duration."""
    out: list[str] = []
    for key, value in detail.items():
        if key.startswith("Members") and isinstance(value, list):
            for who in map(as_dict, value):
                who = as_dict(who.get("User")) or who
                name = as_str(who.get("DisplayName")) or names.get(as_str(who.get("Id")), "")
                out.append(name or as_str(who.get("Id")))
        elif isinstance(value, str) and (key.endswith(("DisplayName", "Duration"))):
            out.append(value)  # a new name (chat, team, channel, app), a call's length
    return [x for x in out if x]


def _attachments(m: dict[str, Any]) -> list[dict[str, Any]]:
    keys = ("Id", "Name", "ContentType", "ContentUrl")
    found = [
        {k: as_dict(a).get(k) for k in keys if as_dict(a).get(k)}
        for a in as_list(m.get("Attachments"))
    ]
    return [a for a in found if a]


def _mentioned(m: dict[str, Any]) -> list[str]:
    names = []
    for x in map(as_dict, as_list(m.get("Mentions"))):
        who = as_dict(x.get("Mentioned"))
        name = as_str(as_dict(who.get("User")).get("DisplayName")) or as_str(x.get("MentionText"))
        if name:
            names.append(name)
    return names


def _listeners(
    m: dict[str, Any], thread: str, speaker: str, system: bool, members: dict[str, list[str]]
) -> list[str]:
    """The mentioned people, else in a 1:1 chat (not a system event) the other party."""
    listeners = _mentioned(m)
    if not listeners and not system and thread.endswith("@unq.gbl.spaces"):
        listeners = [p for p in members.get(thread, []) if p != speaker]
    return listeners


def _teams_message(
    m: dict[str, Any],
    loc: str,
    people: tuple[dict[str, list[str]], dict[str, str]],
    ctx: ImportContext,
    empty: EmptyCounter,
) -> Iterator[ConversationMessage]:
    members, names = people
    body = as_dict(m.get("Body"))
    content = as_str(body.get("Content"))
    text = html_to_text(content) if as_str(body.get("ContentType")).lower() == "html" else content
    speaker = _teams_from(m)
    system = m.get("From") is None or "systemEventMessage" in content
    chunks = [text] if text.strip() else []
    if system:
        event, initiator = _system_event(m, names)
        chunks.insert(0, event)
        speaker = speaker or initiator
    attachments = _attachments(m)
    chunks += attachment_chunks(m)
    if not chunks:
        empty.skip(loc)
        return
    thread = _teams_thread(m)
    quoted = quote(m)
    listeners = _listeners(m, thread, speaker, system, members)
    if not _mentioned(m) and quoted.get("sender") not in (None, speaker):
        listeners = [quoted["sender"]]  # a reply quoting a message speaks to its sender
    zone = ctx.options.tz
    ts = iso_ts(m.get("CreatedDateTime"), zone)
    if ts is None:
        ctx.warn(loc, "no readable CreatedDateTime; time left unknown")
    reply = as_str(m.get("ReplyToId")) or quoted.get("message_id", "")
    yield message(
        chunks,
        speaker=speaker or None,
        listeners=listeners,
        timestamp=ts,
        id=scoped_id("teams", _teams_chat(m), as_str(m.get("Id"))),
        source_id=loc,
        format="teams",
        thread=thread,
        reply_to=scoped_id("teams", _teams_chat(m), reply) if reply else None,
        subject=as_str(m.get("Subject")),
        tags=[SYSTEM_TAG] if system else [],
        extra={**_teams_extra(m, attachments, zone), "quoted": quoted or None},
    )


def _teams_extra(
    m: dict[str, Any], attachments: list[dict[str, Any]], zone: tzinfo
) -> dict[str, Any]:
    return {
        "message_type": as_str(m.get("MessageType")),
        "created": as_str(m.get("CreatedDateTime")),
        "edited": iso_ts(m.get("LastEditedDateTime"), zone),
        "deleted": iso_ts(m.get("DeletedDateTime"), zone),
        "importance": as_str(m.get("Importance")) if m.get("Importance") != "normal" else None,
        "attachments": attachments,
        "reactions": [
            {
                "type": as_str(r.get("ReactionType")),
                "user": as_str(as_dict(as_dict(r.get("User")).get("User")).get("DisplayName")),
            }
            for r in map(as_dict, as_list(m.get("Reactions")))
        ],
    }


DESCRIPTION = "Microsoft Teams chat messages JSON (Graph API or PascalCase exports; HTML bodies)"
EXAMPLE = '[{"Id": "1", "Body": {"ContentType": "html", "Content": "<p>Hi</p>"}, "From": {...}}]'
FIELDS = Fields(
    speaker="`From.User.DisplayName` (a bot: `From.Application.DisplayName`; Graph's camelCase "
    "`from.user.displayName` alike)",
    listeners="the mentioned users; in a 1:1 chat (`@unq.gbl.spaces`) the other person",
    time="`CreatedDateTime`",
    zone="the offset the source writes (UTC `Z`); " + NAIVE_IN_TZ,
    thread="`ChatId` (or the channel's id)",
    id="`teams:<chat>:<Id>` (`Id` is the creation time in milliseconds); a message naming "
    "no chat: `teams:<Id>`",
    scope="the chat or channel (`ChatId`, `ChannelIdentity.ChannelId`)",
    reply_to="`teams:<chat>:<ReplyToId>`, else the message a reply quotes (a "
    "`messageReference` attachment's `messageId`)",
    subject="`Subject`",
    tags="`system` on events (`From: null`: `[system event] <kind>: <what>`, e.g. `members "
    "added: Kenji Mori`)",
    extra="`message_type`, `created`, `edited`, `deleted`, `importance`, `attachments`, "
    "`reactions`, `quoted` (`message_id`, `sender`, `preview`)",
)

FORMATS = (
    Format(
        "teams", "chat", DESCRIPTION, ("*.json",), sniff_teams, read_teams, EXAMPLE, fields=FIELDS
    ),
)
