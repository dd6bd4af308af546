"""LinkedIn's data export ("Get a copy of your data"): ``messages.csv`` (``linkedin``).

One row a message, the columns named by the header, which grew over the years (users'
parsers and their test data, found with the code search): ``CONVERSATION ID,
CONVERSATION TITLE,FROM,SENDER PROFILE URL,TO,DATE,SUBJECT,CONTENT,FOLDER`` in older
exports; ``RECIPIENT PROFILE URLS`` after ``TO`` since about 2022; ``IS MESSAGE DRAFT``,
``IS CONVERSATION DRAFT`` or ``ATTACHMENTS`` at the end in newer ones. ``DATE`` is
``2023-05-01 14:22:10 UTC``; ``TO`` names every recipient (a group's joined with
commas), ``RECIPIENT PROFILE URLS`` their profiles; ``FOLDER`` is ``INBOX``, ``SENT``,
``ARCHIVE``, ``SPAM``...; a cell may hold line breaks. Columns are read by name, in
any order and any case, so every layout reads the same.

Decisions:
- speaker = ``FROM``; listeners = ``TO``, split at commas only when ``RECIPIENT PROFILE
  URLS`` names more than one profile (a single name may hold a comma: ``Jane Doe, MBA``).
- thread = ``CONVERSATION TITLE`` (a group's name), else the conversation's people
  (``FROM`` and ``TO``, sorted, joined with ``, ``): the same for both directions of a
  chat, and for a reply whose ``SUBJECT`` says ``RE:``; ``extra.conversation_id`` keeps
  LinkedIn's id.
- text = ``CONTENT``; an InMail or sponsored message's HTML body (``<p class=
  "spinmail-quill-editor__spin-break">...``) as text, the HTML in ``extra.html``; each
  attachment an
  ``[attachment] URL`` chunk; ``SUBJECT`` is the record's subject. A row with neither
  is counted and skipped. A draft (``IS MESSAGE DRAFT`` ``Yes``) is tagged ``draft``;
  LinkedIn's own notices (``Message request accepted``...) are tagged ``system``.
- extra: ``conversation_id``, ``folder``, ``sender_url``, ``recipient_urls``,
  ``attachments``, ``html``.
- a row without ``FROM`` and ``DATE`` cells, or whose ``DATE`` does not read, is
  rejected with its line.

Ids and their scope (docs/ids.md): the export has no message ids: the content hash,
scoped by the thread.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.text.html import html_to_text
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter, csv_rows, utc_named
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines

NAME = "linkedin"
_NEEDED = ("FROM", "DATE", "CONTENT")
# An HTML body: InMail and sponsored messages (``<p class="spinmail-quill-editor__spin-
# break">Hi&nbsp;there!</p>...``).
_HTML_BODY = re.compile(r"\A\s*<(?:p|div|span|br|ul|ol|table)\b[^>]*>", re.I)
_URLS = re.compile(r"https?://\S+?(?=[,;\s]|$)")
_NOTICES = frozenset({"Message request accepted", "A LinkedIn member left the conversation."})


def _header(source: Source) -> dict[str, int]:
    """The header's columns (upper case) -> their index; {} when it is not LinkedIn's."""
    lines = head_lines(source, 1)
    if not lines:
        return {}
    cells = next(csv.reader([lines[0].lstrip("\ufeff")]), [])
    columns = {c.strip().upper(): i for i, c in enumerate(cells)}
    known = all(c in columns for c in _NEEDED)
    return (
        columns
        if known and ("CONVERSATION ID" in columns or "SENDER PROFILE URL" in columns)
        else {}
    )


def sniff(source: Source) -> int:
    return 92 if _header(source) else 0


def _cell(row: list[str], columns: dict[str, int], name: str) -> str:
    i = columns.get(name)
    return row[i].strip() if i is not None and i < len(row) else ""


def _listeners(to: str, urls: list[str]) -> list[str]:
    if len(urls) > 1:
        return [n.strip() for n in to.split(",") if n.strip()]
    return [to] if to else []


def _message(
    row: list[str], where: str, columns: dict[str, int]
) -> ConversationMessage | str | None:
    """A row's message, else why it is rejected, else None (nothing in it)."""
    cell = lambda name: _cell(row, columns, name)  # noqa: E731 - one row's reader
    sender, date = cell("FROM"), cell("DATE")
    if not sender and not date:
        return f"a row of {len(row)} cells without FROM and DATE"
    stamp = iso_ts(utc_named(date))
    if stamp is None:
        return f"DATE {date[:40]!r} is not a time"
    content = _cell_raw(row, columns, "CONTENT")
    html = content if _HTML_BODY.match(content) else ""
    if html:  # an InMail or sponsored message: its body is HTML
        content = html_to_text(html)
    files = _URLS.findall(cell("ATTACHMENTS"))
    chunks = ([content] if content.strip() else []) + [f"[attachment] {u}" for u in files]
    if not chunks:
        return None
    urls = _URLS.findall(cell("RECIPIENT PROFILE URLS"))
    listeners = _listeners(cell("TO"), urls)
    people = ", ".join(sorted({sender, *listeners} - {""}))
    tags = ["draft"] if cell("IS MESSAGE DRAFT").lower() in ("yes", "true") else []
    if content.strip() in _NOTICES:
        tags.append(SYSTEM_TAG)
    return message(
        chunks,
        speaker=sender or None,
        listeners=listeners,
        timestamp=stamp,
        source_id=where,
        format=NAME,
        thread=cell("CONVERSATION TITLE") or people,
        subject=cell("SUBJECT"),
        tags=tags,
        extra={
            "conversation_id": cell("CONVERSATION ID"),
            "folder": cell("FOLDER"),
            "sender_url": cell("SENDER PROFILE URL"),
            "recipient_urls": urls,
            "attachments": files,
            "html": html or None,
        },
    )


