"""Zulip messages: the REST API's ``GET /messages`` answer and an organization export's
``messages-NNNNNN.json`` (``zulip``).

Shapes:
- The API (zulip.com/api/get-messages; what API archivers save): ``{"result":
  "success", "messages": [{"id", "sender_id", "sender_full_name", "sender_email",
  "sender_realm_str", "timestamp" (epoch seconds), "content" (HTML, or Markdown when
  asked with ``apply_markdown=false``), "content_type", "type": "stream" | "private",
  "display_recipient" (the channel's name, or the list of a direct message's users
  ``[{"id", "email", "full_name"}]``), "stream_id", "subject" (the topic), "reactions":
  [{"emoji_name", "user_id", "user": {"full_name"}}], "last_edit_timestamp", "client",
  "flags"}]}``; a bare array of such messages, or one a line, too.
- The organization export (``manage.py export``, "Export organization" in the web app;
  ``zerver/lib/export.py``): ``messages-000001.json`` = ``{"zerver_message": [{"id",
  "sender" (user id), "recipient" (recipient id), "subject", "content" (Markdown),
  "rendered_content" (HTML), "date_sent" (epoch seconds), "last_edit_time",
  "sending_client", "edit_history", "has_attachment"}], "zerver_usermessage": [...]}``;
  names are in ``realm.json`` beside it (``zerver_userprofile`` ``{"id", "full_name"}``,
  ``zerver_recipient`` ``{"id", "type": 1 user | 2 channel | 3 group, "type_id"}``,
  ``zerver_stream`` ``{"id", "name"}``, ``zerver_realm`` ``[{"string_id"}]``).

Decisions:
- speaker = ``sender_full_name`` (the export: the sender's ``full_name`` in realm.json,
  else ``user <id>``, warned once when realm.json is not beside the file); listeners =
  the mentioned users (``<span class="user-mention" data-user-id>``), else a direct
  message's other users. A mention is rendered with the name its user had when it was
  sent (``@Brooke Jarrett  (S2'18)``): it is named as the user speaks in the file (the
  ``sender_full_name`` of their messages so far, their reactions' ``full_name``), else
  as rendered.
- text = the HTML (``content`` when it is HTML, the export's ``rendered_content``)
  through ``html_to_text``; Markdown as written when there is no HTML. The previews
  Zulip adds below a message (``message_inline_image``, ``message_embed``: an image or
  a page the message links to, rendered by the server) are not text: an image whose link
  the message does not show reads ``[image] URL``, the rest is left out. A formula reads
  as its TeX (``$$\\langle F \\rangle$$``, from KaTeX's annotation), not twice over as
  KaTeX's MathML and its drawing.
- A ``/me`` message (``is_me_message``; the export: ``content`` starting ``/me `` and
  rendered ``<p>/me ``, Zulip's ``Message.is_status_message``) is tagged ``action``, its
  text what follows ``/me`` (as IRC's and Matrix's actions).
- A poll (``/poll``: a widget whose question, options and votes are the message's
  ``submessages``, ``web/shared/src/poll_data.ts``) reads ``[poll] question: option
  (votes), ...`` with the votes as they stand after every change (a vote of ``-1``
  withdraws one), in ``extra.poll`` too; the ``/poll`` command text it replaces is
  left out.
- thread = ``<channel> > <topic>`` (Zulip's own narrow), a direct message's users'
  names joined by ``, ``; subject = the topic.
- time = ``timestamp`` / ``date_sent``; reactions, ``edited`` (the last edit time),
  the client, the channel id in ``extra``.
- An item that is not a message (no id or no sender), or without its time (``timestamp``,
  ``date_sent``) or whose time does not read, is rejected with its location.

Ids and their scope (docs/ids.md): message ids are numbered per Zulip server, so the id
names the organization: ``zulip:<realm>:<id>`` with ``sender_realm_str`` (the API) or
``zerver_realm.string_id`` (realm.json), else the folder the file is in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from convo.core.io import Source, load_json
from convo.core.record import ConversationMessage
from convo.core.text.html import html_to_text
from convo.core.timestamps import parse_any
from convo.importers.agents.samples import iter_samples, messages_of
from convo.importers.apps.zulip_files import EXPORT_FILES, export_file
from convo.importers.build import message, scoped_id, source_scope
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head_with
from convo.importers.registry import Format

NAME = "zulip"


def sniff(source: Source) -> int:
    text = json_head_with(source)
    if not text:
        return 0
    if text.startswith("{") and has_key(text, "zerver_message"):
        return 90
    if has_key(text, "sender_full_name") and (
        has_key(text, "display_recipient") or has_key(text, "sender_realm_str")
    ):
        return 90
    return 80 if EXPORT_FILES.search(text) else 0


@dataclass
class _Realm:
    """What names the export's ids: users, recipients, channels (from realm.json)."""

    users: dict[int, str] = field(default_factory=dict)
    recipients: dict[int, tuple[int, int]] = field(default_factory=dict)  # id -> (type, type_id)
    streams: dict[int, str] = field(default_factory=dict)
    string_id: str = ""
    known: bool = False


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if export_file(source, ctx):
        return
    head = json_head_with(source)
    if head.startswith("{") and has_key(head, "zerver_message"):
        yield from _read_export(source, ctx)
        return
    if head.startswith("{"):
        doc = StreamedDoc(source, ("messages",))
        doc.expect("not a Zulip answer (no messages list)")
        items: Iterator[tuple[Any, str]] = ((m, ctx.loc(line)) for m, line in doc.items())
    else:
        items = _samples(source, ctx)
    scope: str | None = ""
    names: dict[int, str] = {}  # user id -> full name, from the senders and reactions so far
    for item, where in items:
        if not _is_api_message(item):
            ctx.reject(where, "not a Zulip message (no id or sender)", item)
            continue
        if scope == "":
            realm = as_str(item.get("sender_realm_str"))
            scope = source_scope(
                source, ctx, realm, what="Zulip organization", example="zulip:<id>"
            )
        _learn_names(item, names)
        if item.get("timestamp") is None:
            ctx.reject(where, "Zulip message without a timestamp", item)
            continue
        try:
            made = _api_message(item, where, scope, names)
        except ValueError as e:  # parse_any: an unreadable time
            ctx.reject(where, str(e), item)
            continue
        yield made


