"""Skype chat history from Microsoft's "Export files and chat history" (``messages.json``).

Shape (the export's ``messages.json``, as Skyperious ``live.SkypeExport`` and
skype-export-parser read it): ``{"userId": "8:live:ann", "exportDate", "conversations":
[{"id", "displayName", "properties", "threadProperties": {"topic", "members",
"membercount"} | null, "MessageList": [{"id", "displayName", "originalarrivaltime",
"messagetype", "version", "content", "conversationid", "from", "properties",
"amsreferences"}]}]}``. Conversation ids: ``8:<name>`` (a 1:1 chat, named for the other
person), ``19:...@thread.skype`` (a group), ``28:...`` (a bot), ``48:calllogs``.
``content`` is Skype's XML-ish rich text: ``<b>``, ``<i>``, ``<a>``, emoticons
``<ss type="smile">:)</ss>``, mentions ``<at id="8:bob">Bob</at>``, quotes ``<quote
author authorname messageid><legacyquote>...</legacyquote>text</quote>``, the edit mark
``<e_m .../>``; calls (``Event/Call``) are ``<partlist type="started|ended"><part
identity><name/><duration/></part></partlist>``; files and photos
(``RichText/UriObject``, ``RichText/Media_*``) a ``<URIObject>`` with ``<OriginalName
v>``; group events (``ThreadActivity/*``) ``<addmember><initiator/><target/></addmember>``
and the like. Message ``properties`` can hold ``edittime``, ``deletetime``,
``isserversidegenerated`` and ``emotions`` (reactions).

Decisions:
- One conversation at a time (the ``conversations`` array streamed, each read whole),
  its messages in time order (the export lists them newest first).
- speaker = the message's ``displayName``, else the name the sender had elsewhere in
  the export (a 1:1 chat's ``displayName`` names its other person), else the account
  name without its ``8:`` prefix; listeners = the ``<at>`` mentions, else in a 1:1 chat
  the other person.
- text = the rich text through ``html_to_text`` (line breaks kept, emoticons as their
  text, a quote as ``> Name: ...`` lines, the quoted message in ``replyTo``); calls,
  files, contacts, locations and group events as one ``[call ended, 1m24s]``-style
  line, tagged ``system`` when nothing was written; the file's name, size and uri in
  ``extra.file``, reactions in ``extra.reactions``, ``edited`` when edited.
- A deleted message (``deletetime``, or nothing left but the edit mark) and a
  server-generated one with no content are skipped and counted in one warning; an
  older copy of an edited message (the same id, seen after its newest copy) is
  skipped and counted too. A message without ``from`` or a conversation that is not an
  object is rejected with its location (``file:line`` of its conversation); one whose
  ``originalarrivaltime`` is missing or does not read is kept without a time, warned
  about at its place.

Ids and their scope (docs/ids.md): a message id is unique within its conversation, so
the id names the conversation: ``skype:<conversation id>:<id>``; a 1:1 chat's id names
the other person only, so its scope is the two accounts, sorted
(``skype:8:live:ann+8:live:bob:<id>``): both people's exports give the same ids.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.text.html import html_to_text
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter
from convo.importers.build import message, scoped_id
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head_with
from convo.importers.registry import Format

NAME = "skype"


def sniff(source: Source) -> int:
    text = json_head_with(source, '"conversations"', opens="{")
    if not text:
        return 0
    if has_key(text, "MessageList") or has_key(text, "originalarrivaltime"):
        return 90
    if has_key(text, "exportDate") and has_key(text, "userId"):
        return 85
    return 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("conversations",))
    head = doc.expect("not a Skype export (no conversations list)", need=("userId",))
    if doc.root != "{":
        doc.close()
        raise InputError("not a Skype export (expected a JSON object)", where=source.name)
    user = as_str(head.get("userId"))
    names: dict[str, str] = {}
    skipped = _Skipped()
    for c, (chat, line) in enumerate(doc.items(), 1):
        where = ctx.loc(line) if line else ctx.loc(f"conversation-{c}")
        if not isinstance(chat, dict):
            ctx.reject(where, "not a Skype conversation (not an object)", chat)
            continue
        yield from _conversation(chat, where, user, names, ctx, skipped)
    skipped.report(ctx)


class _Skipped:
    def __init__(self) -> None:
        self.empty, self.deleted, self.older = EmptyCounter(), EmptyCounter(), EmptyCounter()

    def report(self, ctx: ImportContext) -> None:
        self.empty.report(ctx, "empty server-generated messages")
        self.deleted.report(ctx, "deleted messages (no content left)")
        self.older.report(ctx, "older copies of edited messages (the newest kept)")


@dataclass
class _Chat:
    """One conversation: what its messages' records share."""

    id: str
    scope: str | None  # the module docstring
    thread: str | None
    one_to_one: bool
    user: str  # whose export it is
    names: dict[str, str]  # account -> display name, across the export


