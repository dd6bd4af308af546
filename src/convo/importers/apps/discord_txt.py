"""DiscordChatExporter's plain-text export (``--format PlainText``, ``.txt``; format
``discord-txt``).

What Tyrrrz/DiscordChatExporter's ``DiscordChatExporter.Core/Exporting/
PlainTextMessageWriter.cs`` writes: a preamble between two rules of 62 ``=`` (``Guild:``,
``Channel:`` as ``Category / channel``, ``Topic:``, ``After:``, ``Before:``), then each
message as a header ``[DATE] Author`` (`` (pinned)`` after a pinned one's author), its
content (markdown rendered as text, mentions as ``@Name``) and a blank line, then its
sections, each opened by a marker line and closed by a blank line: ``{Forwarded
Message}`` (the content and ``Originally sent: DATE``), ``{Attachments}`` (one URL a
line), ``{Embed}`` (author, URL, title, description, fields, images, footer: a line
each), ``{Stickers}`` (URLs), ``{Reactions}`` (``👍 (3) 🎉`` on one line); a blank line
ends the message. The postamble, between two rules, says ``Exported N message(s)``.
``Author`` is the user's name, with ``#discriminator`` for accounts from before Discord's
usernames; a system notification's content is the exporter's fallback sentence
(``PlainTextMessageExtensions.cs``: ``Pinned a message.``, ``Joined the server.``...).

``DATE`` is .NET's ``g`` format (short date and time) in the exporter's ``--locale``
(else the computer's): ``3/1/2024 9:15 AM`` (en-US), ``01/03/2024 09:15`` (en-GB, fr),
``01.03.2024 09:15`` (de, ru), ``2024/03/01 9:15`` (ja), ``2024. 3. 1. 오전 9:15`` (ko),
``2024-03-01 09:15`` (sv); versions before the locale option wrote ``--dateformat``'s
default, ``dd-MMM-yy hh:mm tt`` (``01-Mar-24 09:15 AM``) and later ``MM/dd/yyyy h:mm
tt``. The time is the computer's local time, or UTC with ``--utc``, without a zone.

Decisions:
- speaker = the header's author; listeners = ``@Name`` mentions of the file's authors,
  else the other of two authors (a DM); thread = the preamble's channel (its last
  ``/`` part), else the channel in DiscordChatExporter's file name, else the file's stem.
- time: the date read as the whatsapp importer reads a chat's dates
  (``whatsapp_header.DATE_TIME``; the day/month order decided per file, a warning when it
  is a guess), local and without a zone: read in ``--tz``.
- a header is a ``[DATE] Author`` line after a blank line whose date reads as one; a
  content line of that shape after a blank line starts a new message too (the export
  cannot tell them apart). A header whose date does not exist is rejected with its
  line, and so is text before the first header.
- each attachment is an ``[attachment] URL`` chunk; embeds, stickers and reactions
  (``{"emoji", "count"}``) go to ``extra``; an embed-only message reads as its embeds; a
  forwarded message's text is a ``[forwarded]`` chunk. The fallback sentences of system
  notifications are tagged ``system``; ``pinned`` in ``extra``. A message with nothing
  in it is counted and skipped. When the postambles' count (a hand-joined file has
  several, and what follows one is read on) differs from the headers read, a warning
  says so.

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the channel (the thread). Records say ``discord``, as the CSV export's do.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain
from pathlib import PurePath
from typing import Any

from convo.core.compression import strip_compressed
from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.timestamps import naive_ts
from convo.importers.apps.common import (
    SYSTEM_TAG,
    EmptyCounter,
    mentioned_or_other,
    numbered_lines,
    written_count,
)
from convo.importers.apps.discord_csv import SYSTEM_SENTENCE
from convo.importers.apps.whatsapp_header import DATE_TIME, DateOrder, when
from convo.importers.build import ContentIds, message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines

NAME = "discord-txt"
RULE = "=" * 62
_HEADER = re.compile(r"\[(?P<date>[^\]]{6,40})\] (?P<author>.+?)(?P<pinned> \(pinned\))?")
_DATE = re.compile(DATE_TIME)
_OLD = re.compile(
    r"(?P<d>\d{1,2})-(?P<mon>[A-Za-z]{3})-(?P<y>\d{2,4}) (?P<h>\d{1,2}):(?P<mi>\d{2})"
    r"(?:[\s\u202f]?(?P<ap>[AaPp][Mm]))?"
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_SECTIONS = ("{Attachments}", "{Embed}", "{Stickers}", "{Reactions}", "{Forwarded Message}")
_EXPORTED = re.compile(r"Exported ([\d,.\s\u00a0\u202f']+) message\(s\)")
_FILE = re.compile(r"^(?:.* - )?(.+?) \[\d+\](?: \(part \d+\))?$")
_REACTION = re.compile(r"(\S+)(?: \((\d+)\))?")


def sniff(source: Source) -> int:
    lines = head_lines(source, 12)
    if not lines or lines[0].lstrip("\ufeff").strip() != RULE:
        return 0
    return 95 if any(ln.startswith("Guild: ") for ln in lines[1:4]) else 0


def _date_match(text: str) -> re.Match[str] | None:
    return _DATE.fullmatch(text) or _OLD.fullmatch(text)


def _old_time(m: re.Match[str], zone: Any) -> str | None:
    """``dd-MMM-yy hh:mm tt``'s time in UTC, None when impossible."""
    mon = m["mon"].lower()
    if mon not in _MONTHS:
        return None
    y, h = int(m["y"]), int(m["h"])
    if m["ap"]:
        h = h % 12 + (12 if m["ap"] in ("PM", "pm", "Pm", "pM") else 0)
    try:
        stamp = datetime(
            y + 2000 if y < 100 else y, _MONTHS.index(mon) + 1, int(m["d"]), h, int(m["mi"])
        )
    except ValueError:
        return None
    return naive_ts(stamp, zone)