def _samples(source: Source, ctx: ImportContext) -> Iterator[tuple[Any, str]]:
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        for k, item in enumerate(messages_of(sample), 1):
            yield item, (where if loc != "doc" else ctx.loc(f"msg-{k}"))


def _is_api_message(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and "id" in item
        and ("sender_id" in item or "sender_full_name" in item)
    )


_MENTION = re.compile(r'class="user-mention[^"]*"[^>]*data-user-id="(\d+)"[^>]*>@?\**([^<]*?)\**<')


def _mentions(html: str, names: dict[int, str] | None = None) -> list[str]:
    """The users an HTML message mentions (``@**Name**`` rendered), by name."""
    out = []
    for uid, shown in _MENTION.findall(html):
        name = (names or {}).get(int(uid)) or " ".join(shown.split())
        if name and uid != "*":
            out.append(name)
    return out


def _text(html: str, markdown: str) -> str:
    return html_to_text(_without_previews(html)) if html else markdown


_ME_HTML = re.compile(r"<p>/me ")
_PREVIEW = re.compile(r'<div class="(?:[\w-]+ )*(message_inline_image|message_embed)(?: [\w-]+)*">')
_HREF = re.compile(r'<a [^>]*?href="([^"]*)"')


def _without_previews(html: str) -> str:
    """The message without the previews Zulip's server adds below it (an inline image,
    a link's embed): an image whose link the message does not show stays as ``[image]
    URL`` (a message of a bare image link is rendered as its preview alone)."""
    if "message_inline_image" not in html and "message_embed" not in html:
        return html
    parts: list[str] = []
    images: list[tuple[int, str]] = []  # (where in parts, the image's link)
    pos = 0
    for hit in _PREVIEW.finditer(html):
        if hit.start() < pos:  # inside a preview already cut
            continue
        end = _div_end(html, hit.start())
        parts.append(html[pos : hit.start()])
        link = _HREF.search(html, hit.end(), end)
        if hit[1] == "message_inline_image" and link:
            images.append((len(parts), link[1]))
            parts.append("")
        pos = end
    parts.append(html[pos:])
    shown = set(_HREF.findall("".join(parts)))
    for k, href in images:
        if href not in shown:
            parts[k] = f"<p>[image] {href}</p>"
            shown.add(href)
    return "".join(parts)


