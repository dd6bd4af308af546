"""Telegram Desktop result.json: one chat's export, or a full export with ``chats.list``.

A one-chat export streams ``messages`` (a first pass for a personal chat's senders); the
full export streams ``chats.list`` then ``left_chats.list`` one chat at a time (each chat
read whole).

Decisions: ``date_unixtime`` is preferred; else the naive ``date`` is read in ``--tz``.
Names (chat, sender, actor) with cp1252 mojibake are repaired when the repair
round-trips; a name Telegram Desktop writes as ``null`` beside its sender id is
``Deleted Account``, as the app shows it. Service messages become ``[action] ...`` with
the tag ``system`` (a call's ``[phone_call] 42 s``, ``[join_group_by_link] from Club``,
a custom action's ``information_text``), the members and a pinned ``message_id`` in
``extra``. A poll, a contact, a location or venue, a game and an invoice
have neither text nor file: each is a chunk (``[poll] Lunch?: Yes (1), No (1)``,
``[contact] ...``, ``[location] Cafe, Main St 1 (52.5, 13.4)``), its keys in ``media``.
A file the export left out (``(File not included. ...)`` in place of its path) is named
by its ``file_name`` or a sticker's emoji. A reply to another chat's message
(``reply_to_peer_id``, as a discussion group's comment on its channel's post) has no
``replyTo`` (the id is that chat's): ``extra.reply_elsewhere``. In a forum, a message
that points at its topic's ``topic_created`` message (every message of a topic that is
no reply) is no reply: ``extra.topic`` names the topic.
``personal_chat``: the listener is the other sender; elsewhere a reply without mentions
speaks to the sender of the message it answers (when in the chat; a
``convo.core.spillmap.SpillMap`` keeps memory flat). A message without an id gets the
content-hash id (``convo.importers.build.ContentIds``).

Ids and their scope (docs/ids.md): id = ``telegram:<chat>:<message id>``. Message ids
of supergroups and channels are numbered per chat, so the chat id scopes them. Those of
personal chats, bot chats, basic groups and saved messages are numbered per *account*
(each account's own message box), and a personal chat's id is the other person's, so
two people's exports of their chats with a third share chat ids and message numbers:
there the chat is ``<account>/<chat>``, the account being the full export's
``personal_information.user_id``, else (a one-chat export of a personal chat) the one
sender id that is not the chat's; when neither says it, the chat id alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.spillmap import SpillMap
from convo.core.timestamps import epoch_ts, iso_ts
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter, fix_cp1252_mojibake
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import (
    CutShort,
    StreamedDoc,
    as_dict,
    as_list,
    as_str,
    has_key,
    json_head,
)
from convo.importers.registry import Format

_TG_TYPES = re.compile(
    r'"type"\s*:\s*"(personal_chat|bot_chat|private_group|private_supergroup|public_supergroup|'
    r'private_channel|public_channel|saved_messages)"'
)


def sniff_telegram(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{") or has_key(text, "guild"):
        return 0
    if has_key(text, "chats") and (has_key(text, "personal_information") or has_key(text, "about")):
        return 85
    if has_key(text, "messages") and (_TG_TYPES.search(text) or has_key(text, "date_unixtime")):
        return 85
    if has_key(text, "messages") and has_key(text, "from_id") and has_key(text, "date"):
        return 70
    return 0


def read_telegram(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("messages",), skip=_TG_LISTS)
    try:
        head = doc.head(need=("id", "name", "type"))
    except InputError:
        if not has_key(json_head(source), "chats"):
            raise
        head = _before_chats(source)  # a full export that breaks off: read up to the break
    else:
        if doc.root != "{":
            doc.close()
            raise InputError("not a Telegram export (expected a JSON object)", where=source.name)
    empty = EmptyCounter()
    if "messages" in doc.keys:  # one chat's export: its messages streamed
        cut = CutShort(ctx, "message", hint=_CUT_HINT)
        yield from _telegram_chat(head, lambda: cut(doc.items()), 1, source, ctx, empty)
        empty.report(ctx)
        return
    doc.close()
    yield from _full_export(head, source, ctx, empty)
    empty.report(ctx)


def _full_export(
    head: dict[str, Any], source: Source, ctx: ImportContext, empty: EmptyCounter
) -> Iterator[ConversationMessage]:
    """A full export, one chat at a time (each read whole). One it breaks off in (Desktop
    writes a chat's messages a slice at a time: an export stopped part-way stops inside
    one) is read from its first byte up to the break (``StreamedDoc.broken``)."""
    account = as_str(as_dict(head.get("personal_information")).get("user_id"))
    c = 0
    for key in _TG_LISTS:
        chats = StreamedDoc(source, (key, "list"), keep=False)
        cut = CutShort(ctx, "chat", hint=_CUT_HINT, defer=True)
        for chat, _ in cut(chats.items()):
            c += 1
            chat = as_dict(chat)
            chat_items = partial(_numbered, as_list(chat.get("messages")))
            yield from _telegram_chat(chat, chat_items, c, source, ctx, empty, account)
        if cut.broke:
            part = chats.broken(("messages",))
            msgs = CutShort(ctx, "message", hint=_CUT_HINT)
            if (first := part.head()) is not None:
                items = lambda m=msgs, p=part: m(p.items())  # noqa: E731
                yield from _telegram_chat(first, items, c + 1, source, ctx, empty, account)
            if not msgs.broke:  # it broke before the chat's messages: the chats' break
                cut.report()
            return  # ``left_chats`` comes after the break: not in the file
    if not c:
        raise InputError(
            "no chats in this Telegram export",
            where=source.name,
            hint="export with 'chats' selected",
        )


_TG_LISTS = ("chats", "left_chats")


def _before_chats(source: Source) -> dict[str, Any]:
    """The members of a full export written before its chats (``personal_information``)."""
    chats = StreamedDoc(source, ("chats", "list"))
    try:
        return chats.head()
    finally:
        chats.close()


# A result.json that breaks off: Telegram Desktop writes it as it goes, so an export
# stopped part-way (or a copy cut short) keeps the messages before the break.
_CUT_HINT = "the export was interrupted or the file cut short: export the chat again for the rest"


def _numbered(messages: list[Any]) -> Iterator[tuple[Any, int]]:
    return ((m, 0) for m in messages)


@dataclass
class _Chat:
    id: str
    name: str
    type: str
    parties: list[str]  # the two senders of a two-party personal chat, else empty
    scope: str  # what the message ids are numbered within (the module docstring)
    # message id -> sender, for a reply's listener (older ones spill to disk: memory flat)
    senders: SpillMap[str, str] = field(default_factory=SpillMap)
    # a forum's topics: the id of each ``topic_created`` message -> the topic's title
    topics: dict[str, str] = field(default_factory=dict)


def _telegram_chat(
    chat: dict[str, Any],
    items: Callable[[], Iterable[tuple[Any, int]]],
    c: int,
    source: Source,
    ctx: ImportContext,
    empty: EmptyCounter,
    account: str = "",
) -> Iterator[ConversationMessage]:
    """One chat; ``items()`` gives its messages (called twice for a personal chat);
    ``account``: whose export it is, when the export says (the module docstring)."""
    chat_id = as_str(chat.get("id")) or str(c)
    ctype = as_str(chat.get("type"))
    senders: set[str] = set()
    if ctype == "personal_chat":  # a first pass: who takes part
        people = [as_dict(m) for m, _ in items()]
        senders = {fix_cp1252_mojibake(as_str(m.get("from"))) for m in people} - {""}
        account = account or _owner(chat_id, {as_str(m.get("from_id")) for m in people})
    info = _Chat(
        id=chat_id,
        name=fix_cp1252_mojibake(as_str(chat.get("name"))) or f"telegram:{chat_id}",
        type=ctype,
        parties=list(senders) if len(senders) == 2 else [],
        scope=f"{account}/{chat_id}" if account and ctype in _PER_ACCOUNT else chat_id,
    )
    try:
        for i, (m, _) in enumerate(items(), 1):
            loc = ctx.loc(f"chat-{c}-msg-{i}")
            if not isinstance(m, dict):
                ctx.reject(loc, "not a Telegram message (not an object)", m)
                continue
            msg = _tg_message(m, loc, info, ctx.options.tz)
            if msg is None:
                _skipped(m, loc, ctx, empty)
                continue
            if msg.timestamp is None:
                ctx.warn(loc, "no readable date; time left unknown")
            yield msg
    finally:
        info.senders.close()


def _skipped(m: dict[str, Any], loc: str, ctx: ImportContext, empty: EmptyCounter) -> None:
    """A message with nothing to read: one Desktop could not export is warned with its
    place (``"type": "unsupported"``, only its id written), an empty one counted."""
    if m.get("type") == "unsupported":
        ctx.warn(loc, "a message Telegram Desktop could not export (type unsupported)")
    else:
        empty.skip(loc)


_PER_ACCOUNT = {"personal_chat", "bot_chat", "private_group", "saved_messages"}


def _owner(chat_id: str, sender_ids: set[str]) -> str:
    """The account a personal chat was exported from: its one sender that is not the
    chat's other person (``user<chat id>``), or '' when that is not one."""
    others = {x.removeprefix("user") for x in sender_ids if x and x.startswith("user")} - {chat_id}
    return others.pop() if len(others) == 1 and len(sender_ids - {""}) == 2 else ""


