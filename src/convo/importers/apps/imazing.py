"""iMazing's CSV exports of an iPhone's chats (format ``imazing``): Messages (iMessage
and SMS; records ``imessage``) and WhatsApp (records ``whatsapp``), one file a chat
(``Messages - Bob.csv``), as iMazing writes them and importers of them in public
repositories read them (found with the code search).

The header names the columns, which vary with iMazing's version: Messages
``Chat Session, Message Date, [Delivered Date, Read Date, Edited Date,] Service, Type,
Sender ID, Sender Name, Status, Replying to, Subject, Text, [Reactions,] Attachment,
Attachment type``; WhatsApp ``Chat Session, Message Date, Sent Date, Type, Sender ID,
Sender Name, Status, Forwarded, Replying to, Text, Reactions, Attachment, Attachment
type, Attachment info``. A file saved for a spreadsheet in another language separates
them with ``;`` or a tab.

Decisions: every column is read by its name. ``Type`` ``Outgoing``: the speaker is
``Me`` (iMazing leaves the sender empty); ``Incoming``: ``Sender Name``, else ``Sender
ID``; ``Notification`` (WhatsApp's encryption notice, group events): no speaker, tagged
``system``. Listeners: the other of a chat of two. Thread: ``Chat Session``. Time:
``Message Date`` as written, the exporting computer's local time: read in ``--tz``.
The text, then ``[attachment] NAME`` for a file; ``Subject`` the subject; the message
replied to (``Replying to``, its text) in ``extra.quote``; ``Reactions``, ``Status``,
``Service``, the delivery and read times, ``Forwarded`` in ``extra``. A row without a
date that reads is kept without a time, warned; one with nothing to read is counted in
one warning.

Ids and their scope (docs/ids.md): no message ids: the content hash, its conversation
the chat (``Chat Session``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.apps.common import SYSTEM_TAG, EmptyCounter, csv_rows, other_party
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import CONTENT_HASH, Fields
from convo.importers.registry import Format, head_lines

NAME = "imazing"
_HEAD = "Chat Session"
_HINT = "export the chat again from iMazing as CSV"
# the columns kept in ``extra`` (their names as iMazing writes them)
_EXTRA = {
    "Service": "service", "Status": "status", "Reactions": "reactions",
    "Delivered Date": "delivered", "Read Date": "read", "Edited Date": "edited",
    "Sent Date": "sent", "Forwarded": "forwarded", "Attachment type": "attachment_type",
    "Attachment info": "attachment_info",
}  # fmt: skip


def _delimiter(first: str) -> str | None:
    """The header's separator (``,``, ``;``, a tab), None for another file."""
    first = first.lstrip("\ufeff")
    if not first.startswith(_HEAD) or len(first) <= len(_HEAD):
        return None
    sep = first[len(_HEAD)]
    return sep if sep in ",;\t" and f"{sep}Message Date" in first else None


def sniff(source: Source) -> int:
    lines = head_lines(source, 1)
    return 90 if lines and _delimiter(lines[0]) else 0


def _rows(source: Source, ctx: ImportContext) -> Iterator[tuple[int, dict[str, str]]]:
    lines = head_lines(source, 1)
    sep = _delimiter(lines[0]) if lines else None
    header: list[str] = []
    rows = csv_rows(source, ctx.text_decoder(), "iMazing", _HINT, header, sep or ",")
    for n, cells in rows:
        yield n, dict(zip(header, (c.strip() for c in cells), strict=False))


def _speaker(row: dict[str, str]) -> str | None:
    kind = row.get("Type", "")
    if kind == "Outgoing":
        return "Me"
    if kind == "Notification":
        return None
    return row.get("Sender Name") or row.get("Sender ID") or None


def _record(
    n: int, row: dict[str, str], speakers: list[str], fmt: str, ctx: ImportContext
) -> ConversationMessage | None:
    text = row.get("Text", "")
    attachment = row.get("Attachment", "")
    chunks = ([text] if text else []) + ([f"[attachment] {attachment}"] if attachment else [])
    if not chunks:
        return None
    speaker = _speaker(row)
    system = row.get("Type") == "Notification"
    loc = ctx.loc(n)
    ts = iso_ts(row.get("Message Date") or None, ctx.options.tz)
    if ts is None:
        ctx.warn(loc, f"a Message Date that does not read ({row.get('Message Date', '')!r}); "
                 "time left unknown")  # fmt: skip
    extra: dict[str, Any] = {key: row.get(col) or None for col, key in _EXTRA.items()}
    extra["quote"] = row.get("Replying to") or None
    extra["sender_id"] = row.get("Sender ID") or None
    return message(
        chunks,
        speaker=speaker,
        listeners=[] if system else other_party(speakers, speaker),
        timestamp=ts,
        source_id=loc,
        format=fmt,
        thread=row.get(_HEAD) or None,
        subject=row.get("Subject") or None,
        tags=[SYSTEM_TAG] if system else [],
        extra=extra,
    )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    speakers: dict[str, None] = {}
    fmt = "imessage"
    for _, row in _rows(source, ctx):  # a first pass: the speakers, the app
        fmt = "whatsapp" if "Forwarded" in row or "Sent Date" in row else "imessage"
        if (who := _speaker(row)) is not None:
            speakers.setdefault(who)
        if len(speakers) > 2:
            break
    empty = EmptyCounter()
    for n, row in _rows(source, ctx):
        rec = _record(n, row, list(speakers), fmt, ctx)
        if rec is None:
            empty.skip(ctx.loc(n))
        else:
            yield rec
    empty.report(ctx)


DESCRIPTION = "iMazing's CSV exports of an iPhone's Messages (iMessage, SMS) and WhatsApp chats"
EXAMPLE = (
    "Chat Session,Message Date,Service,Type,Sender ID,Sender Name,Status,Replying to,"
    "Subject,Text,Reactions,Attachment,Attachment type\n"
    "Bob,2020-01-01 12:00:00,SMS,Incoming,+13125550100,Bob,Read,,,Hello,,,\n"
)
FIELDS = Fields(
    speaker="`Me` for `Outgoing` rows, else `Sender Name` (else `Sender ID`); notifications: none",
    listeners="the other of a chat of two",
    time="`Message Date` (the exporting computer's local time)",
    zone="naive: read in `--tz` (default UTC)",
    thread="`Chat Session`",
    id="no message ids: " + CONTENT_HASH,
    scope="the chat (`Chat Session`)",
    subject="`Subject`",
    tags="`system` for `Notification` rows",
    extra="`quote` (`Replying to`), `reactions`, `status`, `service`, `delivered`, `read`, "
    "`edited`, `sent`, `forwarded`, `attachment_type`, `attachment_info`, `sender_id`",
)
FORMATS = (
    Format(
        NAME,
        "chat",
        DESCRIPTION,
        ("Messages - *.csv", "*.csv"),
        sniff,
        read,
        EXAMPLE,
        fields=FIELDS,
    ),
)