@dataclass
class _Chat:
    thread: str
    authors: list[str] = field(default_factory=list)
    order: str = "MD"
    headers: int = 0
    exported: int | None = None


def _preamble(lines: Iterator[tuple[int, str]], chat: _Chat) -> None:
    """Reads the preamble through its closing rule; the channel names the thread."""
    for k, (_, line) in enumerate(lines):
        if k and line == RULE:
            return
        if line.startswith("Channel: ") and (name := line[9:].rsplit(" / ", 1)[-1].strip()):
            chat.thread = name


def _events(
    source: Source, ctx: ImportContext, chat: _Chat
) -> Iterator[tuple[int, str, re.Match[str] | None]]:
    """The lines after the preamble, each with its header match (None: not a header),
    the postambles left out (their counts go to ``chat.exported``)."""
    lines = iter(numbered_lines(source, ctx.text_decoder()))
    _preamble(lines, chat)
    chat.exported = None  # counted again on each pass
    blank = True
    for n, line in lines:
        if blank and line == RULE:
            after = next(lines, None)
            if after is None:
                return
            got = _EXPORTED.fullmatch(after[1].strip())
            if got is None:
                # a rule that opens no postamble (a preamble written twice, a hand-joined
                # file): its lines are read on (text, or reported), not the rest of the
                # file taken as the postamble and dropped unsaid
                yield n, line, None
                n, line = after
            else:
                # the postamble: what follows it (a hand-joined file, an export pasted
                # after it) is read on too, and the postambles' counts add up to what
                # the file says it holds
                if (count := written_count(got[1])) is not None:
                    chat.exported = (chat.exported or 0) + count
                closing = next(lines, None)
                if closing is None:
                    return
                if closing[1] == RULE:
                    continue  # blank stays True: a header may follow
                n, line = closing
        m = _HEADER.fullmatch(line) if blank else None
        yield n, line, m if m is not None and _date_match(m["date"]) else None
        blank = line == ""


def _first_pass(source: Source, ctx: ImportContext) -> _Chat:
    """The thread, the authors and the day/month order."""
    chat = _Chat(_file_thread(source))
    order = DateOrder()
    authors: dict[str, None] = {}
    for _, _, m in _events(source, ctx, chat):
        if m is not None:
            authors.setdefault(m["author"])
            if (d := _DATE.fullmatch(m["date"])) is not None:
                order.see(d)
    chat.order, guessed = order.verdict()
    if guessed:
        ctx.warn(
            source.name,
            f"day/month order is ambiguous; read as {'D/M' if chat.order == 'DM' else 'M/D'}",
        )
    chat.authors = list(authors)
    return chat


def _file_thread(source: Source) -> str:
    stem = PurePath(strip_compressed(source.name)).stem
    m = _FILE.match(stem)
    return m[1] if m else stem


@dataclass
class _Parts:
    content: list[str] = field(default_factory=list)
    attachments: list[str] = field(default_factory=list)
    embeds: list[str] = field(default_factory=list)
    stickers: list[str] = field(default_factory=list)
    reactions: list[dict[str, Any]] = field(default_factory=list)
    forwarded: list[str] = field(default_factory=list)


def _section(parts: _Parts, name: str, lines: list[str]) -> None:
    if name == "{Attachments}":
        parts.attachments += [ln.strip() for ln in lines if ln.strip()]
    elif name == "{Stickers}":
        parts.stickers += [ln.strip() for ln in lines if ln.strip()]
    elif name == "{Embed}":
        parts.embeds.append("\n".join(lines).strip())
    elif name == "{Reactions}":
        text = " ".join(lines)
        parts.reactions += [
            {"emoji": m[1], "count": written_count(m[2] or "1", 1)}
            for m in _REACTION.finditer(text)
        ]


