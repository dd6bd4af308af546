"""DiscordChatExporter's CSV export (format ``discord-csv``).

What Tyrrrz/DiscordChatExporter's ``Exporting/CsvMessageWriter.cs`` writes: the header
``AuthorID,Author,Date,Content,Attachments,Reactions``, then one row a message, every
cell quoted (``"`` doubled), a row ending in CRLF or LF; a cell may hold line breaks.
``Author`` is the user's name, with ``#discriminator`` for accounts from before Discord's
usernames (``User.FullName``); ``Date`` is .NET's round-trip ``o`` format with its offset
(``2023-01-06T17:11:26.4140000+01:00``); ``Attachments`` the files' URLs and
``Reactions`` ``emoji (count)`` entries, each list joined by commas. A system
notification's content is the exporter's fallback sentence
(``PlainTextMessageExtensions.GetFallbackContent``: ``Pinned a message.``, ``Joined the
server.``, ``Added Ann to the group.``...). The CSV has no message ids, replies or
mentions; the JSON export (format ``discord``) has them.

Decisions:
- speaker = ``Author``; listeners = ``@Name`` mentions of the file's authors, else the
  other of two authors (a DM); thread = the channel named in DiscordChatExporter's file
  name (``Guild - Category - channel [id].csv``: ``channel``), else the file's stem.
- each attachment is an ``[attachment] URL`` chunk; reactions go to ``extra.reactions``
  (``{"emoji", "count"}``); the fallback sentences of system notifications are tagged
  ``system``. A row with neither text nor attachment is counted and skipped.
- a row whose date does not parse, or that has too few cells, is rejected with its line.

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the channel (the thread).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from convo.core.compression import strip_compressed
from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter, csv_rows, mentioned_or_other
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines

NAME = "discord-csv"
HEADER = "AuthorID,Author,Date,Content,Attachments,Reactions"
_FILE = re.compile(r"^(?:.* - )?(.+?) \[\d+\](?: \(part \d+\))?$")
_REACTION = re.compile(r"(?:^|,)([^,]+?) \((\d+)\)")
# The fallback sentences of system notifications (also in the text export: discord_txt).
SYSTEM_SENTENCE = re.compile(
    r"^(?:Pinned a message\.|Started a thread\.|Joined the server\.|Left the group\."
    r"|Added a recipient\.|Removed a recipient\.|Changed the channel icon\."
    r"|Changed the channel name(?:\.|: .*)|Added .+ to the group\.|Removed .+ from the group\."
    r"|Started a call that lasted [\d,]+ minutes\.)$",
    re.S,
)


def sniff(source: Source) -> int:
    lines = head_lines(source, 1)
    return 95 if lines and lines[0].lstrip("\ufeff").strip() == HEADER else 0


def _rows(source: Source, ctx: ImportContext) -> Iterator[tuple[int, list[str]]]:
    """(first line, cells) of every data row; a cell's line breaks kept."""
    decode = ctx.text_decoder(what="CSV text that is not UTF-8")
    hint = "export the channel again, or as JSON (--format Json)"
    return csv_rows(source, decode, "DiscordChatExporter", hint)


def _thread(source: Source) -> str:
    stem = PurePath(strip_compressed(source.name)).stem
    m = _FILE.match(stem)
    return m[1] if m else stem


def _reactions(cell: str) -> list[dict[str, Any]]:
    return [{"emoji": m[1].strip(), "count": int(m[2])} for m in _REACTION.finditer(cell)]


def _authors(source: Source, ctx: ImportContext) -> list[str]:
    """The file's authors in order (a first pass, for a DM's listener)."""
    authors: dict[str, None] = {}
    for _, row in _rows(source, ctx):
        if len(row) > 1 and row[1]:
            authors.setdefault(row[1])
    return list(authors)


def _message(
    row: list[str], loc: str, authors: list[str], thread: str
) -> ConversationMessage | str | None:
    """A row's message, else why it is rejected, else None (nothing in it)."""
    if len(row) < 4:
        return f"a row of {len(row)} cells, not the export's 6"
    author_id, author, date, content = row[:4]
    stamp = iso_ts(date)
    if stamp is None:
        return f"date {date[:40]!r} is not an ISO time"
    files = [u.strip() for u in (row[4] if len(row) > 4 else "").split(",") if u.strip()]
    chunks = ([content] if content.strip() else []) + [f"[attachment] {u}" for u in files]
    if not chunks:
        return None
    system = bool(SYSTEM_SENTENCE.match(content)) and not files
    return message(
        chunks,
        speaker=author or None,
        listeners=[] if system else mentioned_or_other(authors, author, content),
        timestamp=stamp,
        source_id=loc,
        format="discord",
        thread=thread,
        tags=[SYSTEM_TAG] if system else [],
        extra={
            "author_id": author_id,
            "attachments": files,
            "reactions": _reactions(row[5]) if len(row) > 5 else [],
        },
    )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if not sniff(source):
        raise InputError(
            "not a DiscordChatExporter CSV export",
            where=source.name,
            hint=f"the first line must be the export's header row, {HEADER}",
        )
    authors = _authors(source, ctx)
    thread = _thread(source)
    empty = EmptyCounter()
    for n, row in _rows(source, ctx):
        loc = ctx.loc(n)
        got = _message(row, loc, authors, thread)
        if isinstance(got, str):
            ctx.reject(loc, got, ",".join(row))
        elif got is None:
            empty.skip(loc)
        else:
            yield got
    empty.report(ctx)


DESCRIPTION = "DiscordChatExporter CSV export (AuthorID,Author,Date,Content,Attachments,Reactions)"
EXAMPLE = (
    'AuthorID,Author,Date,Content,Attachments,Reactions\n"1","ann","2023-01-06T17:11:26.4140000'
    '+01:00","hi @bob","",""'
)
FIELDS = Fields(
    speaker="`Author` (the user name, `#discriminator` for older accounts)",
    listeners="the `@Name` mentions of the file's authors, else the other of two authors",
    time="`Date` (ISO with its offset)",
    zone="the offset `Date` carries",
    thread="the channel named in the file name (`Guild - Category - channel [id].csv`), else the "
    "file's stem",
    id="no message ids: " + CONTENT_HASH,
    scope="the channel (the thread)",
    tags="`system` on the exporter's fallback sentences of system notifications",
    extra="`author_id`, `attachments` (URLs), `reactions` (`{emoji, count}`)",
)

FORMATS = (Format(NAME, "chat", DESCRIPTION, ("*.csv",), sniff, read, EXAMPLE, fields=FIELDS),)