_DIV_TAG = re.compile(r"<(/?)div\b")


def _div_end(html: str, start: int) -> int:
    """Where the ``<div>`` opening at ``start`` closes (the end of the text when it
    does not)."""
    depth = 0
    for tag in _DIV_TAG.finditer(html, start):
        depth += -1 if tag[1] else 1
        if depth == 0:
            close = html.find(">", tag.end())
            return len(html) if close < 0 else close + 1
    return len(html)


def _poll(value: Any) -> dict[str, Any] | None:
    """A poll widget's question and options with their votes, from the message's
    ``submessages`` in order (Zulip's ``poll_data.ts``: options ``canned,<n>`` from the
    widget's ``extra_data``, ``<sender>,<idx>`` added later; a vote of ``1`` adds the
    sender's vote, ``-1`` takes it back; a ``question`` event renames the poll)."""
    events = _widget_events(value)
    if not events or as_str(events[0][1].get("widget_type")) != "poll":
        return None
    data = as_dict(events[0][1].get("extra_data"))
    question = as_str(data.get("question"))
    options = {f"canned,{k}": as_str(o) for k, o in enumerate(as_list(data.get("options")))}
    voters: dict[str, set[Any]] = {key: set() for key in options}
    for sender, e in events[1:]:
        kind = as_str(e.get("type"))
        if kind == "question":
            question = as_str(e.get("question")) or question
        elif kind == "new_option":
            key = f"{as_str(sender)},{as_str(e.get('idx'))}"
            options[key] = as_str(e.get("option"))
            voters.setdefault(key, set())
        elif kind == "vote" and as_str(e.get("key")) in voters:
            (
                voters[as_str(e.get("key"))].discard
                if e.get("vote") == -1
                else voters[as_str(e.get("key"))].add
            )(sender)
    return {
        "question": question,
        "options": [{"option": o, "votes": len(voters[k])} for k, o in options.items()],
    }


def _widget_events(value: Any) -> list[tuple[Any, dict[str, Any]]]:
    """(sender, event) of each of a message's ``submessages`` whose content is JSON."""
    events = []
    for s in map(as_dict, as_list(value)):
        sender = s.get("sender_id")
        if not isinstance(sender, int | str) or isinstance(sender, bool):
            sender = None  # {} or a list: unhashable, a vote's voter
        try:
            events.append((sender, as_dict(json.loads(as_str(s.get("content"))))))
        except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
            continue
    return events


def _poll_line(poll: dict[str, Any]) -> str:
    votes = ", ".join(f"{o['option']} ({o['votes']})" for o in poll["options"])
    return f"[poll] {poll['question']}: {votes}".rstrip(": ")


def _api_thread(to: Any, topic: str, speaker: str) -> tuple[str, list[str]]:
    """(thread, a direct message's other users): ``display_recipient`` is the channel's
    name, or a direct message's list of users."""
    if isinstance(to, list):
        people = [as_str(as_dict(u).get("full_name")) for u in to]
        return ", ".join(p for p in people if p), [p for p in people if p and p != speaker]
    return (f"{as_str(to)} > {topic}" if topic else as_str(to)), []


def _edited(value: Any) -> str | None:
    """When a message was last edited; None when unknown or unreadable (the message
    itself is kept)."""
    try:
        return parse_any(value)
    except ValueError:
        return None