_TG_MEDIA = ("photo", "file", "file_name", "media_type", "mime_type", "duration_seconds", "width",
             "height", "sticker_emoji", "performer", "title", "location_information",
             "place_name", "address", "poll", "contact_information", "contact_vcard",
             "game_title", "game_description", "game_link", "invoice_information")  # fmt: skip


def _poll(m: dict[str, Any]) -> str:
    poll = as_dict(m.get("poll"))
    answers = [as_dict(a) for a in as_list(poll.get("answers"))]
    votes = ", ".join(f"{as_str(a.get('text'))} ({as_str(a.get('voters')) or 0})" for a in answers)
    return f"[poll] {as_str(poll.get('question'))}: {votes}".rstrip(": ") if poll else ""


def _contact(m: dict[str, Any]) -> str:
    contact = as_dict(m.get("contact_information"))
    parts = (as_str(contact.get(k)) for k in ("first_name", "last_name", "phone_number"))
    return "[contact] " + " ".join(x for x in parts if x) if contact else ""


def _place(m: dict[str, Any]) -> str:
    geo = as_dict(m.get("location_information"))
    place = ", ".join(as_str(m.get(k)) for k in ("place_name", "address") if as_str(m.get(k)))
    point = f"({as_str(geo.get('latitude'))}, {as_str(geo.get('longitude'))})" if geo else ""
    return " ".join(x for x in ("[location]", place, point) if x) if geo or place else ""


