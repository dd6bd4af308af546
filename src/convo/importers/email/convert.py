"""What the three mail readers share: header-block sniffing and one message to a record."""

from __future__ import annotations

import re

from convo.core.errors import StrictAbort
from convo.core.io import Source, strip_bom
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.email.body import Body
from convo.importers.email.fast import parse_fast
from convo.importers.email.mime import headers, parse_message, read_body
from convo.importers.email.record import Origin, build_record

EML_LIMIT = 256 << 20  # one message a file: refuse absurd sizes rather than run out of memory

HEADER = re.compile(rb"[!-9;-~]+:")
_KNOWN = {
    b"from", b"to", b"cc", b"date", b"subject", b"message-id", b"received", b"return-path",
    b"mime-version", b"delivered-to", b"content-type", b"in-reply-to", b"references",
    b"reply-to", b"sender", b"x-mailer", b"user-agent", b"dkim-signature", b"list-id",
    b"x-gmail-labels", b"content-transfer-encoding", b"envelope-to", b"x-mozilla-status",
    b"thread-topic", b"x-original-to", b"precedence", b"errors-to", b"x-ymail-umid",
}  # fmt: skip


def header_block(lines: list[bytes]) -> tuple[int, int, int]:
    """(header-like lines, other lines, known mail header names) up to the first blank line."""
    good = bad = known = 0
    for line in lines[:200]:
        if not line.strip():
            break
        if line[:1] in (b" ", b"\t"):
            continue  # folded continuation
        m = HEADER.match(line)
        if m:
            good += 1
            if m.group(0)[:1].isupper() and m.group(0)[:-1].lower() in _KNOWN:
                known += 1
        else:
            bad += 1
    return good, bad, known


def head_lines(source: Source) -> list[bytes]:
    """The first lines of ``source`` (BOM removed), for sniffing."""
    return strip_bom(source.head).split(b"\n", 220)[:220]


_EMLX_COUNT = re.compile(rb"(\d{1,12})[ \t]*\r?\n")
_PLIST = re.compile(rb"\s*(?:<\?xml|<!DOCTYPE plist|<plist)")


def emlx_message(data: bytes) -> bytes | None:
    """The message of an Apple Mail ``.emlx`` file, None when ``data`` is not one.

    Mail.app writes the message's length in bytes on the first line, then the message
    (LF line ends), then an XML property list of its flags (mikez/emlx ``emlx/emlx.py``,
    jwz.org/blog/2005/07/emlx-flags). Where the count does not land on the property list
    (a file whose line ends were changed), the list's ``<?xml`` line ends the message."""
    m = _EMLX_COUNT.match(data)
    if not m or not HEADER.match(data, m.end()):
        return None
    start, end = m.end(), m.end() + int(m.group(1))
    if end > len(data) or (end < len(data) and not _PLIST.match(data, end)):
        found = data.rfind(b"\n<?xml", start)
        end = found + 1 if found >= 0 else len(data)
    return data[start:end]


def strip_envelope(data: bytes) -> tuple[bytes, bytes | None]:
    """(message, mbox ``From `` line or None) of a one-message file; an Apple Mail
    ``.emlx`` file is its message (``emlx_message``)."""
    data = strip_bom(data)
    emlx = emlx_message(data)
    if emlx is not None:
        return emlx, None
    if data.startswith(b"From "):
        end = data.find(b"\n")
        if end < 0:
            return b"", data
        return data[end + 1 :], data[: end + 1]
    return data.lstrip(b"\r\n"), None


def convert(
    data: bytes, ctx: ImportContext, origin: Origin, extra: dict | None = None
) -> ConversationMessage | None:
    """Parse one message's bytes; a broken one is rejected and None returned. ``extra``
    is merged into the record's (what the container knows, e.g. Maildir flags)."""
    where = origin.where
    if not data.strip():
        ctx.reject(where, "empty message", origin.envelope, "nothing follows the separator")
        return None
    try:
        parsed = parse_fast(data, ctx.options.encoding)
        if parsed is None or not parsed[0]:
            parsed = _parse_stdlib(data, ctx, where)
        if parsed is None:
            return None
        h, body = parsed
        record = build_record(h, body, ctx, origin)
    except StrictAbort:
        raise
    except Exception as e:  # never let one broken message end the archive
        ctx.reject(where, f"unreadable message ({type(e).__name__}: {e})", data[:2000])
        return None
    return _with_extra(record, extra)


# A header value folded without the white space a continuation line starts with (an
# Exchange server's x-microsoft-exchange-diagnostics, as in MimeKit's test issue358.txt):
# a run of base64-like characters alone on a line, with a header line after it. compat32
# took it for the start of the body, and the rest of the headers (Content-Type too) for text.
_BROKEN_FOLD = re.compile(rb"(\r?\n)([A-Za-z0-9+/=]{16,})(\r?\n)(?=[!-9;-~]+:)")
_HEADER_END = re.compile(rb"\r?\n\r?\n")


# A Content-Type or Content-Disposition whose next parameter starts a line of its own
# (enmime's bad-header-wrap.raw: ``x-unix-mode=0600;`` then ``name="a.zip"``), in any part.
_BROKEN_PARAM = re.compile(
    rb"(?im)^(content-(?:type|disposition)[ \t]*:[^\n]*;[ \t]*\r?\n)(?=[\w*.-]+[ \t]*=)"
)


def _mend_folds(data: bytes) -> tuple[bytes, int]:
    """``data`` with broken folds of its header block, and of its parts' Content-Type and
    Content-Disposition parameters, indented (and how many)."""
    end = _HEADER_END.search(data)
    cut = end.start() + 1 if end else len(data)
    head, mended = _BROKEN_FOLD.subn(rb"\1 \2\3", data[:cut])
    if mended:
        data = head + data[cut:]
    data, params = _BROKEN_PARAM.subn(rb"\1 ", data)
    return data, mended + params


def _parse_stdlib(
    data: bytes, ctx: ImportContext, where: str
) -> tuple[dict[str, list[str]], Body] | None:
    """(headers, body) by compat32, for messages the fast path leaves; None = rejected."""
    if data[:1] in (b" ", b"\t") and HEADER.match(data.lstrip(b" \t")):
        # white space before the first header (enmime's bad-header-start.raw): compat32
        # took that header for a continuation of none, and lost it (the From line)
        data = data.lstrip(b" \t")
        ctx.warn(where, "white space before the first header line ignored")
    data, mended = _mend_folds(data)
    if mended:
        ctx.warn(
            where,
            f"{counted(mended, 'header line')} folded without leading space read as continued",
        )
    msg = parse_message(data)
    if not msg.keys() and b"\n" in data:
        # A garbled first line hides the header block behind it: skip it and retry.
        rest = data.split(b"\n", 1)[1]
        if HEADER.match(rest):
            msg = parse_message(rest)
            if msg.keys():
                ctx.warn(where, "garbled first header line skipped")
    if not msg.keys():
        ctx.reject(
            where,
            "no mail headers; not an e-mail message",
            data[:2000],
            "a message starts with header lines such as From: and Date:",
        )
        return None
    return headers(msg), read_body(msg, ctx.options.encoding)


def _with_extra(record: ConversationMessage, extra: dict | None) -> ConversationMessage:
    if extra:
        record.extra = {**(record.extra or {}), **extra}
    return record