def _learn_names(m: Any, names: dict[int, str]) -> None:
    """The names a message tells of its users (its sender, its reactions' users), so a
    mention reads as the name its user speaks under, not as rendered when it was sent."""
    if not isinstance(m, dict):
        return
    people = [(m.get("sender_id"), m.get("sender_full_name"))]
    people += [
        (as_dict(r).get("user_id"), as_dict(as_dict(r).get("user")).get("full_name"))
        for r in as_list(m.get("reactions"))
    ]
    for uid, name in people:
        if isinstance(uid, int) and as_str(name):
            names[uid] = as_str(name)


def _api_message(
    m: dict[str, Any], where: str, scope: str | None, names: dict[int, str]
) -> ConversationMessage:
    speaker = as_str(m.get("sender_full_name")) or f"user {as_str(m.get('sender_id'))}"
    content = as_str(m.get("content"))
    is_html = as_str(m.get("content_type")) == "text/html" or content.lstrip().startswith("<")
    topic = as_str(m.get("subject")) or as_str(m.get("topic"))
    thread, others = _api_thread(m.get("display_recipient"), topic, speaker)
    heard = _mentions(content, names) if is_html else []
    mid = as_str(m.get("id"))
    action = m.get("is_me_message") is True or (is_html and _ME_HTML.match(content) is not None)
    if action:
        content = _ME_HTML.sub("<p>", content, count=1) if is_html else content.removeprefix("/me ")
    poll = _poll(m.get("submessages"))
    text = _text(content, "") if is_html else content
    return message(
        [_poll_line(poll)] if poll else text,
        speaker=speaker,
        listeners=heard or others,
        timestamp=parse_any(m.get("timestamp")),
        id=scoped_id(NAME, scope, mid),
        source_id=where,
        format=NAME,
        thread=thread or None,
        subject=topic or None,
        tags=["action"] if action else None,
        extra={
            "poll": poll,
            "email": as_str(m.get("sender_email")),
            "stream_id": m.get("stream_id"),
            "edited": _edited(m.get("last_edit_timestamp")),
            "client": as_str(m.get("client")),
            "reactions": _reactions(m.get("reactions")),
        },
    )


def _reactions(value: Any, names: dict[int, str] | None = None) -> list[dict[str, Any]]:
    by: dict[str, list[str]] = {}
    for r in map(as_dict, as_list(value)):
        emoji = as_str(r.get("emoji_name"))
        uid = r.get("user_id")
        who = as_str(as_dict(r.get("user")).get("full_name"))
        if not who and isinstance(uid, int):
            who = (names or {}).get(uid) or f"user {uid}"
        if emoji:
            by.setdefault(emoji, []).append(who)
    return [{"emoji": e, "by": [w for w in who if w]} for e, who in by.items()]


def _realm(source: Source, ctx: ImportContext) -> _Realm:
    """realm.json beside the file, if there is one (else ids and user numbers only)."""
    realm = _Realm()
    path = None if source.path is None or source.is_stdin else source.path.with_name("realm.json")
    if path is None or not path.is_file():
        ctx.warn(
            source.name,
            "no realm.json beside it: senders are user numbers, channels recipient numbers",
        )
        return realm
    data = as_dict(load_json(Source(path, name=str(PurePath(source.name).with_name("realm.json")))))
    for u in map(
        as_dict,
        [
            *as_list(data.get("zerver_userprofile")),
            *as_list(data.get("zerver_userprofile_crossrealm")),
            *as_list(data.get("zerver_userprofile_mirrordummy")),
        ],
    ):
        if isinstance(u.get("id"), int):
            realm.users[u["id"]] = as_str(u.get("full_name")) or as_str(u.get("email"))
    for r in map(as_dict, as_list(data.get("zerver_recipient"))):
        if isinstance(r.get("id"), int):
            realm.recipients[r["id"]] = (int(r.get("type") or 0), int(r.get("type_id") or 0))
    for s in map(as_dict, as_list(data.get("zerver_stream"))):
        if isinstance(s.get("id"), int):
            realm.streams[s["id"]] = as_str(s.get("name"))
    first = as_dict(next(iter(as_list(data.get("zerver_realm"))), {}))
    realm.string_id = as_str(first.get("string_id"))
    realm.known = True
    return realm