def _chat(chat: dict[str, Any], user: str, names: dict[str, str]) -> _Chat:
    cid = as_str(chat.get("id"))
    topic = as_str(as_dict(chat.get("threadProperties")).get("topic"))
    title = as_str(chat.get("displayName"))
    one_to_one = cid.startswith("8:")
    if one_to_one and title:
        names.setdefault(cid, title)
    for m in map(as_dict, as_list(chat.get("MessageList"))):  # names before the first message
        if as_str(m.get("from")) and as_str(m.get("displayName")):
            names[as_str(m["from"])] = as_str(m["displayName"])
    scope = "+".join(sorted((user, cid))) if one_to_one and user else cid or None
    return _Chat(cid, scope, title or topic or _account(cid) or None, one_to_one, user, names)


def _older_copies(msgs: list[Any]) -> set[int]:
    """The numbers of the copies of an id after its first (the export lists an edited
    message's newest copy first)."""
    seen: set[str] = set()
    older: set[int] = set()
    for k, m in enumerate(msgs, 1):
        mid = as_str(as_dict(m).get("id"))
        if mid in seen:
            older.add(k)
        elif mid:
            seen.add(mid)
    return older


def _conversation(
    raw: dict[str, Any],
    where: str,
    user: str,
    names: dict[str, str],
    ctx: ImportContext,
    skipped: _Skipped,
) -> Iterator[ConversationMessage]:
    chat = _chat(raw, user, names)
    msgs = as_list(raw.get("MessageList"))
    older = _older_copies(msgs)
    numbered = sorted(
        enumerate(msgs, 1), key=lambda km: as_str(as_dict(km[1]).get("originalarrivaltime"))
    )
    for k, m in numbered:
        here = f"{where}#msg-{k}"
        if not isinstance(m, dict) or not as_str(m.get("from")):
            ctx.reject(here, "not a Skype message (no from)", m)
        elif k in older:
            skipped.older.skip(here)
        elif (rec := _message(m, here, chat, skipped)) is not None:
            if iso_ts(m.get("originalarrivaltime")) is None:
                ctx.warn(here, "no readable originalarrivaltime; time left unknown")
            yield rec


def _account(identity: str) -> str:
    """``live:bob`` from ``8:live:bob`` (the numeric type prefix dropped)."""
    return re.sub(r"^\d+:", "", identity)


def _name(identity: str, names: dict[str, str]) -> str:
    return names.get(identity) or _account(identity)


def _skipped(props: dict[str, Any], content: str, skipped: _Skipped, where: str) -> bool:
    """Whether the message is deleted or empty (and counted so)."""
    if props.get("deletetime"):
        skipped.deleted.skip(where)
        return True
    if not content.strip():
        counter = skipped.empty if props.get("isserversidegenerated") else skipped.deleted
        counter.skip(where)
        return True
    return False


def _listeners(sender: str, parts: _Parts, chat: _Chat) -> list[str]:
    heard = [_name(i, chat.names) for i in parts.mentions]
    if not heard and chat.one_to_one:
        other = chat.user if sender != chat.user else chat.id
        heard = [_name(other, chat.names)] if other else []
    return heard


def _message(
    m: dict[str, Any], where: str, chat: _Chat, skipped: _Skipped
) -> ConversationMessage | None:
    sender = as_str(m["from"])
    props = as_dict(m.get("properties"))
    kind = as_str(m.get("messagetype"))
    content = as_str(m.get("content"))
    if _skipped(props, content, skipped, where):
        return None
    parts = _Parts(content)
    text, system, extra = _text(kind, content, parts, chat.names)
    if not text.strip() and not extra:
        skipped.deleted.skip(where)  # only the edit mark was left
        return None
    speaker = _name(sender, chat.names)
    quoted = as_str(parts.attrs("quote").get("messageid"))
    mid = as_str(m.get("id"))
    return message(
        text,
        speaker=speaker or None,
        listeners=_listeners(sender, parts, chat),
        timestamp=iso_ts(m.get("originalarrivaltime")),
        id=scoped_id(NAME, chat.scope, mid) if mid else None,
        source_id=where,
        format=NAME,
        thread=chat.thread,
        reply_to=scoped_id(NAME, chat.scope, quoted) if quoted else None,
        tags=[SYSTEM_TAG] if system else [],
        extra={
            "account": _account(sender) if _account(sender) != speaker else None,
            "messagetype": kind if kind not in ("RichText", "Text") else None,
            "edited": True if props.get("edittime") or "e_m" in parts.tags else None,
            "reactions": _reactions(props, chat.names),
            **extra,
        },
    )


