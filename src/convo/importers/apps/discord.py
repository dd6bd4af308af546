"""Discord: DiscordChatExporter JSON (``discord``) and chat copied from the client as
text (``discord-text``).

The JSON export is streamed by ``convo.core.jsonstream`` (memory flat with input size):
``messages`` element by element; ``guild``/``channel`` come first in real exports (when
not, a second pass finds them); a DirectTextChat takes a first pass to learn its authors.
Malformed JSON raises a located InputError when met (messages before it are emitted).

Decisions:
- speaker = ``author.nickname`` (the server display name) else ``name``; ``mentions``
  give the listeners, else the author of the message replied to (when it is in the file;
  ``convo.core.spillmap`` keeps memory flat), else in a ``DirectTextChat`` with two
  authors the other one.
- Mentions: the exporter writes ``@Name`` in ``content``, but with ``--markdown false``
  (and in older exports or raw API dumps) the tokens stay raw. ``<@id>``/``<@!id>``
  become ``@Name`` from ``mentions``, ``<#id>`` ``#name`` (the export's channel, else
  ``#id``), ``<@&id>`` ``@role`` from the authors' ``roles`` seen so far, custom emoji
  ``<:name:id>`` ``:name:`` and ``<t:epoch:style>`` an ISO time; the raw content is
  kept in ``extra.raw_content`` when it changed.
- ``thread`` = channel name (a thread export: the thread's name, parent channel in
  ``extra.parent_channel``). A message without an id gets the content-hash id.
- Replies: ``replyTo`` = ``discord:<reference.messageId>``; forwards keep
  ``forwardedMessage`` as a ``[forwarded]`` chunk. System notifications, as the
  exporter decides them, are tagged ``system``; an embed-only message reads as its
  embeds (``convo.importers.apps.discord_kinds``).
- Text copied from the client: see ``read_text`` (M/D/Y dates, Today/Yesterday
  need --start-date, empty ``[time]`` continuations skipped with a warning count).

Ids and their scope (docs/ids.md): Discord snowflakes, unique everywhere
(``discord:<id>``, no scope); the copied-text format has none: the content hash.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from convo.core.encoding import LineDecoder
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.spillmap import SpillMap
from convo.core.timestamps import epoch_ts, format_timestamp_utc, iso_ts
from convo.importers.apps.common import (
    SYSTEM_TAG,
    EmptyCounter,
    mentioned_or_other,
    numbered_lines,
)
from convo.importers.apps.discord_kinds import CONTENT_KINDS, embed_text
from convo.importers.build import ContentIds, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, NAIVE_IN_TZ, Fields
from convo.importers.jsoninput import StreamedDoc, as_dict, as_list, as_str, has_key, json_head
from convo.importers.registry import Format, head_lines


def sniff_discord(source: Source) -> int:
    text = json_head(source)
    if not text.startswith("{"):
        return 0
    if has_key(text, "guild") and has_key(text, "channel") and has_key(text, "messages"):
        return 90 if has_key(text, "author") or has_key(text, "dateRange") else 60
    return 0


def read_discord(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    doc = StreamedDoc(source, ("messages",))
    head = doc.expect("not a DiscordChatExporter export (no messages list)", ("channel", "guild"))
    channel = _channel(head, doc)
    roles: dict[str, str] = {}
    empty = EmptyCounter()
    try:
        for i, m in enumerate(doc.values(), 1):
            loc = ctx.loc(f"msg-{i}")
            if not isinstance(m, dict):
                ctx.reject(loc, "not a Discord message (not an object)", m)
                continue
            msg = _discord_message(m, loc, channel, roles)
            if msg is None:
                empty.skip(loc)
                continue
            if msg.timestamp is None:
                ctx.warn(loc, f"unreadable timestamp {m.get('timestamp')!r}; time left unknown")
            yield msg
    finally:
        channel.speakers.close()
    empty.report(ctx)


@dataclass
class _Channel:
    name: str
    extra: dict[str, Any]  # what every message of the channel carries in ``extra``
    parties: list[str]  # the two authors of a two-party DirectTextChat, else empty
    names: dict[str, str]  # channel id -> name, for <#id> tokens
    authors: set[str] = field(default_factory=set)  # whose roles are known
    # message id -> speaker, for a reply's listener (older ones spill to disk: memory flat)
    speakers: SpillMap[str, str] = field(default_factory=SpillMap)


def _channel(head: dict[str, Any], doc: StreamedDoc) -> _Channel:
    channel = as_dict(head.get("channel"))
    ctype = as_str(channel.get("type"))
    parties: list[str] = []
    if ctype == "DirectTextChat":  # a first pass: who takes part
        authors = {
            _discord_name(as_dict(m.get("author"))) for m in doc.values() if isinstance(m, dict)
        }
        authors -= {""}
        parties = list(authors) if len(authors) == 2 else []
    name = as_str(channel.get("name")) or as_str(channel.get("id")) or "discord"
    names = {as_str(channel.get("id")): name}
    if as_str(channel.get("categoryId")) and as_str(channel.get("category")):
        names[as_str(channel.get("categoryId"))] = as_str(channel.get("category"))
    return _Channel(
        name=name,
        extra={
            "guild": as_str(as_dict(head.get("guild")).get("name")),
            "channel_id": as_str(channel.get("id")),
            "parent_channel": as_str(channel.get("category")) if "Thread" in ctype else None,
        },
        parties=parties,
        names=names,
    )


_TOKEN = re.compile(r"<(@!?|@&|#|a?:\w{1,64}:|t:)(-?\d{1,20})(?::[tTdDfFR])?>")


def resolve_mentions(
    content: str, mentions: dict[str, str], channels: dict[str, str], roles: dict[str, str]
) -> str:
    """Discord's raw tokens in ``content`` made readable (see the module docstring)."""

    def sub(m: re.Match[str]) -> str:
        kind, ident = m[1], m[2]
        if kind in ("@", "@!"):
            return "@" + mentions.get(ident, ident)
        if kind == "@&":
            return "@" + roles.get(ident, ident)
        if kind == "#":
            return "#" + channels.get(ident, ident)
        if kind == "t:":
            return epoch_ts(ident) or m[0]
        return kind.lstrip("a")  # a custom emoji: its :name:

    return _TOKEN.sub(sub, content) if "<" in content else content