def _read_export(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    realm = _realm(source, ctx)
    scope = source_scope(
        source, ctx, realm.string_id, what="Zulip organization", example="zulip:<id>"
    )
    doc = StreamedDoc(source, ("zerver_message",), skip=("zerver_usermessage",), keep=False)
    doc.expect("not a Zulip export (no zerver_message list)")
    for m, line in doc.items():
        where = ctx.loc(line)
        if not isinstance(m, dict) or "id" not in m or not isinstance(m.get("sender"), int):
            ctx.reject(where, "not a Zulip message (no id or sender)", m)
            continue
        if m.get("date_sent") is None:
            ctx.reject(where, "Zulip message without a date_sent", m)
            continue
        try:
            made = _export_message(m, where, scope, realm)
        except ValueError as e:  # parse_any: an unreadable time
            ctx.reject(where, str(e), m)
            continue
        yield made


def _export_thread(m: dict[str, Any], realm: _Realm, speaker: str) -> tuple[str, list[str]]:
    """(thread, the other users of a direct message)."""
    rid = m.get("recipient")
    kind, type_id = realm.recipients.get(rid, (0, 0)) if isinstance(rid, int) else (0, 0)
    topic = as_str(m.get("subject"))
    if kind == 2:
        channel = realm.streams.get(type_id) or f"channel {type_id}"
        return (f"{channel} > {topic}" if topic else channel), []
    if kind == 1:
        other = realm.users.get(type_id) or f"user {type_id}"
        return ", ".join(sorted({speaker, other})), [other]
    if kind == 3:
        return f"group {type_id}", []
    return (f"recipient {rid} > {topic}" if topic else f"recipient {rid}"), []


def _export_message(
    m: dict[str, Any], where: str, scope: str | None, realm: _Realm
) -> ConversationMessage:
    sender = m["sender"]
    speaker = realm.users.get(sender) or f"user {sender}"
    html = as_str(m.get("rendered_content"))
    markdown = as_str(m.get("content"))
    action = markdown.startswith("/me ") and (not html or _ME_HTML.match(html) is not None)
    if action:
        html, markdown = _ME_HTML.sub("<p>", html, count=1), markdown[4:]
    thread, others = _export_thread(m, realm, speaker)
    topic = as_str(m.get("subject"))
    return message(
        _text(html, markdown),
        speaker=speaker,
        listeners=_mentions(html, realm.users) or others,
        timestamp=parse_any(m.get("date_sent")),
        id=scoped_id(NAME, scope, as_str(m.get("id"))),
        source_id=where,
        format=NAME,
        thread=thread,
        subject=topic or None,
        tags=["action"] if action else None,
        extra={
            "edited": _edited(m.get("last_edit_time")),
            "has_attachment": True if m.get("has_attachment") else None,
        },
    )


DESCRIPTION = "Zulip messages: REST API GET /messages JSON, organization export messages-*.json"
EXAMPLE = (
    '{"result": "success", "messages": [{"id": 101, "sender_id": 8, "sender_full_name": '
    '"Ann Lee", "sender_realm_str": "tide", "timestamp": 1709719200, "type": "stream", '
    '"display_recipient": "general", "subject": "rock pools", "content": "<p>Saturday?</p>", '
    '"content_type": "text/html"}]}'
)
FIELDS = Fields(
    speaker="`sender_full_name` (the export: the sender's `full_name` in realm.json)",
    listeners="the mentioned users, else a direct message's other users",
    time="`timestamp` (the export: `date_sent`), epoch seconds",
    zone="UTC (epoch seconds)",
    thread="`<channel> > <topic>`; a direct message: its users' names",
    id="`zulip:<realm>:<id>`",
    scope="the organization (`sender_realm_str`, realm.json's `string_id`, else the "
    "folder): message ids are numbered per server",
    subject="the topic",
    extra="`email`, `stream_id`, `edited`, `client`, `reactions`, `poll`, `has_attachment`",
)

FORMATS = (
    Format(
        NAME,
        "chat",
        DESCRIPTION,
        ("messages-*.json", "*.json", "*.jsonl"),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
