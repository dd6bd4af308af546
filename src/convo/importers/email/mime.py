"""compat32 messages: parsing, raw headers and the MIME tree walk (the robust path)."""

from __future__ import annotations

import binascii
import functools
import re
from collections.abc import Callable
from email.message import Message
from email.parser import BytesParser
from email.policy import Compat32, compat32
from email.utils import collapse_rfc2231_value, unquote
from typing import Any

from convo.importers.email.addresses import addresses
from convo.importers.email.body import Body, add_leaf, collect_alternative, stored_apart
from convo.importers.email.charsets import decode_words, raw_header_text
from convo.importers.email.smime import signed_content

_PARSER = BytesParser(policy=compat32)
_ONE_LINE = re.compile(r"[\x20-\x7e\t]*")


class _Sizing(Compat32):
    """compat32 for measuring an attached message (``as_bytes``): a short one-line ASCII
    header is written as it is, which is what compat32's folding makes of it (tests
    check), without building an ``email.header.Header`` for each, which was most of
    the time a forwarded message took."""

    def fold_binary(self, name: str, value: Any) -> bytes:
        if isinstance(value, str) and len(name) + len(value) <= 76 and _ONE_LINE.fullmatch(value):
            return f"{name}: {value}{self.linesep}".encode("ascii")
        return super().fold_binary(name, value)


SIZING = _Sizing()
# S/MIME in one part (RFC 8551): enveloped (encrypted) or opaque-signed data.
OPAQUE_SIGNED = ("application/pkcs7-mime", "application/x-pkcs7-mime")


def parse_message(data: bytes) -> Message:
    # CRLF is read as LF on both paths, so that text attachment sizes agree.
    if b"\r\n" in data:
        data = data.replace(b"\r\n", b"\n")
    return _PARSER.parsebytes(data)


def headers(msg: Message) -> dict[str, list[str]]:
    """Raw header values by lower-case name, in order. Raw, because compat32 turns 8-bit
    values into Header objects that have lost their bytes."""
    h: dict[str, list[str]] = {}
    for name, value in msg.raw_items():
        key = name.lower()
        if key in h:
            h[key].append(value)
        else:
            h[key] = [value]
    return h


def first(h: dict[str, list[str]], name: str) -> str | None:
    values = h.get(name)
    return values[0] if values else None


def _params(part: Message, header: str) -> dict[str, Any]:
    """A header's parameters by lower-case name, the first of each, as ``get_param`` gives
    them: parsed once per distinct header value (``get_param`` parses the header again
    on every call, and mail repeats a few Content-Type values). Treat as read-only."""
    value = part.get(header)
    if value is None:
        return {}
    return _parsed_params(header, str(value))


@functools.lru_cache(maxsize=4096)
def _parsed_params(header: str, value: str) -> dict[str, Any]:
    holder = Message()
    holder[header] = value
    try:
        found = holder.get_params(header=header)
    except Exception:
        return {}
    out: dict[str, Any] = {}
    for key, param in found or []:
        out.setdefault(key.lower(), param)
    return out


def _value(value: Any) -> str | None:
    if isinstance(value, tuple):  # RFC 2231: (charset, language, value)
        try:
            return collapse_rfc2231_value(value)
        except Exception:
            return str(value[2])
    return value if isinstance(value, str) else None


def _filename(part: Message, ctype: dict[str, Any] | None = None) -> str | None:
    """``get_filename`` (Content-Disposition's filename, else Content-Type's name)."""
    ctype = _params(part, "content-type") if ctype is None else ctype
    found = _params(part, "content-disposition").get("filename", ctype.get("name"))
    # get_filename unquotes once more and strips, as here
    name = (unquote(found) if isinstance(found, str) else _value(found) or "").strip()
    if not name:
        return None
    if "\ufffd" in str(name):  # compat32 lost raw 8-bit bytes: read the raw header
        for key, value in part.raw_items():
            if key.lower() in ("content-disposition", "content-type"):
                m = _RAW_NAME.search(value)
                if m:
                    return raw_header_text(m.group(1))
    return decode_words(str(name))


_RAW_NAME = re.compile(r'(?:file)?name\s*=\s*"?([^";\r\n]+)', re.I)


def _disposition(part: Message) -> str:
    value = part.get("Content-Disposition")
    if not value:
        return ""
    return str(value).split(";", 1)[0].strip().lower()


def _content_type(part: Message) -> str:
    """compat32's get_content_type, but ``text`` without a subtype is text/plain."""
    value = part.get("Content-Type")
    if value is None:
        return part.get_default_type()
    # the first word: a parameter written without its ";" is not part of the type
    ctype = (str(value).split(";", 1)[0].split() or [""])[0].lower()
    if ctype == "text":
        return "text/plain"
    if ctype.count("/") != 1:
        return "text/plain"
    return ctype