def _cell_raw(row: list[str], columns: dict[str, int], name: str) -> str:
    """A cell as written (a message's own leading spaces and line breaks kept)."""
    i = columns.get(name)
    return row[i] if i is not None and i < len(row) else ""


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    columns = _header(source)
    if not columns:
        raise InputError(
            "not a LinkedIn messages.csv",
            where=source.name,
            hint="the first line must be the export's header (CONVERSATION ID,CONVERSATION "
            "TITLE,FROM,SENDER PROFILE URL,TO,...,DATE,SUBJECT,CONTENT,FOLDER)",
        )
    decode = ctx.text_decoder(what="CSV text that is not UTF-8")
    empty = EmptyCounter()
    rows = csv_rows(source, decode, "LinkedIn", "export messages.csv again from LinkedIn")
    for n, row in rows:
        where = ctx.loc(n)
        got = _message(row, where, columns)
        if isinstance(got, str):
            ctx.reject(where, got, ",".join(row))
        elif got is None:
            empty.skip(where)
        else:
            yield got
    empty.report(ctx)


DESCRIPTION = (
    "LinkedIn data export messages.csv (CONVERSATION ID,CONVERSATION TITLE,FROM,SENDER "
    "PROFILE URL,TO,...,DATE,SUBJECT,CONTENT,FOLDER; every year's columns)"
)
EXAMPLE = (
    "CONVERSATION ID,CONVERSATION TITLE,FROM,SENDER PROFILE URL,TO,DATE,SUBJECT,CONTENT,FOLDER\n"
    "2-abc,,Ann Lee,https://www.linkedin.com/in/ann,Bob Ray,2023-05-01 14:22:10 UTC,,Hi Bob,INBOX"
)
FIELDS = Fields(
    speaker="`FROM`",
    listeners="`TO` (split at commas when `RECIPIENT PROFILE URLS` names several profiles)",
    time="`DATE` (`2023-05-01 14:22:10 UTC`)",
    zone="the zone `DATE` names (UTC); a date without one is read as UTC",
    thread="`CONVERSATION TITLE`, else the conversation's people (`FROM` and `TO`) sorted",
    id="no message ids: " + CONTENT_HASH,
    scope="the thread",
    subject="`SUBJECT` (InMails; `RE:` on replies)",
    tags="`draft` (`IS MESSAGE DRAFT`), `system` on LinkedIn's own notices",
    extra="`conversation_id`, `folder`, `sender_url`, `recipient_urls`, `attachments`, `html` "
    "(an InMail or sponsored message's HTML body)",
)

FORMATS = (
    Format(
        NAME, "chat", DESCRIPTION, ("messages.csv", "*.csv"), sniff, read, EXAMPLE, fields=FIELDS
    ),
)
