"""JSON chat-app exports: DiscordChatExporter, Telegram Desktop, Facebook Messenger, Teams.

Each is one JSON document, streamed by convo.jsonstream (memory flat with input size):
- Discord: ``messages`` element by element; ``guild``/``channel`` come first in real
  exports (when not, a second pass finds them); a DirectTextChat takes a first pass to
  learn its authors.
- Telegram: a one-chat export streams ``messages`` (a first pass for a personal chat's
  senders); the full export streams ``chats.list`` then ``left_chats.list`` one chat at a
  time (each chat read whole).
- Messenger: a first pass notes each message's byte range and the order; the messages are
  then read again from their ranges, oldest first (stdin/.gz are spooled to a file).
- Teams: a top-level array streams in two passes (who is in each chat, then messages);
  an object wrapping the list (``value``/``messages``) is read whole (capped at 512 MiB).
Malformed JSON raises a located InputError when met (messages before it are emitted).

Decisions:
- Discord: speaker = ``author.nickname`` (the server display name) else ``name``; the
  exporter already writes mentions as ``@Name`` in ``content``; ``mentions`` give the
  listeners; in a ``DirectTextChat`` with two authors the other one. ``thread`` = channel
  name (a thread export: the thread's name, parent channel in ``extra.parent_channel``).
  Replies: ``replyTo`` = ``discord:<reference.messageId>``; forwards keep
  ``forwardedMessage`` as a ``[forwarded]`` chunk. Types other than Default/Reply are
  tagged ``system``.
- Telegram: ``date_unixtime`` is preferred; else the naive ``date`` is read in ``--tz``.
  Names (chat, sender, actor) with cp1252 mojibake are repaired when the repair
  round-trips. Service messages become ``[action] ...`` with the tag ``system``.
  ``personal_chat``: the listener is the other sender.
- Messenger: every string is repaired (UTF-8 bytes escaped as \\u00XX); messages are
  emitted oldest-first; no ids in the source (content hash); two participants -> the
  other one is the listener.
- Teams: HTML bodies through ``html_to_text``; ``From: null`` events become
  ``[system event] <kind>`` tagged ``system``; ``thread`` = ChatId (or channel id); in a
  1:1 chat (``@unq.gbl.spaces``) the listener is the other person seen in that chat.
  Messages are emitted in file order.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO

import orjson

from convo.core.errors import InputError
from convo.core.io import Source, load_json
from convo.core.jsonstream import JsonArray
from convo.core.record import ConversationMessage
from convo.core.text.html import html_to_text
from convo.core.timestamps import epoch_ts, iso_ts
from convo.importers.apps.common import (
    SYSTEM_TAG,
    EmptyCounter,
    StreamedDoc,
    as_dict,
    as_list,
    as_str,
    fix_cp1252_mojibake,
    fix_latin1_mojibake,
    has_key,
    json_head,
    message,
)
from convo.importers.context import ImportContext

# --- Discord (DiscordChatExporter JSON) -----------------------------------------------


def sniff_discord(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{"):
        return 0
    if has_key(text, "guild") and has_key(text, "channel") and has_key(text, "messages"):
        return 90 if has_key(text, "author") or has_key(text, "dateRange") else 60
    return 0


def read_discord(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("messages",))
    head = doc.head(need=("channel", "guild"))
    if not doc.found:
        doc.close()
        raise InputError("not a DiscordChatExporter export (no messages list)", where=source.name)
    channel = as_dict(head.get("channel"))
    guild = as_dict(head.get("guild"))
    ctype = as_str(channel.get("type"))
    cname = as_str(channel.get("name")) or as_str(channel.get("id")) or "discord"
    is_thread = "Thread" in ctype
    authors: set[str] = set()
    if ctype == "DirectTextChat":  # a first pass: who takes part
        authors = {
            _discord_name(as_dict(m.get("author"))) for m, _ in doc.items() if isinstance(m, dict)
        }
        authors -= {""}
    two_party = ctype == "DirectTextChat" and len(authors) == 2
    empty = EmptyCounter()
    for i, (m, _) in enumerate(doc.items(), 1):
        loc = ctx.loc(f"msg-{i}")
        if not isinstance(m, dict) or not as_str(m.get("id")):
            ctx.reject(loc, "not a Discord message (no id)", m)
            continue
        speaker = _discord_name(as_dict(m.get("author")))
        listeners = [_discord_name(as_dict(x)) for x in as_list(m.get("mentions"))]
        if not listeners and two_party:
            listeners = [a for a in authors if a != speaker]
        chunks = [as_str(m.get("content"))] if as_str(m.get("content")).strip() else []
        attachments = [as_dict(a) for a in as_list(m.get("attachments"))]
        chunks += [
            f"[attachment] {as_str(a.get('fileName')) or as_str(a.get('url'))}" for a in attachments
        ]
        chunks += [
            f"[sticker] {as_str(as_dict(s).get('name'))}" for s in as_list(m.get("stickers"))
        ]
        embeds = [
            {k: as_dict(e).get(k) for k in ("title", "url", "description") if as_dict(e).get(k)}
            for e in as_list(m.get("embeds"))
        ]
        if not chunks:
            chunks += [f"[embed] {e.get('title') or e.get('url')}" for e in embeds if e]
        ref = as_dict(m.get("reference"))
        fwd = as_dict(m.get("forwardedMessage"))
        if fwd:
            chunks.append(f"[forwarded] {as_str(fwd.get('content'))}".rstrip())
        if not chunks:
            empty.n += 1
            continue
        mtype = as_str(m.get("type"))
        reply_to = None
        if as_str(ref.get("messageId")) and as_str(ref.get("type")) != "Forward":
            reply_to = f"discord:{as_str(ref.get('messageId'))}"
        ts = iso_ts(m.get("timestamp"))
        if ts is None:
            ctx.warn(loc, f"unreadable timestamp {m.get('timestamp')!r}; time left unknown")
        author = as_dict(m.get("author"))
        yield message(
            chunks,
            speaker=speaker or None,
            listeners=listeners,
            timestamp=ts,
            id=f"discord:{as_str(m.get('id'))}",
            source_id=loc,
            format="discord",
            thread=cname,
            reply_to=reply_to,
            tags=[SYSTEM_TAG] if mtype not in ("Default", "Reply", "") else [],
            extra={
                "type": mtype,
                "guild": as_str(guild.get("name")),
                "channel_id": as_str(channel.get("id")),
                "parent_channel": as_str(channel.get("category")) if is_thread else None,
                "author_id": as_str(author.get("id")),
                "bot": True if author.get("isBot") is True else None,
                "timestamp": as_str(m.get("timestamp")),
                "edited": iso_ts(m.get("timestampEdited")),
                "pinned": True if m.get("isPinned") is True else None,
                "attachments": attachments,
                "embeds": [e for e in embeds if e],
                "stickers": as_list(m.get("stickers")),
                "reactions": [
                    {"emoji": as_str(as_dict(r.get("emoji")).get("name")), "count": r.get("count")}
                    for r in map(as_dict, as_list(m.get("reactions")))
                ],
                "reference": ref,
                "forwarded": fwd,
            },
        )
    empty.report(ctx)


def _discord_name(author: dict[str, Any]) -> str:
    return as_str(author.get("nickname")) or as_str(author.get("name"))


# --- Telegram Desktop result.json -----------------------------------------------------

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
    head = doc.head(need=("id", "name", "type"))
    if doc.root != "{":
        doc.close()
        raise InputError("not a Telegram export (expected a JSON object)", where=source.name)
    empty = EmptyCounter()
    if "messages" in doc.keys:  # one chat's export: its messages streamed
        yield from _telegram_chat(head, doc.items, 1, source, ctx, empty)
        empty.report(ctx)
        return
    doc.close()
    # The full export: one chat at a time (each chat is read whole).
    c = 0
    for key in _TG_LISTS:
        chats = StreamedDoc(source, (key, "list"), keep=False)
        for chat, _ in chats.items():
            c += 1
            chat = as_dict(chat)
            msgs = as_list(chat.get("messages"))
            yield from _telegram_chat(
                chat, lambda m=msgs: ((x, 0) for x in m), c, source, ctx, empty
            )
    if not c:
        raise InputError(
            "no chats in this Telegram export",
            where=source.name,
            hint="export with 'chats' selected",
        )
    empty.report(ctx)


_TG_LISTS = ("chats", "left_chats")


def _telegram_chat(
    chat: dict[str, Any],
    items: Callable[[], Iterable[tuple[Any, int]]],
    c: int,
    source: Source,
    ctx: ImportContext,
    empty: EmptyCounter,
) -> Iterator[ConversationMessage]:
    """One chat; ``items()`` gives its messages (called twice for a personal chat)."""
    chat_id = as_str(chat.get("id")) or str(c)
    name = fix_cp1252_mojibake(as_str(chat.get("name"))) or f"telegram:{chat_id}"
    senders: set[str] = set()
    if as_str(chat.get("type")) == "personal_chat":  # a first pass: who takes part
        senders = {fix_cp1252_mojibake(as_str(as_dict(m).get("from"))) for m, _ in items()}
        senders -= {""}
    two_party = as_str(chat.get("type")) == "personal_chat" and len(senders) == 2
    zone = ctx.options.tz
    for i, (m, _) in enumerate(items(), 1):
        loc = ctx.loc(f"chat-{c}-msg-{i}")
        if not isinstance(m, dict) or m.get("id") is None:
            ctx.reject(loc, "not a Telegram message (no id)", m)
            continue
        service = as_str(m.get("type")) == "service"
        speaker = fix_cp1252_mojibake(as_str(m.get("actor") if service else m.get("from")))
        text, mentions, links = _tg_text(m.get("text"))
        chunks = [text] if text.strip() else []
        if service:
            action = as_str(m.get("action")) or "service"
            detail = as_str(m.get("title")) or ", ".join(
                as_str(x) for x in as_list(m.get("members"))
            )
            chunks.insert(0, f"[{action}] {detail}".rstrip())
        media = {
            k: m[k]
            for k in ("photo", "file", "media_type", "mime_type", "duration_seconds", "width", "height",
                      "sticker_emoji", "location_information", "poll", "contact_information")
            if m.get(k) not in (None, "")
        }  # fmt: skip
        if m.get("photo"):
            chunks.append(f"[photo] {as_str(m.get('photo'))}")
        if m.get("file"):
            chunks.append(f"[{as_str(m.get('media_type')) or 'file'}] {as_str(m.get('file'))}")
        if m.get("sticker_emoji") and not m.get("file"):
            chunks.append(f"[sticker] {as_str(m.get('sticker_emoji'))}")
        if not chunks:
            empty.n += 1
            continue
        ts = epoch_ts(m.get("date_unixtime")) or iso_ts(m.get("date"), zone)
        if ts is None:
            ctx.warn(loc, "no readable date; time left unknown")
        listeners = mentions or ([s for s in senders if s != speaker] if two_party else [])
        rid = m.get("reply_to_message_id")
        yield message(
            chunks,
            speaker=speaker or None,
            listeners=listeners,
            timestamp=ts,
            id=f"telegram:{chat_id}:{as_str(m.get('id'))}",
            source_id=loc,
            format="telegram",
            thread=name,
            reply_to=f"telegram:{chat_id}:{as_str(rid)}" if as_str(rid) else None,
            tags=[SYSTEM_TAG] if service else [],
            extra={
                "chat_id": chat_id,
                "chat_type": as_str(chat.get("type")),
                "from_id": as_str(m.get("actor_id") if service else m.get("from_id")),
                "action": as_str(m.get("action")) if service else None,
                "edited": epoch_ts(m.get("edited_unixtime")) or iso_ts(m.get("edited"), zone),
                "forwarded_from": as_str(m.get("forwarded_from")),
                "via_bot": as_str(m.get("via_bot")),
                "media": media,
                "links": links,
                "reactions": as_list(m.get("reactions")),
            },
        )


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


# --- Facebook Messenger message_N.json ------------------------------------------------


def sniff_messenger(source: Source) -> int:
    text = json_head(source)
    if text.startswith("{") and has_key(text, "participants") and has_key(text, "messages"):
        return 85 if has_key(text, "sender_name") or has_key(text, "timestamp_ms") else 50
    return 0


_MEDIA = (
    ("photos", "photo"),
    ("videos", "video"),
    ("audio_files", "audio"),
    ("files", "file"),
    ("gifs", "gif"),
)


def read_messenger(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    with open(source.real_path(), "rb") as f:
        doc = JsonArray(f, ("messages",), where=source.name)
        spans = array("q")
        nums = []
        for m, _ in doc:  # a first pass: where each message is, and the order
            spans.extend(doc.span)
            s = as_dict(m).get("timestamp_ms")
            if isinstance(s, int | float) and not isinstance(s, bool):  # keep first and last
                nums[1 if nums else 0 :] = [s]
        data = doc.members
        if doc.root != "{" or not doc.found:
            raise InputError("not a Messenger export (no messages list)", where=source.name)
        fix = fix_latin1_mojibake
        people = [fix(as_str(as_dict(p).get("name"))) for p in as_list(data.get("participants"))]
        people = [p for p in people if p]
        title = fix(as_str(data.get("title"))) or ", ".join(people) or "messenger"
        order = range(len(spans) // 2)
        if len(nums) >= 2 and nums[0] > nums[-1]:
            order = order[::-1]  # Messenger writes newest first
        yield from _messenger_messages(f, spans, order, people, title, ctx)


def _messenger_messages(
    f: BinaryIO,
    spans: array[int],
    order: range,
    people: list[str],
    title: str,
    ctx: ImportContext,
) -> Iterator[ConversationMessage]:
    """The messages in ``order``, each read again from its byte range."""
    fix = fix_latin1_mojibake
    empty = EmptyCounter()
    for j in order:
        i = j + 1
        f.seek(spans[2 * j])
        m = orjson.loads(f.read(spans[2 * j + 1] - spans[2 * j]))
        loc = ctx.loc(f"msg-{i}")
        if not isinstance(m, dict):
            ctx.reject(loc, "not a Messenger message (not an object)", m)
            continue
        speaker = fix(as_str(m.get("sender_name")))
        content = fix(as_str(m.get("content")))
        chunks = [content] if content.strip() else []
        media = {}
        for key, label in _MEDIA:
            items = [as_dict(x) for x in as_list(m.get(key))]
            if items:
                media[key] = items
                chunks += [f"[{label}] {as_str(x.get('uri'))}" for x in items]
        sticker = as_dict(m.get("sticker"))
        if sticker:
            chunks.append(f"[sticker] {as_str(sticker.get('uri'))}")
        share = as_dict(m.get("share"))
        if share.get("link") and as_str(share.get("link")) not in content:
            chunks.append(f"[link] {as_str(share.get('link'))}")
        if not chunks:
            empty.n += 1
            continue
        ts = epoch_ts(m.get("timestamp_ms"), ms=True)
        if ts is None:
            ctx.warn(loc, "no readable timestamp_ms; time left unknown")
        yield message(
            chunks,
            speaker=speaker or None,
            listeners=[p for p in people if p != speaker] if len(people) == 2 else [],
            timestamp=ts,
            source_id=loc,
            format="messenger",
            thread=title,
            extra={
                "timestamp_ms": m.get("timestamp_ms"),
                "type": as_str(m.get("type")),
                "media": media,
                "sticker": sticker,
                "share": share,
                "unsent": True if m.get("is_unsent") is True else None,
                "reactions": [
                    {
                        "reaction": fix(as_str(r.get("reaction"))),
                        "actor": fix(as_str(r.get("actor"))),
                    }
                    for r in map(as_dict, as_list(m.get("reactions")))
                ],
            },
        )
    empty.report(ctx)


# --- Microsoft Teams export JSON ------------------------------------------------------


def sniff_teams(source: Source) -> int:
    text = json_head(source)
    if not text.startswith(("[", "{")):
        return 0
    if (
        has_key(text, "CreatedDateTime")
        and has_key(text, "Body")
        and (has_key(text, "ChatId") or has_key(text, "MessageType"))
    ):
        return 85
    return 0


def read_teams(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    data: Any
    if json_head(source).startswith("["):  # a list of messages: streamed, in two passes
        doc = StreamedDoc(source, ())
        doc.head()
        data = None
    else:  # an object wrapping the list: read whole
        data = load_json(source)
        if isinstance(data, dict):
            data = data.get("value", data.get("Value", data.get("messages")))
        if not isinstance(data, list):
            raise InputError("not a Teams export (expected a list of messages)", where=source.name)

    def messages() -> Iterable[Any]:
        return data if data is not None else (m for m, _ in doc.items())

    # Who takes part in each chat, to name the other party of a 1:1 chat.
    members: dict[str, list[str]] = {}
    for m in messages():
        m = as_dict(m)
        name = _teams_from(m)
        if name:
            members.setdefault(_teams_thread(m), [])
            if name not in members[_teams_thread(m)]:
                members[_teams_thread(m)].append(name)
    empty = EmptyCounter()
    for i, m in enumerate(messages(), 1):
        loc = ctx.loc(f"msg-{i}")
        if not isinstance(m, dict) or not as_str(m.get("Id")):
            ctx.reject(loc, "not a Teams message (no Id)", m)
            continue
        yield from _teams_message(m, loc, members, ctx, empty)
    empty.report(ctx)


def _teams_from(m: dict[str, Any]) -> str:
    frm = as_dict(m.get("From"))
    for who in ("User", "Application", "Device"):
        name = as_str(as_dict(frm.get(who)).get("DisplayName"))
        if name:
            return name
    return ""


def _teams_thread(m: dict[str, Any]) -> str:
    ident = as_dict(m.get("ChannelIdentity"))
    return as_str(m.get("ChatId")) or as_str(ident.get("ChannelId")) or "teams"


def _teams_message(
    m: dict[str, Any],
    loc: str,
    members: dict[str, list[str]],
    ctx: ImportContext,
    empty: EmptyCounter,
) -> Iterator[ConversationMessage]:
    body = as_dict(m.get("Body"))
    content = as_str(body.get("Content"))
    text = html_to_text(content) if as_str(body.get("ContentType")).lower() == "html" else content
    speaker = _teams_from(m)
    system = m.get("From") is None or "systemEventMessage" in content
    chunks = [text] if text.strip() else []
    if system:
        detail = as_dict(m.get("EventDetail"))
        kinds = [
            k for k, v in detail.items() if v not in (None, [], {}) and k not in ("Initiator",)
        ]
        kind = (
            as_str(detail.get("@odata.type")) or as_str(detail.get("EventType")) or ", ".join(kinds)
        )
        chunks.insert(0, f"[system event] {kind}".rstrip())
        if not speaker:
            speaker = as_str(
                as_dict(as_dict(detail.get("Initiator")).get("User")).get("DisplayName")
            )
    attachments = [
        {
            k: as_dict(a).get(k)
            for k in ("Id", "Name", "ContentType", "ContentUrl")
            if as_dict(a).get(k)
        }
        for a in as_list(m.get("Attachments"))
    ]
    chunks += [f"[attachment] {a.get('Name') or a.get('ContentUrl')}" for a in attachments if a]
    if not chunks:
        empty.n += 1
        return
    thread = _teams_thread(m)
    mentioned = []
    for x in map(as_dict, as_list(m.get("Mentions"))):
        who = as_dict(x.get("Mentioned"))
        name = as_str(as_dict(who.get("User")).get("DisplayName")) or as_str(x.get("MentionText"))
        if name:
            mentioned.append(name)
    listeners = mentioned
    if not listeners and not system and thread.endswith("@unq.gbl.spaces"):
        listeners = [p for p in members.get(thread, []) if p != speaker]
    ts = iso_ts(m.get("CreatedDateTime"))
    if ts is None:
        ctx.warn(loc, "no readable CreatedDateTime; time left unknown")
    reply = as_str(m.get("ReplyToId"))
    yield message(
        chunks,
        speaker=speaker or None,
        listeners=listeners,
        timestamp=ts,
        id=f"teams:{as_str(m.get('Id'))}",
        source_id=loc,
        format="teams",
        thread=thread,
        reply_to=f"teams:{reply}" if reply else None,
        subject=as_str(m.get("Subject")),
        tags=[SYSTEM_TAG] if system else [],
        extra={
            "message_type": as_str(m.get("MessageType")),
            "created": as_str(m.get("CreatedDateTime")),
            "edited": iso_ts(m.get("LastEditedDateTime")),
            "deleted": iso_ts(m.get("DeletedDateTime")),
            "importance": as_str(m.get("Importance")) if m.get("Importance") != "normal" else None,
            "attachments": [a for a in attachments if a],
            "reactions": [
                {
                    "type": as_str(r.get("ReactionType")),
                    "user": as_str(as_dict(as_dict(r.get("User")).get("User")).get("DisplayName")),
                }
                for r in map(as_dict, as_list(m.get("Reactions")))
            ],
        },
    )