def _game(m: dict[str, Any]) -> str:
    desc = as_str(m.get("game_description"))
    title = as_str(m.get("game_title"))
    return f"[game] {title}" + (f": {desc}" if desc else "") if title else ""


def _invoice(m: dict[str, Any]) -> str:
    invoice = as_dict(m.get("invoice_information"))
    money = f"{as_str(invoice.get('amount'))} {as_str(invoice.get('currency'))}".strip()
    return f"[invoice] {as_str(invoice.get('title'))}: {money}" if invoice else ""


def _shared(m: dict[str, Any]) -> list[str]:
    """What a message shares that is neither text nor a file (Telegram Desktop's
    ``export_output_json.cpp`` writes each as its own keys): a poll, a contact, a
    location or venue, a game, an invoice."""
    return [x for x in (f(m) for f in (_poll, _contact, _place, _game, _invoice)) if x]


def _media(m: dict[str, Any], service: bool) -> dict[str, Any]:
    """The media keys of a message (a service message's ``title`` is not media)."""
    return {} if service else {k: m[k] for k in _TG_MEDIA if m.get(k) not in (None, "")}


def _file_chunk(kind: str, path: str, m: dict[str, Any]) -> str:
    """``[kind] path``; a file the export left out is written as the reason it was left out
    (``(File not included. Change data exporting settings to download.)``, export_output_json.cpp's
    ``pushPath``): then its name, or a sticker's emoji, stands in for the path (the reason
    stays in ``extra.media``)."""
    if path.startswith("(File "):
        path = as_str(m.get("file_name")) or (
            as_str(m.get("sticker_emoji")) if kind == "sticker" else ""
        )
    return f"[{kind}] {path}".rstrip()


# Telegram Desktop writes ``null`` for a name it does not have (``StringAllowNull``): a
# deleted account, as the app and the HTML export name it.
DELETED = "Deleted Account"


def _members(m: dict[str, Any]) -> list[str]:
    return [fix_cp1252_mojibake(as_str(x)) or DELETED for x in as_list(m.get("members"))]


