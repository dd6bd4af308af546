"""One message's raw headers and collected body to a ``ConversationMessage``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from convo.core.record import ConversationMessage, ConversationMessageMeta
from convo.core.timestamps import format_timestamp_utc
from convo.importers.context import ImportContext
from convo.importers.email.body import Body, holdings
from convo.importers.email.charsets import decode_words, header_charset
from convo.importers.email.dates import message_time
from convo.importers.email.mime import first
from convo.importers.email.people import people, stand_in_speaker
from convo.importers.email.quotes import strip_quotes
from convo.importers.email.scrubbed import take_scrubbed
from convo.importers.email.tags import expunged, message_ids, tags_of

_GMAIL_THREAD = re.compile(r"\s*<?(\d{1,20})>?\s*")


def gmail_thread(h: dict[str, list[str]]) -> str | None:
    """Gmail's conversation, ``gmail:<hex>``, from the ``X-GM-THRID`` Gmail Takeout writes
    on every message (a decimal 64-bit number; in hex it is the Gmail API's ``threadId``
    and the id in a conversation's web address). None without one."""
    found = _GMAIL_THREAD.fullmatch(first(h, "x-gm-thrid") or "")
    if found is None or not 0 < int(found.group(1)) < 1 << 64:
        return None
    return f"gmail:{int(found.group(1)):x}"


def _threading(h: dict[str, list[str]]) -> tuple[str | None, str | None, str | None]:
    """(id, reply_to, thread) from Message-ID, In-Reply-To and References; the thread is
    Gmail's conversation when the message carries one (``gmail_thread``)."""
    own = message_ids(first(h, "message-id"))
    msg_id = own[0] if own else None
    refs: list[str] = []
    for value in h.get("references", ()):
        refs.extend(message_ids(value))
    irt = message_ids(first(h, "in-reply-to"))
    reply_to = irt[0] if irt else (refs[-1] if refs else None)
    thread = gmail_thread(h) or (refs[0] if refs else (reply_to or msg_id))
    return msg_id, reply_to, thread


@dataclass(frozen=True)
class Origin:
    """Where a message comes from: its format, ``msg-N`` locator, the location warnings
    name, the mbox ``From `` line and a time its container knows (a Maildir file name's
    delivery time, an .msg's creation time), the last resort when no header has one."""

    fmt: str
    locator: str
    where: str
    envelope: bytes | None = None
    arrival: datetime | None = None
    arrival_source: str = "maildir"  # what ``arrival`` is (``dates._LABELS``)


def _add_extra(
    extra: dict[str, Any],
    h: dict[str, list[str]],
    attachments: list[dict[str, Any]],
    envelope: bytes | None,
) -> None:
    """The attachments, Thunderbird's deleted flag and the mbox ``From `` line."""
    if attachments:
        extra["attachments"] = attachments
    if expunged(h):
        extra["deleted"] = True
    if envelope:
        extra["envelope"] = envelope.rstrip(b"\r\n").decode("utf-8", "replace")


def build_record(
    h: dict[str, list[str]], body: Body, ctx: ImportContext, origin: Origin
) -> ConversationMessage:
    """The record from raw headers (lower-case name -> values) and the collected body."""
    where, envelope = origin.where, origin.envelope
    extra: dict[str, Any] = {}
    cs, guess = header_charset(h, body.charsets, ctx.options.encoding)
    if guess is not None:
        ctx.tell_guess(where, guess, "8-bit header bytes without a charset")
    for part in body.guesses:
        ctx.tell_guess(where, part, "a text part without a charset")
    for name in body.damaged:
        ctx.warn(where, f"TNEF part {name} is damaged: what follows the damage is not read")
    senders, listeners = people(h, extra, cs)
    speaker = senders[0] if senders else stand_in_speaker(h, envelope, cs, ctx, where, extra)
    timestamp = None
    dt = message_time(h, ctx, where, extra, envelope, origin.arrival, origin.arrival_source)
    if dt is not None:
        try:
            timestamp = format_timestamp_utc(dt)
        except (ValueError, OverflowError):
            timestamp = None
    msg_id, reply_to, thread = _threading(h)
    subject = decode_words(first(h, "subject"), cs) or None
    text, scrubbed = take_scrubbed(body.text())
    attachments = [*body.attachments, *scrubbed]
    if scrubbed and not text:
        text = holdings(attachments)
    if ctx.options.strip_quotes:
        text = strip_quotes(text)
    _add_extra(extra, h, attachments, envelope)
    return ConversationMessage(
        text_chunks=[text],
        metadata=ConversationMessageMeta(speaker=speaker, recipients=listeners),
        tags=tags_of(h, subject or "", text),
        timestamp=timestamp,
        source_id=f"{ctx.source.name}#{origin.locator}",
        id=msg_id,
        format=origin.fmt,
        thread=thread,
        reply_to=reply_to,
        subject=subject,
        extra=extra or None,
    )
