"""Mattermost bulk export (``mmctl export``): JSONL, one typed object a line, streamed.

Decisions:
- speaker = the user's ``first_name last_name`` (else ``nickname``, else ``username``),
  from the ``user`` lines, which come before the posts in an export; unknown users keep
  their username.
- ``thread`` = the channel's ``display_name`` (else its name); direct posts
  ``dm:<member,member...>``; in a two-member direct channel the listener is the other
  member, else listeners are the ``@username`` mentions.
- The export has no post ids: id = ``mattermost:<team>:<channel>:<create_at>:<user>``
  (``dm:<sorted members>`` for direct posts). Replies nested in a post are emitted after
  it with ``replyTo`` = the post's id.
- An integration's post (a webhook's, a bot's) may hold its words only in
  ``props.attachments`` (Slack's message attachments): their pretext, title, text and
  fields are the text. A post's ``type`` goes to ``extra`` (``system_*``: tagged
  ``system``), ``is_pinned`` to ``extra.pinned``.
- An empty post (a file the export did not include) is skipped with a warning, its
  replies kept (answering no message of the file).
- Lines of other types (version, team, channel, user, direct_channel, emoji, scheme...)
  carry no messages and are read for names only.

Ids and their scope (docs/ids.md): the export has no post ids:
``mattermost:<team>:<channel>:<create_at>:<user>`` (the team and channel names scope it;
only the same user in a same-named team and channel at the same millisecond could share
one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from convo.core.errors import RecordError
from convo.core.io import Source, strip_bom
from convo.core.jsonl import iter_lines, parse_line
from convo.core.plural import counted, plural
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts
from convo.importers.apps.common import SYSTEM_TAG
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_dict, as_list, as_str
from convo.importers.registry import Format

_FIRST = re.compile(
    rb'^\s*\{\s*"type"\s*:\s*"(version|post|direct_post|team|channel|user|direct_channel)"'
)
_MENTION = re.compile(r"(?<![\w@])@([a-z0-9][a-z0-9._-]{0,63})", re.I)


def sniff(source: Source) -> int:
    first = strip_bom(source.head).lstrip().split(b"\n", 1)[0]
    m = _FIRST.match(first)
    if not m:
        return 0
    if m.group(1) == b"version" and re.search(rb'"version"\s*:\s*\d', first):
        return 90
    return 75 if m.group(1) in (b"post", b"direct_post") and b'"create_at"' in first else 0


class _Users:
    """The export's users by username (their full name), and those defined only after
    posts naming them (Mattermost writes its users first: those posts keep the
    username, said in one warning)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self._early: set[str] = set()  # usernames posts named before their user line
        self._late = 0

    def define(self, body: dict[str, Any]) -> None:
        first, last = as_str(body.get("first_name")), as_str(body.get("last_name"))
        name = " ".join(x for x in (first, last) if x)
        username = as_str(body.get("username"))
        self.names[username] = name or as_str(body.get("nickname")) or username
        self._late += username in self._early

    def named_by(self, post: dict[str, Any]) -> None:
        named = [post.get("user"), *(as_dict(r).get("user") for r in as_list(post.get("replies")))]
        self._early.update(u for u in map(as_str, named) if u and u not in self.names)

    def report(self, source: Source, ctx: ImportContext) -> None:
        if self._late:
            n = self._late
            ctx.warn(source.name, f"{counted(n, 'user')} defined after posts naming "
                     f"{plural(n, 'it', 'them')}: those posts keep the username (Mattermost "
                     "writes its users first)")  # fmt: skip


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    users = _Users()
    channels: dict[str, str] = {}
    with source.open() as stream:
        for line in iter_lines(stream):
            where = ctx.loc(line.number)
            try:
                obj = parse_line(line, source.name)
            except RecordError as e:
                ctx.reject_error(e, line.raw)
                continue
            kind = as_str(obj.get("type"))
            body = as_dict(obj.get(kind))
            if kind == "user":
                users.define(body)
            elif kind == "channel":
                channels[as_str(body.get("name"))] = as_str(body.get("display_name")) or as_str(
                    body.get("name")
                )
            elif kind in ("post", "direct_post"):
                if not as_str(body.get("user")) or not isinstance(
                    body.get("create_at"), int | float
                ):
                    ctx.reject(where, f"{kind} without user or create_at", line.raw)
                    continue
                users.named_by(body)
                yield from _post(kind, body, users.names, channels, where, ctx)
    users.report(source, ctx)