def _reactions(props: dict[str, Any], names: dict[str, str]) -> list[dict[str, Any]]:
    emotions = props.get("emotions")
    if isinstance(emotions, str):  # sometimes a JSON string
        try:
            emotions = json.loads(emotions)
        except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
            return []
    out = []
    for e in map(as_dict, as_list(emotions)):
        users = [_name(as_str(u.get("mri")), names) for u in map(as_dict, as_list(e.get("users")))]
        if as_str(e.get("key")):
            out.append({"key": as_str(e["key"]), "by": [u for u in users if u]})
    return out


class _Parts(HTMLParser):
    """The elements of one message's content: each tag's first attributes and text, the
    ``<at>`` mentions, the call's parties (never raises on bad markup)."""

    def __init__(self, content: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: dict[str, dict[str, str]] = {}
        self.texts: dict[str, list[str]] = {}
        self.mentions: list[str] = []
        self.calls: list[dict[str, str]] = []
        self.open: list[str] = []
        try:
            self.feed(content)
            self.close()
        except (AssertionError, ValueError):  # pragma: no cover - html.parser is lenient
            pass

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.tags.setdefault(tag, values)
        if tag == "at" and values.get("id"):
            self.mentions.append(values["id"])
        if tag == "part":
            self.calls.append({"identity": values.get("identity", "")})
        self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.setdefault(tag, {k: v or "" for k, v in attrs})

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            while self.open and self.open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self.open:
            self.texts.setdefault(self.open[-1], []).append(data)
            if self.calls and self.open[-1] in ("name", "duration") and "part" in self.open:
                self.calls[-1][self.open[-1]] = data.strip()

    def attrs(self, tag: str) -> dict[str, str]:
        return self.tags.get(tag, {})

    def text(self, tag: str) -> str:
        return "".join(self.texts.get(tag, [])).strip()


_EDIT_PREFIX = "Edited previous message: "
_EDIT_MARK = re.compile(r"<e_m\b[^>]*?(?:/>|>.*?</e_m>)", re.S)
_LEGACY = re.compile(r"<legacyquote\b[^>]*>.*?</legacyquote>", re.S)
_QUOTE = re.compile(r"<quote\b([^>]*)>", re.S)
_AUTHOR = re.compile(r'authorname="([^"]*)"')
_MEDIA = {
    "RichText/UriObject": "photo", "RichText/Media_Video": "video",
    "RichText/Media_AudioMsg": "voice message", "RichText/Media_GenericFile": "file",
    "RichText/Media_CallRecording": "call recording", "RichText/Media_Album": "album",
    "RichText/Media_Card": "card", "RichText/Media_FlikMsg": "moji",
}  # fmt: skip


def _rich_text(content: str) -> str:
    """Skype's rich text as plain text: line breaks kept, the edit mark dropped, a quote
    as ``> Name: ...`` lines (its legacy-client copy dropped)."""
    if content.startswith(_EDIT_PREFIX):
        content = content[len(_EDIT_PREFIX) :]
    content = _EDIT_MARK.sub("", content)
    content = _LEGACY.sub("", content)

    def quote(m: re.Match[str]) -> str:
        author = _AUTHOR.search(m.group(1))
        return "<blockquote>" + (f"{author.group(1)}: " if author else "")

    content = _QUOTE.sub(quote, content).replace("</quote>", "</blockquote>")
    return html_to_text(content.replace("\r\n", "\n").replace("\n", "<br>"))


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return 0.0
    return value if math.isfinite(value) and 0 <= value < 1e9 else 0.0


def _duration(seconds: str) -> str:
    total = round(_seconds(seconds))
    if not total:
        return ""
    h, rest = divmod(total, 3600)
    mins, secs = divmod(rest, 60)
    return (f"{h}h" if h else "") + (f"{mins}m" if h or mins else "") + f"{secs}s"


_Made = tuple[str, bool, dict[str, Any]]  # (text, an event rather than written, extra keys)


def _call(kind: str, content: str, parts: _Parts, names: dict[str, str]) -> _Made:
    state = parts.attrs("partlist").get("type") or ""
    durations = [c["duration"] for c in parts.calls if c.get("duration")]
    took = _duration(max(durations, key=_seconds)) if durations and state == "ended" else ""
    who = [c.get("name") or _name(c["identity"], names) for c in parts.calls]
    line = "[call" + (f" {state}" if state else "") + (f", {took}" if took else "") + "]"
    return line, True, {"call": {"type": state or None, "parties": [w for w in who if w]}}


def _media(kind: str, content: str, parts: _Parts, names: dict[str, str]) -> _Made:
    obj = parts.attrs("uriobject")
    file = {
        "name": parts.attrs("originalname").get("v"),
        "size": parts.attrs("filesize").get("v"),
        "uri": obj.get("uri") or obj.get("url_thumbnail"),
    }
    file = {k: v for k, v in file.items() if v}
    line = f"[{_MEDIA.get(kind, 'file')}] {file.get('name') or parts.text('title')}"
    return line.rstrip(), False, {"file": file}


def _contact(kind: str, content: str, parts: _Parts, names: dict[str, str]) -> _Made:
    card = parts.attrs("c")
    return f"[contact] {card.get('f') or card.get('s') or ''}".rstrip(), False, {}


def _location(kind: str, content: str, parts: _Parts, names: dict[str, str]) -> _Made:
    loc = parts.attrs("location")
    where = loc.get("address") or html_to_text(content)
    return f"[location] {where}".rstrip(), False, {"location": loc}


def _poll(kind: str, content: str, parts: _Parts, names: dict[str, str]) -> _Made:
    return f"[poll] {html_to_text(content)}".rstrip(), False, {}


_MADE = {"Event/Call": _call, "RichText/Contacts": _contact, "RichText/Location": _location,
         "Poll": _poll, **dict.fromkeys(_MEDIA, _media)}  # fmt: skip


def _text(kind: str, content: str, parts: _Parts, names: dict[str, str]) -> _Made:
    """(text, whether it is an event rather than something written, extra keys)."""
    made = _MADE.get(kind) or (_media if "uriobject" in parts.tags else None)
    if made is not None:
        return made(kind, content, parts, names)
    if kind.startswith("ThreadActivity/"):
        return _activity(kind, parts, names), True, {}
    written = kind in ("RichText", "Text", "")
    if not written and {"eventtime", "initiator"} & parts.tags.keys():
        # an event of a kind not known here (``InviteFreeRelationshipChanged/Initialized``:
        # ``<initialized><eventtime/><initiator/></initialized>``): its kind, not its fields
        return f"[{kind}]", True, {}
    # text, and kinds not known here (Notice, PopCard...): their text, tagged system
    return _rich_text(content), not written, {}


def _activity(kind: str, parts: _Parts, names: dict[str, str]) -> str:
    """A group event as one line (``[added live:bob]``, ``[topic: Trip]``)."""
    event = kind.split("/", 1)[1]
    target = parts.text("target") or parts.text("id")
    value = parts.text("value")
    if event == "AddMember":
        return f"[added {_name(target, names)}]".rstrip()
    if event == "DeleteMember":
        return f"[removed {_name(target, names)}]".rstrip()
    if event == "TopicUpdate":
        return f"[topic: {value}]"
    if event == "PictureUpdate":
        return "[changed the group picture]"
    return f"[{event}{': ' + value if value else ''}]"


DESCRIPTION = "Skype export messages.json (Microsoft's export: conversations, MessageList)"
EXAMPLE = (
    '{"userId": "8:live:ann", "exportDate": "2024-03-06T10:00", "conversations": [{"id": '
    '"8:live:bob", "displayName": "Bob", "MessageList": [{"id": "1709719200000", "from": '
    '"8:live:bob", "displayName": "Bob", "originalarrivaltime": "2024-03-06T10:00:00.000Z", '
    '"messagetype": "RichText", "content": "Hi <ss type=\\"smile\\">:)</ss>"}]}]}'
)
FIELDS = Fields(
    speaker="the message's `displayName`, else the sender's name seen elsewhere in the "
    "export, else the account (`from` without its `8:` prefix)",
    listeners="the `<at>` mentions, else in a 1:1 chat the other person",
    time="`originalarrivaltime`",
    zone="the offset the source writes (UTC `Z`); a naive time is read as UTC, not in `--tz`",
    thread="the conversation's `displayName`, else its topic, else its id",
    id="`skype:<conversation id>:<id>`; a 1:1 chat: `skype:<account>+<account>:<id>` "
    "(the two accounts sorted)",
    scope="the conversation (message ids are unique in it); a 1:1 chat's two accounts, "
    "so both people's exports give one id",
    reply_to="the quoted message (`<quote messageid>`)",
    tags="`system` for calls and group events",
    extra="`account`, `messagetype` (other than text), `edited`, `reactions`, `file` "
    "(name, size, uri), `call` (type, parties), `location`",
)

FORMATS = (
    Format(
        NAME, "chat", DESCRIPTION, ("messages.json", "*.json"), sniff, read, EXAMPLE, fields=FIELDS
    ),
)