def _payload_bytes(part: Message) -> bytes:
    try:
        data = part.get_payload(decode=True)
    except Exception:
        data = None
    if data is None:
        raw = part.get_payload()
        if isinstance(raw, str):
            return raw.encode("ascii", "surrogateescape")
        return b""
    return data if isinstance(data, bytes) else bytes(data)


def read_body(msg: Message, encoding: str | None = None) -> Body:
    """The body of a parsed message (``encoding``: see ``Body``)."""
    body = Body(encoding)
    collect_body(msg, body)
    return body


def collect_body(msg: Message, body: Body, depth: int = 0) -> None:
    """Walk the MIME tree: text/plain preferred, HTML as a fallback, the rest attachments."""
    ctype = _content_type(msg)
    if depth > 30:  # absurd nesting: stop rather than recurse forever
        return
    if ctype.startswith("multipart/") or (msg.is_multipart() and ctype != "message/rfc822"):
        payload = msg.get_payload()
        if not isinstance(payload, list):
            if not (
                _split_at_unfolded_boundary(msg, ctype, body, depth)
                or _split_at_found_boundary(msg, ctype, body, depth)
            ):
                leaf(msg, "text/plain", body)  # no usable boundary: the raw body is its text
            return
        if ctype == "multipart/alternative":
            _alternative(payload, body, depth)
            return
        for sub in payload:
            if isinstance(sub, Message):
                collect_body(sub, body, depth + 1)
        return
    if ctype == "message/rfc822":
        _attached_message(msg, body, depth)
        return
    if ctype in OPAQUE_SIGNED and _opaque_signed(msg, body, depth):
        return
    leaf(msg, ctype, body)


def _opaque_signed(part: Message, body: Body, depth: int) -> bool:
    """An opaque-signed S/MIME part (``smime.p7m`` holding ``SignedData``): listed as an
    attachment, the entity it signs read in its place. False when it holds none
    (encrypted, damaged): then it is a leaf as any other."""
    blob = _payload_bytes(part)
    inner = signed_content(blob)
    if inner is None:
        return False
    info: dict[str, Any] = {"name": _filename(part), "type": _content_type(part), "size": len(blob)}
    if disp := _disposition(part):
        info["disposition"] = disp
    body.attachments.append(info)
    collect_body(parse_message(inner), body, depth + 1)
    return True


# A delimiter line with a part's header line under it: the boundary a body really uses.
_DELIMITER = re.compile(rb'^--([^\s"]{1,70})[ \t]*\n(?=[A-Za-z][A-Za-z0-9-]*:)', re.M)


def _split_at_found_boundary(msg: Message, ctype: str, body: Body, depth: int) -> bool:
    """A multipart whose declared boundary its body never uses (spam kits, broken
    mailers: SpamScope mail-parser's ``tests/mails/mail_malformed_3`` declares
    ``--=_HsWzsKVZkho``, opens its one part with ``----=_GlSzQZUbRbpVOpy`` and closes it
    with a third): split at the delimiter line the body has, rather than read base64
    parts as its text. False when the body has none."""
    raw = _payload_bytes(msg)
    found = _DELIMITER.search(raw)
    if found is None:
        return False
    opens = not raw[: found.start()].strip()  # the body starts with it: a part follows
    if not opens and raw.count(b"\n--" + found.group(1)) < 2:
        return False  # one delimiter line inside text is no multipart body
    return _split_at(raw, ctype, found.group(1), body, depth)


def _split_at_unfolded_boundary(msg: Message, ctype: str, body: Body, depth: int) -> bool:
    """A boundary folded inside its quotes (Outlook 2000's ``boundary="----=_NextPart\r\n
    _000_0002_01BFC036.AE309650"``, hunnysoft's sample m0021): the standard library keeps
    the line break in it, so no delimiter line matched and the whole body was read as
    text. Unfolded (RFC 5322: the line break removed, the space kept) it is the one the
    body uses."""
    declared = msg.get_boundary()
    if not declared or "\n" not in declared:
        return False
    boundary = _FOLDED.sub("", declared).encode("utf-8", "surrogateescape")
    return _split_at(_payload_bytes(msg), ctype, boundary, body, depth)


_FOLDED = re.compile(r"\r?\n(?=[ \t])")


def _split_at(raw: bytes, ctype: str, boundary: bytes, body: Body, depth: int) -> bool:
    """The body ``raw`` read as a multipart split at ``boundary``; False when it is none."""
    head = f'Content-Type: {ctype}; boundary="'.encode() + boundary + b'"\n\n'
    inner = parse_message(head + raw)
    if not isinstance(inner.get_payload(), list):
        return False
    collect_body(inner, body, depth + 1)
    return True