def _post(
    kind: str,
    p: dict[str, Any],
    users: dict[str, str],
    channels: dict[str, str],
    where: str,
    ctx: ImportContext,
) -> Iterator[ConversationMessage]:
    if kind == "direct_post":
        members = [as_str(x) for x in as_list(p.get("channel_members"))]
        key = "dm:" + ",".join(sorted(members))
        thread = "dm:" + ",".join(users.get(x, x) for x in members)
    else:
        members = []
        key = f"{as_str(p.get('team'))}:{as_str(p.get('channel'))}"
        thread = channels.get(as_str(p.get("channel"))) or as_str(p.get("channel"))
    parent = _one(p, key, thread, members, users, where, None)
    replies = as_list(p.get("replies"))
    if parent is None:  # its replies are kept, answering no message of the file
        ctx.warn(where, f"empty post skipped ({len(replies)} replies to it kept)" if replies
                 else "empty post skipped")  # fmt: skip
    elif parent.timestamp is None:
        ctx.warn(where, "unreadable create_at; time left unknown")
    if parent is not None:
        yield parent
    for j, r in enumerate(map(as_dict, replies), 1):
        if not as_str(r.get("user")):
            ctx.reject(f"{where}#reply-{j}", "reply without user", r)
            continue
        parent_id = parent.id if parent is not None else None
        reply = _one(r, key, thread, members, users, f"{where}#reply-{j}", parent_id)
        if reply is None:
            ctx.warn(f"{where}#reply-{j}", "empty reply skipped")
        else:
            yield reply


def _one(
    p: dict[str, Any],
    key: str,
    thread: str,
    members: list[str],
    users: dict[str, str],
    where: str,
    parent: str | None,
) -> ConversationMessage | None:
    user = as_str(p.get("user"))
    speaker = users.get(user, user)
    text = as_str(p.get("message"))
    chunks, attachments = _chunks(p, text)
    if not chunks:
        return None
    kind = as_str(p.get("type"))
    return message(
        chunks,
        speaker=speaker,
        listeners=_listeners(text, user, members, users),
        timestamp=epoch_ts(p.get("create_at"), ms=True),
        id=f"mattermost:{key}:{as_str(p.get('create_at'))}:{user}",
        source_id=where,
        format="mattermost",
        thread=thread,
        reply_to=parent,
        tags=[SYSTEM_TAG] if kind.startswith("system_") else [],
        extra={
            "username": user,
            "type": kind or None,
            "pinned": p.get("is_pinned") is True or None,
            "cards": [a for a in as_list(as_dict(p.get("props")).get("attachments"))] or None,
            "create_at": p.get("create_at"),
            "edit_at": epoch_ts(p.get("edit_at"), ms=True) if p.get("edit_at") else None,
            "attachments": attachments,
            "reactions": _reactions(p, users),
            "flagged_by": as_list(p.get("flagged_by")),
        },
    )


def _chunks(p: dict[str, Any], text: str) -> tuple[list[str], list[str]]:
    """A post's chunks (its message, its integration's cards, its files) and files' paths."""
    attachments = [as_str(as_dict(a).get("path")) for a in as_list(p.get("attachments"))]
    attachments = [a for a in attachments if a]
    cards = [_card(a) for a in map(as_dict, as_list(as_dict(p.get("props")).get("attachments")))]
    chunks = ([text] if text.strip() else []) + [c for c in cards if c]
    return chunks + [f"[attachment] {a}" for a in attachments], attachments


def _reactions(p: dict[str, Any], users: dict[str, str]) -> list[dict[str, str]]:
    return [
        {
            "user": users.get(as_str(r.get("user")), as_str(r.get("user"))),
            "emoji": as_str(r.get("emoji_name")),
        }
        for r in map(as_dict, as_list(p.get("reactions")))
    ]


def _card(a: dict[str, Any]) -> str:
    """A message attachment of an integration (``props.attachments``, Slack's layout) as
    Mattermost shows it: its pretext, title, text and fields, else its fallback."""
    fields = [
        f"{as_str(f.get('title'))}: {as_str(f.get('value'))}"
        for f in map(as_dict, as_list(a.get("fields")))
    ]
    shown = [as_str(a.get(k)) for k in ("pretext", "title", "text")] + fields
    lines = [x for x in shown if x.strip()] or [as_str(a.get("fallback"))]
    return "\n".join(x for x in lines if x.strip())


def _listeners(text: str, user: str, members: list[str], users: dict[str, str]) -> list[str]:
    """The ``@username`` mentions, else the other member of a two-member direct channel."""
    mentioned = [users.get(u, u) for u in _MENTION.findall(text)]
    if not mentioned and len(members) == 2 and user in members:
        mentioned = [users.get(x, x) for x in members if x != user]
    return mentioned


DESCRIPTION = "Mattermost bulk export JSONL (version/team/channel/user/post lines)"
EXAMPLE = '{"type": "version", "version": 1}'
FIELDS = Fields(
    speaker="the user's `first_name last_name` (else `nickname`, else `username`)",
    listeners="the other member of a two-member direct channel, else the `@username` mentions",
    time="`create_at`",
    zone="epoch milliseconds: UTC",
    thread="the channel's `display_name` (else its name); direct posts `dm:<members>`",
    id="`mattermost:<team>:<channel>:<create_at>:<user>` (direct posts "
    "`mattermost:dm:<members>:<create_at>:<user>`)",
    scope="the team and channel names, the user and the millisecond (the export has no post ids)",
    reply_to="a nested reply: its post's id",
    tags="`system` for a post whose `type` is `system_*`",
    extra="`username`, `create_at`, `type`, `pinned`, `reactions`, `attachments` (files' "
    "paths), `cards` (an integration's `props.attachments`, their texts also the record's)",
)

FORMATS = (
    Format("mattermost", "chat", DESCRIPTION, ("*.jsonl",), sniff, read, EXAMPLE, fields=FIELDS),
)