def _service_chunk(m: dict[str, Any]) -> str:
    """``[action] detail``: the title, else the members, else a call's length; then who
    invited a member who joined by link, a poll answer added or removed, and a custom
    action's own text (``information_text``, written without ``action``)."""
    seconds = m.get("duration_seconds") or m.get("duration")  # a group call: ``duration``
    detail = (
        as_str(m.get("title"))
        or as_str(m.get("new_title"))
        or ", ".join(_members(m))
        or (f"{as_str(seconds)} s" if seconds else "")
    )
    inviter = fix_cp1252_mojibake(as_str(m.get("inviter")))
    answer = as_str(m.get("answer"))
    parts = [
        f"[{as_str(m.get('action')) or 'service'}]",
        detail,
        f"from {inviter}" if inviter else "",
        f'"{answer}"' if answer else "",
        as_str(m.get("information_text")),
    ]
    return " ".join(p for p in parts if p)


def _tg_chunks(m: dict[str, Any], text: str, service: bool) -> list[str]:
    chunks = [text] if text.strip() else []
    if service:
        chunks.insert(0, _service_chunk(m))
    if m.get("photo"):
        chunks.append(_file_chunk("photo", as_str(m.get("photo")), m))
    if m.get("file"):
        chunks.append(_file_chunk(as_str(m.get("media_type")) or "file", as_str(m.get("file")), m))
    if m.get("sticker_emoji") and not m.get("file"):
        chunks.append(f"[sticker] {as_str(m.get('sticker_emoji'))}")
    return chunks + _shared(m)


def _sender(m: dict[str, Any], service: bool) -> str:
    """``from`` (a service message's ``actor``); a sender id whose name is ``null`` is a
    deleted account."""
    name = fix_cp1252_mojibake(as_str(m.get("actor") if service else m.get("from")))
    if not name and as_str(m.get("actor_id") if service else m.get("from_id")):
        return DELETED
    return name


def _tg_message(m: dict[str, Any], loc: str, chat: _Chat, zone: Any) -> ConversationMessage | None:
    """One message, or None when it has neither text nor media."""
    service = as_str(m.get("type")) == "service"
    speaker = _sender(m, service)
    text, mentions, links = _tg_text(m.get("text"))
    chunks = _tg_chunks(m, text, service)
    if not chunks:
        return None
    rid, elsewhere = _reply(m, chat)
    topic = _topic(m, chat, rid)
    rid = "" if topic else rid  # a message in a topic points at it: no reply
    heard = _heard(chat, m, speaker, rid)  # first: it remembers this message's sender
    return message(
        chunks,
        speaker=speaker or None,
        listeners=mentions or heard,
        timestamp=epoch_ts(m.get("date_unixtime")) or iso_ts(m.get("date"), zone),
        id=_tg_id(chat, m),
        source_id=loc,
        format="telegram",
        thread=chat.name,
        reply_to=f"telegram:{chat.scope}:{rid}" if rid else None,
        tags=[SYSTEM_TAG] if service else [],
        extra={
            "chat_id": chat.id,
            "chat_type": chat.type,
            "from_id": as_str(m.get("actor_id") if service else m.get("from_id")),
            "action": as_str(m.get("action")) if service else None,
            "members": _members(m) if service else None,
            "message_id": as_str(m.get("message_id")) if service else None,
            "edited": epoch_ts(m.get("edited_unixtime")) or iso_ts(m.get("edited"), zone),
            "forwarded_from": as_str(m.get("forwarded_from")),
            "saved_from": as_str(m.get("saved_from")),
            "author": as_str(m.get("author")),  # a channel post's signature
            "via_bot": as_str(m.get("via_bot")),
            "media": _media(m, service),
            "links": links,
            "reactions": as_list(m.get("reactions")),
            "reply_elsewhere": elsewhere,
            "topic": topic,
        },
    )


_PEER = re.compile(r"^(?:user|chat|channel)(\d+)$")


def _reply(m: dict[str, Any], chat: _Chat) -> tuple[str, dict[str, str] | None]:
    """The id of the message of this chat a message replies to, and a reply to another
    chat's message (``reply_to_peer_id`` beside the id: its numbers are that chat's):
    ``{"peer", "message_id"}``, for ``extra.reply_elsewhere``."""
    rid = as_str(m.get("reply_to_message_id"))
    peer = _PEER.match(as_str(m.get("reply_to_peer_id")))
    if rid and peer and peer[1] != chat.id:
        return "", {"peer": peer[0], "message_id": rid}
    return rid, None