def _discord_chunks(
    m: dict[str, Any], content: str
) -> tuple[list[str], list[dict[str, Any]], list[dict[str, Any]]]:
    """The text chunks of a message, its attachments and its (non-empty) embeds."""
    chunks = [content] if content.strip() else []
    attachments: list[dict[str, Any]] = []
    embeds: list[dict[str, Any]] = []
    if m.get("attachments") or m.get("stickers") or m.get("embeds"):  # else text only
        attachments, embeds = _media(m, chunks)
    if m.get("forwardedMessage"):
        chunks.append(_forwarded(m))
    return chunks, attachments, embeds


def _media(
    m: dict[str, Any], chunks: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Attachments, stickers and embeds: their chunks appended to ``chunks``."""
    attachments = [as_dict(a) for a in as_list(m.get("attachments"))]
    chunks += [
        f"[attachment] {as_str(a.get('fileName')) or as_str(a.get('url'))}" for a in attachments
    ]
    chunks += [f"[sticker] {as_str(as_dict(s).get('name'))}" for s in as_list(m.get("stickers"))]
    embeds = [
        {k: as_dict(e).get(k) for k in ("title", "url", "description") if as_dict(e).get(k)}
        for e in as_list(m.get("embeds"))
    ]
    embeds = [e for e in embeds if e]
    if not chunks:
        chunks += [embed_text(as_dict(e)) for e in as_list(m.get("embeds")) if as_dict(e)]
    return attachments, embeds


def _forwarded(m: dict[str, Any]) -> str:
    return f"[forwarded] {as_str(as_dict(m.get('forwardedMessage')).get('content'))}".rstrip()


def _discord_message(
    m: dict[str, Any], loc: str, channel: _Channel, roles: dict[str, str]
) -> ConversationMessage | None:
    """One message, or None when it has neither text nor media."""
    author = as_dict(m.get("author"))
    raw, content, mentioned = _content(m, author, channel, roles)
    chunks, attachments, embeds = _discord_chunks(m, content)
    if not chunks:
        return None
    speaker = _discord_name(author)
    interaction = as_dict(m.get("interaction"))
    caller = _discord_name(as_dict(interaction.get("user"))) if interaction else ""
    ref = as_dict(m.get("reference"))
    listeners = _listeners(speaker, list(mentioned.values()), caller, ref, channel)
    mtype = as_str(m.get("type"))
    mid = as_str(m.get("id"))
    if mid and speaker:
        channel.speakers.set(mid, speaker)
    stamp = as_str(m.get("timestamp"))
    return message(
        chunks,
        speaker=speaker or None,
        listeners=listeners,
        timestamp=iso_ts(stamp),
        id=f"discord:{mid}" if mid else None,
        source_id=loc,
        format="discord",
        thread=channel.name,
        reply_to=_reply_to(ref) if ref else None,
        tags=[] if mtype in CONTENT_KINDS else [SYSTEM_TAG],
        extra={
            "type": mtype,
            **channel.extra,
            "author_id": as_str(author.get("id")),
            "bot": True if author.get("isBot") is True else None,
            "timestamp": stamp,
            "raw_content": raw if content != raw else None,
            "edited": iso_ts(m.get("timestampEdited")),
            "pinned": True if m.get("isPinned") is True else None,
            "attachments": attachments,
            "embeds": embeds,
            "stickers": as_list(m.get("stickers")),
            "reactions": _reactions(m.get("reactions")),
            "reference": ref,
            "forwarded": as_dict(m.get("forwardedMessage")),
            "interaction": interaction
            and {"name": as_str(interaction.get("name")), "user": caller},
        },
    )


def _listeners(
    speaker: str, mentioned: list[str], caller: str, ref: dict[str, Any], channel: _Channel
) -> list[str]:
    """The mentioned users, else who ran the app command, else the replied-to author,
    else the other of a two-party DM."""
    replied = channel.speakers.get(as_str(ref.get("messageId"))) if _reply_to(ref) else None
    listeners = mentioned or [x for x in (caller, replied) if x][:1]
    return listeners or [a for a in channel.parties if a != speaker]


def _reactions(value: Any) -> list[dict[str, Any]]:
    return [
        {"emoji": as_str(as_dict(r.get("emoji")).get("name")), "count": r.get("count")}
        for r in map(as_dict, as_list(value))
    ]


def _content(
    m: dict[str, Any], author: dict[str, Any], channel: _Channel, roles: dict[str, str]
) -> tuple[str, str, dict[str, str]]:
    """The raw content, the content with mentions resolved, and the mentioned users by id
    (the author's roles are learnt for later ``<@&id>`` tokens, once per author)."""
    author_id = as_str(author.get("id"))
    if author_id not in channel.authors:
        channel.authors.add(author_id)
        for role in map(as_dict, as_list(author.get("roles"))):
            if as_str(role.get("id")) and as_str(role.get("name")):
                roles[as_str(role.get("id"))] = as_str(role.get("name"))
    mentions = m.get("mentions")
    mentioned = (
        {as_str(x.get("id")): _discord_name(x) for x in map(as_dict, mentions)}
        if mentions and isinstance(mentions, list)
        else {}
    )
    raw = as_str(m.get("content"))
    if "<" not in raw:
        return raw, raw, mentioned
    return raw, resolve_mentions(raw, mentioned, channel.names, roles), mentioned


def _reply_to(ref: dict[str, Any]) -> str | None:
    if as_str(ref.get("messageId")) and as_str(ref.get("type")) != "Forward":
        return f"discord:{as_str(ref.get('messageId'))}"
    return None


def _discord_name(author: dict[str, Any]) -> str:
    return as_str(author.get("nickname")) or as_str(author.get("name"))


# ``03/06/2024 10:02 AM`` (the client before 2023), ``3/6/24, 10:02 AM`` (since: a
# two-digit year and a comma), ``Today at 10:02 AM``.
_DT_DAY = r"(?:(\d{1,2})/(\d{1,2})/(\d{4}|\d{2}),?|(Today|Yesterday) at)"
_DT_TIME = r"(\d{1,2}):(\d{2})(?:\s*([AaPp])[Mm])?"
_DISCORD_HEAD = re.compile(rf"^(\S.{{0,80}}?) [—–] {_DT_DAY} {_DT_TIME}\s*$")
_DISCORD_CONT = re.compile(rf"^\[{_DT_TIME}\]\s*$")
# A header whose date or time does not parse (``Bob — 1/23/23 3:22_PM``): never glued on.
_DISCORD_DAMAGED = re.compile(r"^(\S.{0,80}?) [—–] (?:\d{1,2}/\d{1,2}/\d{2,4}|Today|Yesterday)\b")


def sniff_text(source: Source) -> int:
    lines = head_lines(source, 5)
    return 75 if lines and _DISCORD_HEAD.match(lines[0]) else 0


def read_text(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    """Messages under ``name — MM/DD/YYYY h:mm AM`` headers (``M/D/YY, h:mm AM`` since the
    2023 client) and ``[h:mm AM]`` continuations.

    Dates are M/D/Y (the US client); ``Today``/``Yesterday`` are relative to --start-date's
    day, and unknown (with a warning) without it; their ids hash the label and the clock,
    not the day, so re-ingesting with another --start-date finds the same messages. Times
    are naive, read in --tz. Link previews pasted along (``Website`` + title lines) stay
    part of the text. A header whose date or time is damaged (``Bob — 1/23/23 3:22_PM``)
    starts a message of its own, time unknown, with a warning: its text is never glued to
    the message before.
    """
    reader = _DiscordText(source, ctx)
    for n, line in numbered_lines(source, reader.decode):
        yield from reader.line(n, line)
    yield from reader.flush()
    reader.empty.report(ctx)


class _DiscordText:
    """The state of one ``read_text`` pass."""

    def __init__(self, source: Source, ctx: ImportContext):
        self.source, self.ctx = source, ctx
        self.decode = ctx.text_decoder()  # one for both passes: a guess is told once
        self.speakers = _discord_text_speakers(source, self.decode)
        self.start = ctx.options.start_date
        self.warn_relative = self.start is None  # once per file, at the first Today/Yesterday
        self.day: date | None = None
        self.label: str | None = None  # "Today"/"Yesterday" of the last header
        self.cur: dict[str, Any] | None = None
        self.name: str | None = None  # the speaker of the last header (continuations')
        self.empty = EmptyCounter()
        self.ids = ContentIds(source.name)

    def line(self, n: int, line: str) -> Iterator[ConversationMessage]:
        head = _DISCORD_HEAD.match(line)
        cont = None if head else _DISCORD_CONT.match(line)
        if head or cont:
            yield from self.flush()
            self.cur = self._started(n, head, cont)
        elif damaged := _DISCORD_DAMAGED.match(line):
            yield from self.flush()
            self.ctx.warn(
                self.ctx.loc(n), "damaged message header; read as its own message, time unknown"
            )
            self.name = damaged[1].strip()
            self.cur = {"line": n, "name": self.name, "text": [], "ts": None, "anchor": None}
        elif self.cur is not None:
            self.cur["text"].append(line)
        elif line.strip():
            self.ctx.reject(self.ctx.loc(n), "text before the first Discord message header", line)

    def _started(
        self, n: int, head: re.Match[str] | None, cont: re.Match[str] | None
    ) -> dict[str, Any]:
        if head:
            if head[5] and self.warn_relative:
                self.ctx.warn(
                    self.source.name,
                    "'Today'/'Yesterday' dates need --start-date; time left unknown",
                )
                self.warn_relative = False
            self.day, self.label = _header_day(head, self.start), head[5]
            name, clock = head[1].strip(), (head[6], head[7], head[8])
            self.name = name
        else:
            assert cont is not None
            name, clock = self.name, (cont[1], cont[2], cont[3])
        anchor = f"{self.label} {':'.join(c or '' for c in clock)}" if self.label else None
        return {
            "line": n,
            "name": name,
            "text": [],
            "ts": _clock_ts(self.day, clock, self.ctx.options.tz),
            "anchor": anchor,
        }

    def flush(self) -> Iterator[ConversationMessage]:
        if self.cur is not None:
            cur, self.cur = self.cur, None
            for msg in _discord_text_message(cur, self.speakers, self.ctx, self.empty):
                if cur["anchor"]:  # a relative day: the id must not depend on --start-date
                    self.ids.assign(msg, timestamp=cur["anchor"])
                yield msg


def _discord_text_speakers(source: Source, decode: LineDecoder) -> list[str]:
    """A first pass: the names of the message headers, in order of appearance."""
    speakers: list[str] = []
    for _, line in numbered_lines(source, decode):
        m = _DISCORD_HEAD.match(line)
        if m and m[1].strip() not in speakers:
            speakers.append(m[1].strip())
    return speakers


def _header_day(head: re.Match[str], start: datetime | None) -> date | None:
    """A header's day: M/D/Y (a two-digit year is 20yy), or Today/Yesterday counted from
    --start-date (else unknown)."""
    if head[5]:
        if start is None:
            return None
        return start.date() - timedelta(days=1 if head[5] == "Yesterday" else 0)
    year = int(head[4])
    try:
        return date(year + 2000 if year < 100 else year, int(head[2]), int(head[3]))
    except ValueError:
        return None


def _clock_ts(day: date | None, clock: tuple[str, str, str | None], zone: Any) -> str | None:
    if day is None:
        return None
    h, mi = int(clock[0]), int(clock[1])
    if clock[2]:
        h = h % 12 + (12 if clock[2].lower() == "p" else 0)
    try:
        return format_timestamp_utc(datetime(day.year, day.month, day.day, h, mi, tzinfo=zone))
    except (ValueError, OverflowError):
        return None


def _discord_text_message(
    cur: dict[str, Any], speakers: list[str], ctx: ImportContext, empty: EmptyCounter
) -> Iterator[ConversationMessage]:
    text = "\n".join(cur["text"]).strip()
    if not text:
        empty.skip(ctx.loc(cur["line"]))
        return
    name = cur["name"]
    yield message(
        text,
        speaker=name,
        listeners=mentioned_or_other(speakers, name, text),
        timestamp=cur["ts"],
        source_id=ctx.loc(cur["line"]),
        format="discord-text",
    )


JSON_DESCRIPTION = "DiscordChatExporter JSON (guild, channel, messages)"
JSON_EXAMPLE = (
    '{"guild": {...}, "channel": {"name": "general"}, "messages": [{"id": "1", "author": {...}}]}'
)
TEXT_DESCRIPTION = "Discord chat copied from the client as text (name — date time headers)"
TEXT_EXAMPLE = "alice — 03/06/2024 10:02 AM"
JSON_FIELDS = Fields(
    speaker="`author.nickname` (the server display name), else `author.name`",
    listeners="`mentions`, else the replied-to author (an app command's answer: who ran it); "
    "in a DM with two authors, the other one",
    time="`timestamp`",
    zone="the offset the source writes (UTC `Z`); a naive time is read as UTC, not in `--tz`",
    thread="the channel's name (a thread export: the thread's name)",
    id="`discord:<id>` (the snowflake); none: " + CONTENT_HASH,
    scope="none: Discord snowflakes are unique everywhere",
    reply_to="`discord:<reference.messageId>`",
    tags="`system` on system notifications (DiscordChatExporter's RecipientAdd..ThreadCreated)",
    extra="`type`, `guild`, `channel_id`, `author_id`, `timestamp` (as written), `edited`, "
    "`pinned`, `reference`, `reactions`, `attachments`, `stickers`, `embeds`, `raw_content` (when tokens were "
    "rendered), `parent_channel`",
)
TEXT_FIELDS = Fields(
    speaker="the header's name (`name — date time`)",
    listeners="the `@Name` mentions of known speakers, else the other one of two speakers",
    time="the header's M/D/Y date and time; `Today`/`Yesterday` need `--start-date`",
    zone=NAIVE_IN_TZ,
    thread="none",
    id=CONTENT_HASH,
    scope="the file's name",
)

FORMATS = (
    Format(
        "discord",
        "chat",
        JSON_DESCRIPTION,
        ("*.json",),
        sniff_discord,
        read_discord,
        JSON_EXAMPLE,
        fields=JSON_FIELDS,
    ),
    Format(
        "discord-text",
        "chat",
        TEXT_DESCRIPTION,
        ("*.txt",),
        sniff_text,
        read_text,
        TEXT_EXAMPLE,
        fields=TEXT_FIELDS,
    ),
)
