"""X/Twitter archive direct messages: ``data/direct-messages.js`` and
``direct-messages-group.js`` (``twitter-dm``).

Shape (the archive's own ``README.txt``; readers of real archives such as
alkihis/twitter-archive-reader; found with the code search): a JavaScript file
``window.YTD.direct_messages.part0 = [ ... ]`` (``direct_messages_group`` for group
chats) holding ``{"dmConversation": {"conversationId", "name"?, "messages": [...]}}``;
each event is one of ``messageCreate`` (``id``, ``senderId``, ``recipientId`` (one-to-one
only), ``text``, ``createdAt``, ``urls: [{url, expanded, display}]``, ``mediaUrls``,
``reactions: [{senderId, reactionKey, eventId, createdAt}]``),
``joinConversation``, ``participantsJoin`` / ``participantsLeave`` (``userIds``,
``initiatingUserId``), ``conversationNameUpdate``. Events are newest first.

Decisions:
- speaker = the sender's user id, or the archive owner's ``username`` when the id is
  the account's (from ``account.js`` beside the file); listeners = ``recipientId``, or in
  a group everyone else seen in the conversation (senders, joined users).
- text = ``text`` with each ``t.co`` link replaced by its ``expanded`` URL; media
  ``[media URL]`` chunks; ``reactions`` in ``extra``. The archive writes ``&``, ``<``
  and ``>`` in DM text as ``&amp;``, ``&lt;``, ``&gt;``, as it does in ``tweets.js``
  (the API's escaping; archive readers unescape both): those three are unescaped, and
  no other entity (a user's literal ``&quot;`` stays), the text as written in
  ``extra.text``.
- Conversation events (joins, leaves, renames) are kept as messages tagged ``system``
  (``[participantsJoin] 123, 456``); an event that is none of these is rejected.
- thread = ``conversationId``, subject = the group ``name``; id = ``twitter:<id>``;
  timestamp = ``createdAt`` (an event without a readable one is kept without a time,
  warned about at its place); each conversation in time order (oldest first).
- The file is read whole (at most 512 MiB): the JSON after the ``= `` assignment.

Ids and their scope (docs/ids.md): Twitter's message ids are unique everywhere
(``twitter:<id>``, no scope).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from convo.core.errors import InputError
from convo.core.io import MAX_DOCUMENT_BYTES, Source, parse_json
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import SYSTEM_TAG
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.jsoninput import as_dict, as_list, as_str, json_head
from convo.importers.registry import Format

NAME = "twitter-dm"
_ASSIGN = re.compile(rb"^\s*window\.YTD\.([A-Za-z0-9_]+)\.part\d+\s*=\s*")
EVENTS = ("joinConversation", "participantsJoin", "participantsLeave", "conversationNameUpdate")


def sniff(source: Source) -> int:
    text = json_head(source)
    if re.match(r"window\.YTD\.direct_messages(_group)?\.part\d+\s*=", text):
        return 95
    return 0


def load_ytd(source: Source) -> tuple[str, Any]:
    """The data name (``direct_messages``...) and the JSON value of a ``window.YTD`` file."""
    data = source.read_bytes(MAX_DOCUMENT_BYTES).removeprefix(b"\xef\xbb\xbf")
    m = _ASSIGN.match(data)
    if m is None:
        raise InputError("not an X/Twitter archive data file (window.YTD...)", where=source.name)
    return m.group(1).decode(), parse_json(data[m.end() :], source.name)


def archive_owner(source: Source) -> tuple[str, str]:
    """(account id, username) from ``account.js`` beside the file, when there is one."""
    if source.path is None or source.is_stdin:
        return "", ""
    path = source.path.parent / "account.js"
    if not path.is_file():
        return "", ""
    try:
        _, value = load_ytd(Source(path))
    except InputError:
        return "", ""
    account = as_dict(as_dict(next(iter(as_list(value)), {})).get("account"))
    return as_str(account.get("accountId")), as_str(account.get("username"))


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    kind, value = load_ytd(source)
    owner = archive_owner(source)
    for c, item in enumerate(as_list(value), 1):
        conv = as_dict(as_dict(item).get("dmConversation"))
        if not isinstance(conv.get("messages"), list):
            ctx.reject(ctx.loc(f"conv-{c}"), "not a dmConversation with messages", item)
            continue
        yield from _conversation(conv, c, ctx, owner, group=kind.endswith("group"))


def _people(events: list[Any]) -> list[str]:
    seen: dict[str, None] = {}
    for ev in events:
        for body in as_dict(ev).values():
            b = as_dict(body)
            for key in ("senderId", "recipientId", "initiatingUserId"):
                if as_str(b.get(key)):
                    seen[as_str(b[key])] = None
            for uid in as_list(b.get("userIds")) + as_list(b.get("participantsSnapshot")):
                seen[as_str(uid)] = None
    return [p for p in seen if p]


class _Conv:
    """One conversation: its thread, subject, people and the owner's name."""

    def __init__(self, conv: dict[str, Any], thread: str, owner: tuple[str, str], group: bool):
        self.thread = thread
        self.subject = as_str(conv.get("name")) or None
        self.people = _people(conv["messages"])
        self.owner = owner
        self.group = group or None

    def name(self, uid: str) -> str:
        return self.owner[1] if uid and uid == self.owner[0] and self.owner[1] else uid