def _topic(m: dict[str, Any], chat: _Chat, rid: str) -> dict[str, str] | None:
    """The forum topic a message is in, when it points at the topic's ``topic_created``
    message: Telegram gives every message of a topic that is no reply the topic's first
    message as its ``reply_to_msg_id`` (MTProto's ``forum_topic`` flag, which the export
    does not write), so it is no reply to that message nor speaks to its creator. A
    ``topic_created`` message is remembered here."""
    if as_str(m.get("action")) == "topic_created" and as_str(m.get("id")):
        chat.topics[as_str(m.get("id"))] = as_str(m.get("title"))
    if rid and rid in chat.topics:
        return {"id": rid, "title": chat.topics[rid]}
    return None


def _heard(chat: _Chat, m: dict[str, Any], speaker: str, rid: str) -> list[str]:
    """Without mentions: the sender of the message replied to, else the other of a
    two-party personal chat (and remember who sent this one)."""
    replied = chat.senders.get(rid) if rid else None
    if speaker and as_str(m.get("id")):
        chat.senders.set(as_str(m.get("id")), speaker)
    if replied and replied != speaker:
        return [replied]
    return [s for s in chat.parties if s != speaker]


def _tg_id(chat: _Chat, m: dict[str, Any]) -> str | None:
    """``telegram:<chat scope>:<id>``; None (the content hash) when the message has no id."""
    mid = as_str(m.get("id"))
    return f"telegram:{chat.scope}:{mid}" if mid else None


def _tg_text(value: Any) -> tuple[str, list[str], list[str]]:
    """Telegram text (a string or a list of strings and entities): text, mentions, links."""
    if isinstance(value, str):
        return value, [], []
    parts: list[str] = []
    mentions: list[str] = []
    links: list[str] = []
    for item in as_list(value):
        if isinstance(item, str):
            parts.append(item)
            continue
        ent = as_dict(item)
        t = as_str(ent.get("text"))
        kind = as_str(ent.get("type"))
        if kind in ("mention", "mention_name"):
            mentions.append(t.lstrip("@"))
        if kind == "text_link" and as_str(ent.get("href")):
            links.append(as_str(ent.get("href")))
            t = f"{t} ({as_str(ent.get('href'))})"
        elif kind == "link":
            links.append(t)
        parts.append(t)
    return "".join(parts), mentions, links


DESCRIPTION = "Telegram Desktop result.json (one chat, or a full export with chats.list)"
PATTERNS = ("result.json", "*.json")
EXAMPLE = (
    '{"name": "Bob", "type": "personal_chat", "id": 1, "messages": [{"id": 1, "from": "Bob", ...}]}'
)
FIELDS = Fields(
    speaker="`from` (a service message: `actor`; cp1252 mojibake repaired)",
    listeners="the users the text mentions, else the sender of the message replied to, else "
    "in a two-party personal chat the other sender",
    time="`date_unixtime`, else `date`",
    zone="`date_unixtime` is epoch seconds (UTC); the naive `date` is read in `--tz` (default UTC)",
    thread="the chat's name",
    id="`telegram:<chat>:<id>`; personal chats, bot chats, basic groups and saved messages "
    "`telegram:<account>/<chat>:<id>` when the account is known; none: " + CONTENT_HASH,
    scope="supergroups and channels: the chat; chat types numbered per account: the account "
    "(`personal_information.user_id`, else the one sender that is not the chat) and the chat",
    reply_to="`reply_to_message_id` (with `reply_to_peer_id`, another chat's message: "
    "`extra.reply_elsewhere`)",
    tags="`system` on service messages (`[action] ...`)",
    extra="`chat_id`, `chat_type`, `from_id`, `action`, `members`, `message_id` (a pin's), "
    "`edited`, `forwarded_from`, `saved_from`, `author` (a channel post's signature), "
    "`via_bot`, `media`, `links`, `reactions`, `reply_elsewhere`, `topic` (a forum's: `id`, "
    "`title`)",
)

FORMATS = (
    Format(
        "telegram",
        "chat",
        DESCRIPTION,
        PATTERNS,
        sniff_telegram,
        read_telegram,
        EXAMPLE,
        fields=FIELDS,
    ),
)