def _parts(body: list[str]) -> _Parts:
    """A message's body cut into its content and its sections."""
    parts = _Parts()
    k = next(
        (i for i, ln in enumerate(body) if ln in _SECTIONS and (i == 0 or body[i - 1] == "")),
        len(body),
    )
    parts.content = body[:k]
    name = ""
    lines: list[str] = []
    for line in body[k:]:
        if name == "{Forwarded Message}":
            if line.startswith("Originally sent: "):
                name = ""
            else:
                parts.forwarded.append(line)
        elif line in _SECTIONS and not name:
            name, lines = line, []
        elif line == "" and name:
            _section(parts, name, lines)
            name = ""
        elif name:
            lines.append(line)
    if name:
        _section(parts, name, lines)
    return parts


def _time(m: re.Match[str], chat: _Chat, ctx: ImportContext) -> str | None:
    d = _DATE.fullmatch(m["date"])
    if d is not None:
        return when(d, chat.order, ctx.options.tz)
    old = _OLD.fullmatch(m["date"])
    return _old_time(old, ctx.options.tz) if old is not None else None


def _build(
    n: int, m: re.Match[str], body: list[str], chat: _Chat, ctx: ImportContext
) -> ConversationMessage | str | None:
    """The message of a header and its body; why it is rejected; None when empty."""
    stamp = _time(m, chat, ctx)
    if stamp is None:
        return f"date {m['date']!r} is not a day and time"
    parts = _parts(body)
    content = "\n".join(parts.content).strip("\n")
    forwarded = "\n".join(parts.forwarded).strip("\n")
    chunks = [content] if content.strip() else []
    chunks += [f"[forwarded] {forwarded}"] if forwarded.strip() else []
    chunks += [f"[attachment] {u}" for u in parts.attachments]
    if not chunks:
        chunks = [e for e in parts.embeds if e] or [f"[sticker] {u}" for u in parts.stickers]
    if not chunks:
        return None
    system = bool(SYSTEM_SENTENCE.match(content)) and not parts.attachments
    author = m["author"]
    return message(
        chunks, speaker=author,
        listeners=[] if system else mentioned_or_other(chat.authors, author, content),
        timestamp=stamp, source_id=ctx.loc(n), format="discord", thread=chat.thread,
        tags=[SYSTEM_TAG] if system else [],
        extra={"pinned": True if m["pinned"] else None, "attachments": parts.attachments,
               "embeds": parts.embeds, "stickers": parts.stickers, "reactions": parts.reactions},
    )  # fmt: skip


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    chat = _first_pass(source, ctx)
    ids = ContentIds(source.name)
    empty = EmptyCounter()
    cur: tuple[int, re.Match[str]] | None = None
    body: list[str] = []
    end: list[tuple[int, str, re.Match[str] | bool | None]] = [(0, "", True)]
    for n, line, m in chain(_events(source, ctx, chat), end):
        if m is None:
            if cur is not None:
                body.append(line)
            elif line.strip():
                ctx.reject(
                    ctx.loc(n), "text before the first DiscordChatExporter message header", line
                )
            continue
        if cur is not None:
            got = _build(*cur, body, chat, ctx)
            if isinstance(got, str):
                ctx.reject(ctx.loc(cur[0]), got, cur[1][0])
            elif got is None:
                empty.skip(ctx.loc(cur[0]))
            else:
                ids.assign(got)
                yield got
        if isinstance(m, re.Match):
            cur, body = (n, m), []
            chat.headers += 1
    empty.report(ctx)
    if chat.exported is not None and chat.exported != chat.headers:
        ctx.warn(
            source.name,
            f"the export says {counted(chat.exported, 'message')}; {counted(chat.headers, 'header')} read",
        )


DESCRIPTION = "DiscordChatExporter plain-text export (.txt: [date] Author, its sections)"
EXAMPLE = (
    f"{RULE}\nGuild: Garden club\nChannel: Text Channels / general\n{RULE}\n\n"
    "[3/1/2024 9:15 AM] ann\nhi @bob\n\n\n"
)
FIELDS = Fields(
    speaker="the header's author (the user name, `#discriminator` for older accounts)",
    listeners="the `@Name` mentions of the file's authors, else the other of two authors",
    time="the header's date and time (the exporter's locale; day/month order per file)",
    zone="naive: read in `--tz` (default UTC)",
    thread="the preamble's channel, else the channel in the file name, else the file's stem",
    id="no message ids: " + CONTENT_HASH,
    scope="the channel (the thread)",
    tags="`system` on the exporter's fallback sentences of system notifications",
    extra="`pinned`, `attachments` (URLs), `embeds` (text), `stickers`, `reactions` (`{emoji, count}`)",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.txt",), sniff, read, EXAMPLE, fields=FIELDS),)