def _alternative(payload: list, body: Body, depth: int) -> None:
    subs = [s for s in payload if isinstance(s, Message)]
    collect_alternative(
        [_content_type(s) for s in subs],
        lambda i, sub: collect_body(subs[i], sub, depth + 1),
        body,
    )


def leaf(
    part: Message, ctype: str, body: Body, payload: Callable[[], bytes] | None = None
) -> str | None:
    """Add a leaf part to ``body``; returns its file name. ``payload``: the decoded
    body, when the caller decodes it (the fast path, which reads only the headers here)."""
    cid = part.get("Content-ID")
    params = _params(part, "content-type")
    name = _filename(part, params)
    add_leaf(
        body,
        ctype,
        _disposition(part),
        name,
        payload or (lambda: _payload_bytes(part)),
        lambda: (
            _value(params.get("charset")),
            _value(params.get("format")),
            _value(params.get("delsp")),
        ),
        decode_words(str(cid)).strip() if cid else None,
    )
    apple = part.get("X-Apple-Content-Length")
    stored_apart(body, str(apple) if apple is not None else None)
    return name


def attached_size(inner: Message) -> int:
    """An attached message's size as compat32 writes it; 0 when it cannot (a header
    with a byte ``str.splitlines`` cuts at, say), rather than losing the message."""
    try:
        return len(inner.as_bytes(policy=SIZING))
    except Exception:
        return 0


def _attached_message(part: Message, body: Body, depth: int) -> None:
    """message/rfc822: listed as an attachment; its text follows as a forwarded block."""
    payload = part.get_payload()
    inner = _base64_message(part, payload[0] if isinstance(payload, list) and payload else None)
    inner = _without_envelope(inner)
    if not isinstance(inner, Message):
        body.attachments.append(
            {"name": _filename(part), "type": "message/rfc822", "size": len(_payload_bytes(part))}
        )
        return
    size = attached_size(inner) if depth < 5 else 0
    inner_body = Body(body.encoding)
    collect_body(inner, inner_body, depth + 1)
    attached(body, _filename(part), headers(inner), inner_body, size)


_HEADER_LINE = re.compile(r"[!-9;-~]+:")


def _without_envelope(inner: Any) -> Any:
    """An attached message saved with its mailbox's envelope line first (Netscape
    forwarding a stored message: ``>From - Fri Dec 13 15:01:21 1996``, in MimeKit's
    content-length.mbox): compat32 reads no header after that line, so the forwarded
    message's From, Date and Subject were text. Its headers are read from the next line.
    Anything else is ``inner`` as it was."""
    if not isinstance(inner, Message) or inner.keys():
        return inner
    raw = inner.get_payload()
    if not isinstance(raw, str):
        return inner
    first, _, rest = raw.partition("\n")
    if not first.lstrip(">").startswith("From ") or not _HEADER_LINE.match(rest):
        return inner
    return parse_message(rest.encode("ascii", "surrogateescape"))


def _base64_message(part: Message, inner: Any) -> Any:
    """An attached message sent base64 (RFC 2046 allows only 7bit, 8bit and binary; Swift
    Mailer writes it so: php-mime-mail-parser's ``tests/mails/issue274.eml``): compat32
    reads the encoded lines as a message without headers, whose text is base64; the
    decoded bytes are the message. Anything else is ``inner`` as it was."""
    cte = str(part.get("content-transfer-encoding", "")).strip().lower()
    if cte != "base64" or not isinstance(inner, Message) or inner.keys():
        return inner
    raw = inner.get_payload()
    if not isinstance(raw, str):
        return inner
    try:
        data = binascii.a2b_base64(raw.encode("ascii", "surrogateescape"))
    except (binascii.Error, ValueError):
        return inner
    return parse_message(data) if data.strip() else inner


def attached(
    body: Body, name: str | None, ih: dict[str, list[str]], inner_body: Body, size: int
) -> None:
    """Add an attached message (its raw headers ``ih``, its body read) to ``body``: an
    attachment, then its text as a forwarded block. Both paths build it here."""
    subject = decode_words(first(ih, "subject"))
    sender = addresses(ih.get("from"))
    info: dict[str, Any] = {"name": name or subject or None, "type": "message/rfc822", "size": size}
    if subject:
        info["subject"] = subject
    if sender:
        info["from"] = sender[0]
    body.attachments.append(info)
    body.attachments.extend(inner_body.attachments)
    head = ["---------- Forwarded message ----------"]
    if sender:
        head.append("From: " + sender[0])
    date = first(ih, "date")
    if date:
        head.append("Date: " + decode_words(date))
    if subject:
        head.append("Subject: " + subject)
    body.forwarded.append("\n".join(head) + "\n\n" + inner_body.text())
