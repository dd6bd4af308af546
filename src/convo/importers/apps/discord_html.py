"""DiscordChatExporter's HTML export (``--format HtmlDark``/``HtmlLight``, its default;
format ``discord-html``).

What Tyrrrz/DiscordChatExporter's ``DiscordChatExporter.Core/Exporting/`` templates
write: ``PreambleTemplate.cshtml`` the page's head and ``div.preamble__entry``s (the
guild's name, the channel's ``Category / channel``, its topic); then
``MessageGroupTemplate.cshtml`` a ``div.chatlog__message-group`` for each run of one
author's messages, each message a ``div.chatlog__message-container`` with its
``data-message-id`` (``--pinned`` in its class when pinned). The group's first message
carries the header (``span.chatlog__author``, its display name; ``title`` the user
name; a ``BOT`` tag) and the replied-to message (``span.chatlog__reply-link``,
``scrollToMessage(event, 'ID')``); a system notification has
``span.chatlog__system-notification-author`` and ``-content`` instead. The text is
``span.chatlog__markdown-preserve`` in ``div.chatlog__content`` (markdown as HTML,
mentions ``span.chatlog__markdown-mention``), ``(edited)`` beside it; then
``div.chatlog__forwarded``, ``div.chatlog__attachment`` (a link, image, video or
audio source), ``div.chatlog__embed``, ``div.chatlog__sticker`` (``title`` its
name) and ``div.chatlog__reaction`` (the emoji's ``alt``, ``span.chatlog__reaction-
count``). ``PostambleTemplate.cshtml`` closes with ``Exported N message(s)``.
Versions from 2019 to 2022 (before ``Update HTML layout and styles``) wrote the same
in other classes: a group's header (``span.chatlog__author-name``, ``span.chatlog__bot-
tag``, the replied-to message's ``.chatlog__reference-link``) comes before its messages,
each a ``div.chatlog__message`` (``--pinned``) with its ``data-message-id``; the text is
``div.markdown`` > ``span.preserve-whitespace``, mentions ``span.mention``, emoji
``img.emoji``. Older pages (before July 2019) have no element a message and no id;
they are not read, and a warning says so. Dates
are written in the exporter's locale (and a group's later messages show only a time),
so they are not read: a Discord message id (a snowflake) holds its time.

Decisions:
- id = ``discord:<data-message-id>`` (as the JSON export's ``discord``; the same
  message from either export is one record), replyTo = ``discord:<replied id>``;
  time = the snowflake's (milliseconds since 2015-01-01 UTC, shifted 22 bits), so an
  instant with no ``--tz``; a container whose id is not a snowflake is rejected.
- speaker = the author's display name (the group's header); listeners = the mentioned
  users (not ``@everyone``, ``@here``), else the replied-to author, else the other of a
  page with two authors; thread
  = the channel (the preamble's last ``/`` part), else the page's title.
- text = the markdown's text (line breaks kept); a forwarded message a
  ``[forwarded]`` chunk; each attachment an ``[attachment] URL`` chunk; embeds' text
  and stickers' names in ``extra`` (an embed-only message reads as its embeds);
  reactions ``{"emoji", "count"}``; ``pinned``, ``edited``, ``bot``. System
  notifications (``joined the server.``...) are tagged ``system``. A message with
  nothing in it is counted and skipped; when the postamble's count differs from the
  messages read, a warning says so.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.spillmap import SpillMap
from convo.core.timestamps import format_timestamp_utc
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter, written_count
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.registry import Format

NAME = "discord-html"
_CHUNK = 1 << 16
_DISCORD_EPOCH_MS = 1_420_070_400_000
_VOID = {
    "area",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
    "use",
}
_REPLY = re.compile(r"'(\d+)'")
_EXPORTED = re.compile(r"Exported\s+([\d,.\s\u00a0\u202f']+)\s+message\(s\)")
_AUTHORS = re.compile(r'class="chatlog__(?:system-notification-)?author(?:-name)?"[^>]*>([^<]*)<')
# The element classes whose text is captured, and as what (the innermost one wins).
_ROLES = {
    "chatlog__author": "author",
    "chatlog__author-name": "author",
    "chatlog__system-notification-author": "author",
    "chatlog__author-tag": "tag",
    "chatlog__bot-tag": "tag",
    "chatlog__system-notification-content": "system",
    "chatlog__edited-timestamp": "skip",
    "chatlog__embed": "embed",
    "chatlog__reaction-count": "count",
    "preamble__entry": "preamble",
    "postamble__entry": "postamble",
    "chatlog__forwarded-content": "forward",
    "chatlog__content": "content",
    "chatlog__attachment": "attachment",
    "chatlog__markdown-mention": "mention",
    "mention": "mention",
}
# ``@everyone`` and ``@here`` address the channel, not a user.
_CHANNEL_MENTIONS = ("everyone", "here")


@dataclass
class _Msg:
    line: int
    id: str
    pinned: bool
    author: str | None = None
    bot: bool = False
    system: bool = False
    edited: bool = False
    reply: str | None = None
    content: list[str] = field(default_factory=list)
    forwarded: list[str] = field(default_factory=list)
    attachments: list[str] = field(default_factory=list)
    embeds: list[list[str]] = field(default_factory=list)
    stickers: list[str] = field(default_factory=list)
    reactions: list[dict[str, Any]] = field(default_factory=list)
    mentions: list[str] = field(default_factory=list)


class _Page(HTMLParser):
    """The page's messages, a ``_Msg`` each, as its text is fed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.done: list[_Msg] = []
        self.preamble: list[str] = []
        self.title: list[str] = []
        self.exported: int | None = None
        self.cur: _Msg | None = None
        self.group_author: tuple[str | None, bool] = (None, False)
        self.group_reply: str | None = None
        self.groups = 0
        self.stack: list[tuple[str, str | None]] = []  # (tag, role) of each open element
        self._pending: list[str] = []  # the text since the last tag, as fed

    def _roles(self) -> Iterator[str]:
        return (role for _, role in reversed(self.stack) if role)

    def _role(self) -> str | None:
        return next(self._roles(), None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._flush()
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        role = next(
            (_ROLES[c] for c in classes if c in _ROLES), "title" if tag == "title" else None
        )
        if not self._structure(a, classes) and role == "preamble" and self.cur is None:
            self.preamble.append("")
        if self.cur is not None:
            self._attributes(tag, a, classes, role)
        if tag not in _VOID:
            self.stack.append((tag, role))

    def _structure(self, a: dict[str, str], classes: list[str]) -> bool:
        """A message group, a message or (2019-2022) a group's reply link begins: noted;
        whether it was one of them."""
        if "chatlog__message-group" in classes:
            self._finish()
            self.groups += 1
            self.group_author, self.group_reply = (None, False), None
        elif "chatlog__message-container" in classes or (
            "chatlog__message" in classes and "data-message-id" in a  # the 2019-2022 layout
        ):
            self._finish()
            pinned = any(c.endswith("--pinned") for c in classes)
            self.cur = _Msg(self.getpos()[0], a.get("data-message-id", ""), pinned)
            self.cur.author, self.cur.bot = self.group_author
            self.cur.reply, self.group_reply = self.group_reply, None
        elif "chatlog__reference-link" in classes and (m := _REPLY.search(a.get("onclick", ""))):
            self.group_reply = m[1]  # the 2019-2022 layout: the group's first message replies
        else:
            return False
        return True

    def _attributes(
        self, tag: str, a: dict[str, str], classes: list[str], role: str | None
    ) -> None:
        cur = self.cur
        assert cur is not None
        _mark(cur, a, classes, role)
        inside = self._role()
        if tag == "br" and inside in ("content", "forward"):
            (cur.content if inside == "content" else cur.forwarded).append("\n")
        elif tag == "img" and ("chatlog__emoji" in classes or "emoji" in classes):
            if inside is None and cur.reactions:
                cur.reactions[-1]["emoji"] = a.get("alt", "")
            elif inside in ("content", "forward", "mention"):
                self._text(a.get("alt", ""))
        if inside == "attachment" and cur.attachments and not cur.attachments[-1]:
            cur.attachments[-1] = _url(tag, a)

    def handle_endtag(self, tag: str) -> None:
        self._flush()
        if tag in _VOID:
            return
        if any(t == tag for t, _ in self.stack):
            while self.stack and self.stack.pop()[0] != tag:
                pass

    def handle_data(self, data: str) -> None:
        # The parser hands text over at the end of each feed (``_CHUNK``): a text a read
        # cuts comes in pieces, read once whole at the next tag (an author's name was
        # its last piece alone).
        self._pending.append(data)

    def _flush(self) -> None:
        if self._pending:
            data = "".join(self._pending)
            self._pending.clear()
            self._text(data)

    def _text(self, data: str) -> None:
        roles = list(self._roles())
        role = roles[0] if roles else None
        if role == "title":
            self.title.append(data)
        elif role == "preamble" and self.cur is None and self.preamble:
            self.preamble[-1] += data
        elif role == "postamble" and (m := _EXPORTED.search(data)):
            self.exported = written_count(m[1])
        elif role in ("author", "tag") and self.cur is None:  # the 2019-2022 group header
            self._group_header(role, data)
        elif self.cur is not None and role not in (None, "skip"):
            outer = next((r for r in roles if r != "mention"), None)
            self._into(self.cur, role, outer, data)

    def _group_header(self, role: str, data: str) -> None:
        author, bot = self.group_author
        if role == "author":
            self.group_author = (data.strip() or author, bot)
        else:
            self.group_author = (author, bot or data.strip() in ("BOT", "SERVER"))

    def _into(self, cur: _Msg, role: str, outer: str | None, data: str) -> None:
        if role == "author":
            cur.author = data.strip() or cur.author
            self.group_author = (cur.author, cur.bot)
        elif role == "tag":
            cur.bot = cur.bot or data.strip() in ("BOT", "SERVER")
            self.group_author = (cur.author, cur.bot)
        elif outer == "embed" and cur.embeds:
            cur.embeds[-1].append(data)
        elif outer in ("content", "system"):
            cur.content.append(data)
            name = data.strip()[1:]
            if role == "mention" and data.strip().startswith("@") and name not in _CHANNEL_MENTIONS:
                cur.mentions.append(name)
        elif outer == "forward":
            cur.forwarded.append(data)
        elif role == "count" and cur.reactions:
            cur.reactions[-1]["count"] = written_count(data, 1)

    def _finish(self) -> None:
        if self.cur is not None:
            self.done.append(self.cur)
            self.cur = None

    def close(self) -> None:
        super().close()
        self._flush()
        self._finish()


def _url(tag: str, a: dict[str, str]) -> str:
    """The file a link, image or media source inside an attachment points to."""
    return (a.get("href") or a.get("src") or "") if tag in ("a", "source", "img") else ""


def _mark(cur: _Msg, a: dict[str, str], classes: list[str], role: str | None) -> None:
    """What an element's class says of its message: a system notification, the replied-to
    id, an edit; a sticker, a reaction, an attachment or an embed begins."""
    if "chatlog__system-notification-author" in classes:
        cur.system = True
    elif "chatlog__reply-link" in classes and (m := _REPLY.search(a.get("onclick", ""))):
        cur.reply = m[1]
    elif "chatlog__edited-timestamp" in classes:
        cur.edited = True
    elif "chatlog__sticker" in classes:
        cur.stickers.append(a.get("title", ""))
    elif "chatlog__reaction" in classes:
        cur.reactions.append({"emoji": "", "count": 1})
    elif role == "attachment":
        cur.attachments.append("")
    elif role == "embed" and "chatlog__embed" in classes:
        cur.embeds.append([])


def _messages(source: Source, page: _Page) -> Iterator[_Msg]:
    """The page's messages in order, each once the next one has begun (or the page ended)."""
    with open(source.real_path(), "rb") as f:  # two passes: stdin and .gz are spooled
        decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        while True:
            chunk = f.read(_CHUNK)
            page.feed(decoder.decode(chunk, final=not chunk))
            if not chunk:
                page.close()
            yield from page.done
            page.done.clear()
            if not chunk:
                return


def _authors(source: Source) -> list[str]:
    """The page's first three authors, by a regular expression over its text (a first
    pass, for a DM's listener; cheaper than the parser, as ``telegram_html._senders``
    measured)."""
    seen: dict[str, None] = {}
    with open(source.real_path(), "rb") as f:
        decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        tail = ""
        while len(seen) < 3 and (chunk := f.read(_CHUNK)):
            text = tail + decoder.decode(chunk)
            for m in _AUTHORS.finditer(text):
                seen.setdefault(_unescape(m[1]).strip())
            tail = text[-512:]
    return [a for a in seen if a][:3]


def _unescape(text: str) -> str:
    import html

    return html.unescape(text)


def _snowflake_time(ident: str) -> str | None:
    """The instant a Discord id holds (milliseconds since 2015 in its upper bits)."""
    if not ident.isdigit() or len(ident) > 20:
        return None
    ms = (int(ident) >> 22) + _DISCORD_EPOCH_MS
    try:
        return format_timestamp_utc(datetime.fromtimestamp(ms / 1000, tz=UTC))
    except (ValueError, OverflowError, OSError):
        return None


@dataclass
class _Run:
    thread: str
    authors: list[str]
    speakers: SpillMap[str, str] = field(default_factory=SpillMap)
    count: int = 0


def _chunks(m: _Msg) -> list[str]:
    raw = "".join(m.content)
    text = " ".join(raw.split()) if m.system else raw.strip()
    forwarded = "".join(m.forwarded).strip()
    chunks = [text] if text else []
    chunks += [f"[forwarded] {forwarded}"] if forwarded else []
    chunks += [f"[attachment] {u}" for u in m.attachments if u]
    embeds = _embeds(m)
    return chunks or embeds or [f"[sticker] {s}" for s in m.stickers if s]


def _embeds(m: _Msg) -> list[str]:
    """Each embed's text, a line a block (the template's line breaks apart its blocks)."""
    out = []
    for parts in m.embeds:
        lines = (" ".join(line.split()) for line in "".join(parts).splitlines())
        if text := "\n".join(line for line in lines if line):
            out.append(text)
    return out


def _listeners(m: _Msg, run: _Run) -> list[str]:
    """The mentioned users, else the replied-to author, else the other of two authors."""
    if m.system:
        return []
    mentioned = [x for x in dict.fromkeys(m.mentions) if x and x != m.author]
    if mentioned:
        return mentioned
    replied = run.speakers.get(m.reply) if m.reply else None
    if replied:
        return [replied]
    return [a for a in run.authors if a != m.author] if len(run.authors) == 2 else []


def _extra(m: _Msg) -> dict[str, Any]:
    flags = {"pinned": m.pinned, "edited": m.edited, "bot": m.bot}
    return {
        **{k: True if v else None for k, v in flags.items()},
        "attachments": [u for u in m.attachments if u], "embeds": _embeds(m),
        "stickers": m.stickers, "reactions": m.reactions,
    }  # fmt: skip


def _build(m: _Msg, run: _Run, ctx: ImportContext) -> ConversationMessage | None:
    chunks = _chunks(m)
    if not chunks:
        return None
    listeners = _listeners(m, run)
    if m.author:
        run.speakers.set(m.id, m.author)
    return message(
        chunks, speaker=m.author or None, listeners=listeners,
        timestamp=_snowflake_time(m.id), id=f"discord:{m.id}", source_id=ctx.loc(m.line),
        format="discord", thread=run.thread, reply_to=f"discord:{m.reply}" if m.reply else None,
        tags=[SYSTEM_TAG] if m.system else [], extra=_extra(m),
    )  # fmt: skip


def _thread(page: _Page, source: Source) -> str:
    if len(page.preamble) > 1 and (name := page.preamble[1].strip().rsplit(" / ", 1)[-1].strip()):
        return name
    title = "".join(page.title).strip()
    return title.rsplit(" - ", 1)[-1] if title else source.name.removesuffix(".html")


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    run = _Run("", _authors(source))
    empty = EmptyCounter()
    page = _Page()
    for m in _messages(source, page):
        run.thread = run.thread or _thread(page, source)
        run.count += 1
        if _snowflake_time(m.id) is None:
            ctx.reject(ctx.loc(m.line), f"message id {m.id[:30]!r} is not a Discord snowflake")
            continue
        msg = _build(m, run, ctx)
        if msg is None:
            empty.skip(ctx.loc(m.line))
        else:
            yield msg
    empty.report(ctx)
    if page.groups and not run.count:
        ctx.warn(source.name, "message groups but no messages in a layout this reader knows")
    if page.exported is not None and page.exported != run.count:
        ctx.warn(
            source.name, f"the export says {counted(page.exported, 'message')}; {run.count} read"
        )


def sniff(source: Source) -> int:
    head = source.head_text()
    if "<html" not in head[:4096].lower() and "<!doctype" not in head[:4096].lower():
        return 0
    return 95 if "chatlog__" in head or "preamble__entry" in head else 0


DESCRIPTION = "DiscordChatExporter HTML export (its default: HtmlDark, HtmlLight)"
EXAMPLE = (
    "<!DOCTYPE html><html><head><title>Garden club - general</title></head><body>"
    '<div class="preamble__entry">Garden club</div><div class="preamble__entry">Text Channels / general</div>'
    '<div class="chatlog__message-group"><div class="chatlog__message-container" data-message-id="1212345678901234567">'
    '<span class="chatlog__author" title="ann">Ann</span><div class="chatlog__content chatlog__markdown">'
    '<span class="chatlog__markdown-preserve">hi</span></div></div></div></body></html>'
)
FIELDS = Fields(
    speaker="the author's display name (the message group's header)",
    listeners="the mentioned users, else the replied-to author, else the other of a page with two authors",
    time="the message id (a Discord snowflake holds its time, to the millisecond)",
    zone="an instant (UTC), whatever the page's locale",
    thread="the channel (the preamble's last `/` part), else the page's title",
    id="`discord:<data-message-id>` (the JSON export's ids)",
    scope="Discord snowflakes are unique everywhere (no scope)",
    reply_to="`discord:<id>` of the replied-to message",
    tags="`system` on system notifications",
    extra="`pinned`, `edited`, `bot`, `attachments` (URLs), `embeds` (text), `stickers` (names), `reactions` (`{emoji, count}`)",
)
FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.html",), sniff, read, EXAMPLE, fields=FIELDS),)