def _conversation(
    conv: dict[str, Any], c: int, ctx: ImportContext, owner: tuple[str, str], group: bool
) -> Iterator[ConversationMessage]:
    cv = _Conv(conv, as_str(conv.get("conversationId")) or ctx.loc(f"conv-{c}"), owner, group)
    rows = []
    for k, ev in enumerate(conv["messages"], 1):
        loc = ctx.loc(f"conv-{c}.msg-{k}")
        kind, body = next(iter(as_dict(ev).items()), ("", None))
        if kind not in ("messageCreate", *EVENTS) or not isinstance(body, dict):
            ctx.reject(loc, f"not a DM event ({kind or 'empty'})", ev)
            continue
        rows.append((iso_ts(body.get("createdAt")) or "", -k, kind, body, loc))
    for ts, _, kind, body, loc in sorted(rows, key=lambda r: (r[0], r[1])):
        if not ts:
            ctx.warn(loc, "no readable createdAt; time left unknown")
        yield _event(kind, body, ts, loc, cv)


def _event(kind: str, body: dict[str, Any], ts: str, loc: str, cv: _Conv) -> ConversationMessage:
    sender = as_str(body.get("senderId")) or as_str(body.get("initiatingUserId"))
    tags: list[str] = []
    if kind == "messageCreate":
        hearers = [as_str(body["recipientId"])] if body.get("recipientId") else cv.people
        chunks, extra = _text(body)
    else:
        hearers, extra, tags = cv.people, {"event": body}, [SYSTEM_TAG]
        chunks = [_event_text(kind, body)]
    speaker = cv.name(sender)
    extra.update(sender_id=sender if speaker != sender else None, group=cv.group)
    return message(
        chunks,
        speaker=speaker or None,
        listeners=[cv.name(h) for h in hearers if h != sender],
        timestamp=ts or None,
        id=f"twitter:{as_str(body.get('id'))}" if body.get("id") else None,
        source_id=loc,
        format=NAME,
        thread=cv.thread,
        subject=cv.subject,
        tags=tags,
        extra=extra,
    )


_ESCAPED = re.compile(r"&(amp|lt|gt);")
_PLAIN = {"amp": "&", "lt": "<", "gt": ">"}
_TCO = re.compile(r"https?://t\.co/[0-9A-Za-z]+")


def expanded(text: str, urls: Any, key: str, dropped: Iterable[str] = ()) -> str:
    """An archive's text as written: ``&amp;``, ``&lt;`` and ``&gt;`` unescaped, each
    ``t.co`` link ``urls`` lists (``[{url, KEY}]``) replaced by its ``key`` URL, each of
    ``dropped`` (a medium's link) taken out. One pass over the text, however many links
    (a replace a link was quadratic: 40,000 links in a 2 MB text took 9 s)."""
    links: dict[str, str] = {}
    for u in as_list(urls):
        link = as_dict(u)
        url, full = as_str(link.get("url")), as_str(link.get(key))
        if url and full:
            links.setdefault(url, full)
    for url in dropped:
        links.setdefault(url, "")
    text = _ESCAPED.sub(lambda m: _PLAIN[m[1]], text)
    return _TCO.sub(lambda m: links.get(m[0], m[0]), text) if links else text


def _text(body: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    raw = as_str(body.get("text"))
    text = expanded(raw, body.get("urls"), "expanded")
    chunks = [text] + [f"[media {as_str(m)}]" for m in as_list(body.get("mediaUrls"))]
    extra: dict[str, Any] = {
        "reactions": as_list(body.get("reactions")),
        "urls": as_list(body.get("urls")),
    }
    if text != raw and "&" in raw:
        extra["text"] = raw  # as the archive wrote it, escaped
    return chunks, extra


def _event_text(kind: str, body: dict[str, Any]) -> str:
    if kind == "conversationNameUpdate":
        return f"[{kind}] {as_str(body.get('name'))}"
    ids = as_list(body.get("userIds")) or as_list(body.get("participantsSnapshot"))
    return f"[{kind}] {', '.join(as_str(i) for i in ids)}".rstrip()


DESCRIPTION = "X/Twitter archive direct messages (direct-messages.js, direct-messages-group.js)"
EXAMPLE = (
    'window.YTD.direct_messages.part0 = [{"dmConversation": {"conversationId": "1-2", '
    '"messages": [{"messageCreate": {"id": "9", "senderId": "1", "recipientId": "2", '
    '"text": "hi", "createdAt": "2022-03-01T10:00:00.000Z"}}]}}]'
)
FIELDS = Fields(
    speaker="the sender's user id, or the archive owner's `username` (from `account.js`)",
    listeners="`recipientId`; in a group, everyone else seen in the conversation",
    time="`createdAt`",
    zone="the offset the source writes (UTC `Z`); a naive time is read as UTC, not in `--tz`",
    thread="`conversationId`",
    id="`twitter:<id>`; conversation events without an id: " + CONTENT_HASH,
    scope="none: Twitter's message ids are unique everywhere",
    subject="a group's `name`",
    tags="`system` on joins, leaves and renames",
    extra="`reactions`, `urls` (`t.co` links expanded in the text), `sender_id`, `text` (as "
    "written, when it had `&amp;`, `&lt;` or `&gt;`)",
)

FORMATS = (
    Format(
        NAME, "chat", DESCRIPTION, ("direct-messages*.js",), sniff, read, EXAMPLE, fields=FIELDS
    ),
)
