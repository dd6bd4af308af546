"""One e-mail message (bytes) to a ``ConversationMessage``: headers, body, attachments.

Parsing uses the standard library's ``compat32`` policy, which is about 20x faster than
``email.policy.default``; only the headers and parts that a record needs are decoded.
See the module docstring of ``convo.importers.email`` for the decisions.
"""

from __future__ import annotations

import codecs
import functools
import re
from datetime import UTC, datetime
from email.header import decode_header
from email.message import Message
from email.parser import BytesParser
from email.policy import compat32
from email.utils import collapse_rfc2231_value, getaddresses, parsedate_tz
from typing import Any

from convo.core.record import ConversationMessage, ConversationMessageMeta
from convo.core.text.html import html_to_text
from convo.core.timestamps import format_timestamp_utc, to_utc
from convo.importers.context import ImportContext

_PARSER = BytesParser(policy=compat32)
_FOLD = re.compile(r"\r?\n[ \t]*")
_MSGID = re.compile(r"<([^<>]+)>")
_COMMENT = re.compile(r"\([^()]*\)")
_NUMERIC_ZONE = re.compile(r"[+-]\d\d:?\d\d\b")
_UTC_MARK = re.compile(r"\d\s*(?:[+-]00:?00|GMT|UTC?|Z)\s*(?:\(.*\))?\s*$", re.I)
_HASHTAG = re.compile(r"(?<![\w&/#])#([A-Za-z][\w-]{1,48}[\w])")
_NOT_HASHTAGS = {
    "include", "define", "ifdef", "ifndef", "endif", "else", "elif", "pragma", "undef",
    "import", "error", "warning", "line", "if",
}  # fmt: skip
_HEXCOLOUR = re.compile(r"[0-9a-fA-F]{3}|[0-9a-fA-F]{6}")
# Body-like text types that are read as text; other text/* (calendar, vcard, csv) are listed
# as attachments.
_TEXTLIKE = ("text/plain", "text/enriched", "text/richtext", "text/markdown", "text/x-")
_NOT_TEXT = ("text/calendar", "text/vcard", "text/x-vcard", "text/csv", "text/rfc822-headers")
# Charsets that mail programs mislabel: read them as their common supersets.
_CHARSET_ALIASES = {
    "iso-8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252", "us-ascii": "cp1252",
    "ascii": "cp1252", "iso-8859-9": "cp1254", "gb2312": "gb18030", "gbk": "gb18030",
    "ks_c_5601-1987": "cp949", "euc-kr": "cp949", "ks_c_5601": "cp949", "x-sjis": "shift_jis",
    "shift-jis": "shift_jis", "windows-874": "cp874", "iso-8859-11": "cp874",
    "x-mac-roman": "mac_roman", "unicode-1-1-utf-7": "utf-7", "utf8": "utf-8",
}  # fmt: skip
_WIDE = ("utf-16", "utf_16", "utf-32", "utf_32", "utf16", "utf32")
# Zone abbreviations dateutil does not know by itself (seconds east of UTC).
_TZINFOS = {
    "EST": -18000, "EDT": -14400, "CST": -21600, "CDT": -18000, "MST": -25200,
    "MDT": -21600, "PST": -28800, "PDT": -25200, "MET": 3600, "MEST": 7200, "CET": 3600,
    "CEST": 7200, "EET": 7200, "EEST": 10800, "BST": 3600, "JST": 32400, "KST": 32400,
    "IST": 19800, "HKT": 28800, "AEST": 36000, "AEDT": 39600, "UT": 0, "GMT": 0, "Z": 0,
}  # fmt: skip


# --------------------------------------------------------------------------- charsets


_SEVEN_BIT = ("utf-7", "iso2022_jp", "iso2022_jp_2", "iso2022_kr", "hz")


@functools.lru_cache(maxsize=256)
def _codec(charset: str | None) -> str | None:
    """A Python codec name for a MIME charset, or None when unknown."""
    if not charset:
        return None
    cs = charset.strip().strip("\"'").lower()
    cs = _CHARSET_ALIASES.get(cs, cs)
    try:
        return codecs.lookup(cs).name
    except (LookupError, ValueError):
        return None


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Bytes in a declared charset to text; never raises.

    Valid UTF-8 with non-ASCII bytes wins over a declared legacy charset (mail programs
    often label UTF-8 as iso-8859-1 or gb2312, and non-UTF-8 text is almost never valid
    UTF-8); unknown charsets fall back to UTF-8, then cp1252; bad bytes are replaced.
    """
    name = _codec(charset)
    ascii_data = data.isascii()
    if ascii_data and name not in _SEVEN_BIT and not (name or "").startswith(_WIDE):
        return data.decode("ascii")
    if name and name != "utf-8" and not ascii_data and not name.startswith(_WIDE):
        try:
            return data.decode("utf-8")  # mislabelled UTF-8
        except UnicodeDecodeError:
            pass
    if name:
        try:
            return data.decode(name)
        except UnicodeDecodeError:
            return data.decode(name, "replace")
        except Exception:  # broken codec state (e.g. utf-7 on junk): fall through
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def _raw_header_text(value: str) -> str:
    """A compat32 header value whose 8-bit bytes arrive as surrogates (RFC 6532 UTF-8)."""
    try:
        raw = value.encode("ascii", "surrogateescape")
    except UnicodeEncodeError:
        return value  # already real text
    return decode_bytes(raw, None)  # undeclared: UTF-8, else cp1252


@functools.lru_cache(maxsize=8192)
def decode_words(value: str | None) -> str:
    """RFC 2047 encoded words to text (unknown charsets and bad base64 included); unfolded."""
    if not value:
        return ""
    if not isinstance(value, str):
        value = str(value)
    if "\n" in value:
        value = _FOLD.sub(" ", value)
    if "=?" not in value:
        return value if value.isascii() else _raw_header_text(value)
    try:
        parts = decode_header(value)
    except Exception:  # bad base64 in an encoded word: keep the raw text
        return _raw_header_text(value)
    out = []
    for text, charset in parts:
        if isinstance(text, str):
            out.append(_raw_header_text(text))
        else:
            if charset is None:
                out.append(decode_bytes(text, "utf-8"))
            else:
                out.append(decode_bytes(text, charset))
    return "".join(out).strip()


# --------------------------------------------------------------------------- addresses

_NEEDS_QUOTES = re.compile(r'[@,;:<>"\[\]]')


def format_address(name: str, addr: str) -> str:
    """``Name <addr>``; a name with address characters in it (an e-mail address, an
    encoded comma) is quoted so that the address stays unambiguous."""
    name = " ".join(name.split())
    addr = addr.strip()
    if not addr:
        return name
    if not name or name.strip("'\"").lower() == addr.lower():
        return addr
    if _NEEDS_QUOTES.search(name):
        name = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"{name} <{addr}>"


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[^,"]+|,')
_ANGLE = re.compile(r"^(.*?)<([^<>]*)>?\s*$", re.S)
_COMMENTED = re.compile(r"^(\S+@\S+)\s*\((.*)\)\s*$", re.S)


def _elements(value: str) -> list[str]:
    """Split an address list on commas outside quoted strings."""
    if '"' not in value:
        return value.split(",")
    out, buf = [], []
    for tok in _TOKENS.findall(value):
        if tok == ",":
            out.append("".join(buf))
            buf = []
        else:
            buf.append(tok)
    out.append("".join(buf))
    return out


def _unquote(name: str) -> str:
    name = name.strip()
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        name = re.sub(r"\\(.)", r"\1", name[1:-1])
    return name


def _pairs(value: str) -> list[tuple[str, str]]:
    """(name, address) pairs of one header value; forgiving where getaddresses is not
    (``alice@x <bob@y>``, addresses separated only by spaces, stray brackets)."""
    out: list[tuple[str, str]] = []
    for elem in _elements(value):
        elem = elem.strip()
        if not elem:
            continue
        m = _ANGLE.match(elem)
        if m:
            out.append((_unquote(m.group(1)), m.group(2).strip()))
            continue
        m = _COMMENTED.match(elem)
        if m:
            out.append((m.group(2).strip(), m.group(1)))
            continue
        words = elem.split()
        if len(words) > 1 and all("@" in w for w in words):
            out.extend(("", w) for w in words)
        elif "@" in elem and " " not in elem:
            out.append(("", elem.strip("<>")))
        else:
            pairs = [p for p in getaddresses([elem]) if p[0] or p[1]]
            out.extend(pairs if pairs and "@" in pairs[0][1] else [(_unquote(elem), "")])
    return out


def addresses(values: list[str] | None) -> list[str]:
    """Every address of some header values, decoded, in order, duplicates dropped."""
    if not values:
        return []
    if len(values) == 1:
        return [a for _, a in _address_list(str(values[0]))]
    out: list[str] = []
    seen: set[str] = set()
    for value in values:
        for key, formatted in _address_list(str(value)):
            if key not in seen:
                seen.add(key)
                out.append(formatted)
    return out


@functools.lru_cache(maxsize=8192)
def _address_list(value: str) -> tuple[tuple[str, str], ...]:
    """(dedupe key, ``Name <addr>``) of one header value; cached, as lists repeat."""
    if "\n" in value:
        value = _FOLD.sub(" ", value)
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for name, addr in _pairs(value):
        if name and ("=?" in name or not name.isascii()):
            name = decode_words(name)
        if addr and not addr.isascii():
            addr = _raw_header_text(addr)
        addr = "".join(addr.split())
        key = (addr or name).lower()
        if not key or key in seen:
            continue
        seen.add(key)
        out.append((key, format_address(name, addr)))
    return tuple(out)


# --------------------------------------------------------------------------- dates


def parse_date(value: str, ctx: ImportContext) -> datetime | None:
    """A Date header to an aware UTC datetime; stdlib first, dateutil for odd ones."""
    value = _FOLD.sub(" ", value).strip()
    if not value:
        return None
    t = parsedate_tz(value)
    # parsedate_tz gives offset 0 for a missing or unknown zone: only trust it for a real
    # UTC marker ("-0000" is UTC with the sender's zone unknown); else dateutil decides.
    if t is not None and (t[9] or _UTC_MARK.search(value)):
        try:
            dt = datetime(*t[:6])
            return datetime.fromtimestamp(dt.replace(tzinfo=UTC).timestamp() - t[9], UTC)
        except (ValueError, OverflowError, TypeError):
            pass
    return _dateutil(value, ctx)


def _dateutil(value: str, ctx: ImportContext) -> datetime | None:
    from dateutil import parser

    if _NUMERIC_ZONE.search(value):
        text = _COMMENT.sub(" ", value).strip()  # "+0200 (CEST)": the comment repeats it
    else:
        text = value.replace("(", " ").replace(")", " ").strip()
    try:
        dt = parser.parse(text, fuzzy=True, tzinfos=_TZINFOS)
    except (ValueError, OverflowError, TypeError, parser.ParserError):
        return None
    try:
        return to_utc(dt, ctx.options.tz)
    except (ValueError, OverflowError):
        return None


_ENVELOPE_DATE = re.compile(rb"^From \S*\s+(.*\d{1,2}:\d\d.*)$")


def envelope_date(envelope: bytes | None, ctx: ImportContext) -> datetime | None:
    """The date on an mbox ``From `` line (asctime in an unknown zone: read in --tz)."""
    if not envelope:
        return None
    m = _ENVELOPE_DATE.match(envelope.rstrip())
    if not m:
        return None
    return _dateutil(m.group(1).decode("ascii", "replace"), ctx)


# --------------------------------------------------------------------------- ids and tags


def message_ids(value: str | None) -> list[str]:
    """The ``<id>`` tokens of a Message-ID / In-Reply-To / References value (folding removed)."""
    if not value:
        return []
    return ["<" + "".join(m.split()) + ">" for m in _MSGID.findall(str(value)) if m.strip()]


def _split_labels(value: str, sep: str = ",") -> list[str]:
    """Split a label list on ``sep`` outside double quotes."""
    out, buf, quoted = [], [], False
    for ch in value:
        if ch == '"':
            quoted = not quoted
        elif ch == sep and not quoted:
            out.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    out.append("".join(buf))
    return [x.strip() for x in out if x.strip()]


def hashtags(text: str) -> list[str]:
    if "#" not in text:
        return []
    return [
        t
        for t in _HASHTAG.findall(text)
        if t.lower() not in _NOT_HASHTAGS and not _HEXCOLOUR.fullmatch(t)
    ]


def tags_of(h: dict[str, list[str]], subject: str, body: str) -> list[str]:
    tags: list[str] = []
    for value in h.get("x-gmail-labels", ()):
        tags.extend(_split_labels(decode_words(value)))
    for value in h.get("keywords", ()):
        tags.extend(_split_labels(decode_words(value)))
    tags.extend(hashtags(subject))
    tags.extend(hashtags(_unquoted(body)))
    return list(dict.fromkeys(tags))


def _unquoted(body: str) -> str:
    if "#" not in body:
        return ""
    return "\n".join(line for line in body.splitlines() if not line.lstrip().startswith(">"))


# --------------------------------------------------------------------------- body


def _param(part: Message, name: str) -> str | None:
    try:
        value = part.get_param(name)
    except Exception:
        return None
    if isinstance(value, tuple):  # RFC 2231: (charset, language, value)
        try:
            return collapse_rfc2231_value(value)
        except Exception:
            return str(value[2])
    return value if isinstance(value, str) else None


def _filename(part: Message) -> str | None:
    name = None
    try:
        name = part.get_filename()
    except Exception:
        name = None
    if name is None:
        name = _param(part, "name")
    if not name:
        return None
    if "\ufffd" in str(name):  # compat32 lost raw 8-bit bytes: read the raw header
        for key, value in part.raw_items():
            if key.lower() in ("content-disposition", "content-type"):
                m = _RAW_NAME.search(value)
                if m:
                    return _raw_header_text(m.group(1))
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
    ctype = str(value).split(";", 1)[0].strip().lower()
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


def part_text(part: Message, ctype: str) -> str:
    return payload_text(
        _payload_bytes(part),
        ctype,
        _param(part, "charset"),
        _param(part, "format"),
        _param(part, "delsp"),
    )


def payload_text(
    data: bytes, ctype: str, charset: str | None, fmt: str | None, delsp: str | None
) -> str:
    """A decoded text part: charset, line ends, HTML to text, format=flowed."""
    text = decode_bytes(data, charset)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if ctype == "text/html":
        return html_to_text(text)
    if fmt and fmt.lower() == "flowed":
        text = unflow(text, (delsp or "").lower() == "yes")
    return text


def unflow(text: str, delsp: bool = False) -> str:
    """RFC 3676 format=flowed: join soft-broken lines (ending in a space) into paragraphs."""
    out: list[str] = []
    buf = ""
    for line in text.split("\n"):
        if line.startswith(" "):
            line = line[1:]  # space-stuffing
        if line.endswith(" ") and line != "-- ":
            buf += line[:-1] if delsp else line
            continue
        out.append(buf + line)
        buf = ""
    if buf:
        out.append(buf)
    return "\n".join(out)


class Body:
    """The text of a message and what was left out of it (attachments)."""

    __slots__ = ("attachments", "forwarded", "html", "plain")

    def __init__(self) -> None:
        self.plain: list[str] = []
        self.html: list[str] = []
        self.attachments: list[dict[str, Any]] = []
        self.forwarded: list[str] = []

    def text(self) -> str:
        parts = self.plain or self.html
        text = "\n\n".join(p.strip("\n") for p in parts if p.strip())
        if self.forwarded:
            text = "\n\n".join([text, *self.forwarded]) if text else "\n\n".join(self.forwarded)
        return text


def collect_body(msg: Message, body: Body, depth: int = 0) -> None:
    """Walk the MIME tree: text/plain preferred, HTML as a fallback, the rest attachments."""
    ctype = _content_type(msg)
    if depth > 30:  # absurd nesting: stop rather than recurse forever
        return
    if ctype.startswith("multipart/") or (msg.is_multipart() and ctype != "message/rfc822"):
        payload = msg.get_payload()
        if not isinstance(payload, list):
            _leaf(msg, ctype, body)
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
    _leaf(msg, ctype, body)


def choose_alternative(ctypes: list[str]) -> list[int]:
    """Which parts of a multipart/alternative to read: the last text/plain one, else the
    last that is not HTML (a nested multipart), else the last HTML one."""
    plain = [i for i, c in enumerate(ctypes) if c == "text/plain"]
    if plain:
        return plain[-1:]
    html = [i for i, c in enumerate(ctypes) if c == "text/html"]
    if html and not any(c.startswith("multipart/") for c in ctypes):
        return html[-1:]
    other = [i for i, c in enumerate(ctypes) if c != "text/html"]
    return other[-1:] or list(range(len(ctypes)))[-1:]


def _alternative(payload: list, body: Body, depth: int) -> None:
    subs = [s for s in payload if isinstance(s, Message)]
    for i in choose_alternative([_content_type(s) for s in subs]):
        collect_body(subs[i], body, depth + 1)


def _leaf(part: Message, ctype: str, body: Body) -> None:
    cid = part.get("Content-ID")
    add_leaf(
        body,
        ctype,
        _disposition(part),
        _filename(part),
        lambda: _payload_bytes(part),
        lambda: (_param(part, "charset"), _param(part, "format"), _param(part, "delsp")),
        decode_words(str(cid)).strip() if cid else None,
    )


def add_leaf(
    body: Body,
    ctype: str,
    disp: str,
    name: str | None,
    payload: Any,
    params: Any,
    cid: str | None,
) -> None:
    """One non-multipart part: body text (plain or HTML) or an attachment entry.
    ``payload()`` gives the decoded bytes and ``params()`` (charset, format, delsp)."""
    is_text = ctype.startswith(_TEXTLIKE) and not ctype.startswith(_NOT_TEXT)
    if disp != "attachment" and (
        (is_text and not name) or (ctype == "text/plain" and disp == "inline")
    ):
        body.plain.append(payload_text(payload(), ctype, *params()))
        return
    if ctype == "text/html" and disp != "attachment":  # named inline HTML too (notmuch)
        body.html.append(payload_text(payload(), ctype, *params()))
        return
    info: dict[str, Any] = {"name": name, "type": ctype, "size": len(payload())}
    if disp:
        info["disposition"] = disp
    if cid:
        info["content_id"] = cid
    body.attachments.append(info)


def _attached_message(part: Message, body: Body, depth: int) -> None:
    """message/rfc822: listed as an attachment; its text follows as a forwarded block."""
    payload = part.get_payload()
    inner = payload[0] if isinstance(payload, list) and payload else None
    if not isinstance(inner, Message):
        body.attachments.append(
            {"name": _filename(part), "type": "message/rfc822", "size": len(_payload_bytes(part))}
        )
        return
    ih = headers(inner)
    subject = decode_words(_first(ih, "subject"))
    sender = addresses(ih.get("from"))
    info: dict[str, Any] = {
        "name": _filename(part) or subject or None,
        "type": "message/rfc822",
        "size": len(inner.as_bytes()) if depth < 5 else 0,
    }
    if subject:
        info["subject"] = subject
    if sender:
        info["from"] = sender[0]
    body.attachments.append(info)
    inner_body = Body()
    collect_body(inner, inner_body, depth + 1)
    body.attachments.extend(inner_body.attachments)
    head = ["---------- Forwarded message ----------"]
    if sender:
        head.append("From: " + sender[0])
    date = _first(ih, "date")
    if date:
        head.append("Date: " + decode_words(date))
    if subject:
        head.append("Subject: " + subject)
    body.forwarded.append("\n".join(head) + "\n\n" + inner_body.text())


# --------------------------------------------------------------------------- quotes


_WROTE = re.compile(r"^\s*(On\b.{0,300}\bwrote|.{0,120}\b(schrieb|a écrit|escribió))\s*:\s*$", re.S)
_ORIGINAL = re.compile(r"^\s*-{2,}\s*(Original Message|Forwarded by|Ursprüngliche Nachricht)", re.I)


def strip_quotes(text: str) -> str:
    """Drop quoted lines, the "On ... wrote:" line before them, Outlook's quoted original
    and the signature (from a ``-- `` line to the end)."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line == "-- " or (line == "--" and len(lines) - i <= 15):
            break
        if _ORIGINAL.match(line):
            break
        if line.lstrip().startswith(">"):
            i += 1
            continue
        if line.lstrip().startswith("On ") or "schrieb" in line or "wrote" in line:
            if _WROTE.match(line):
                i += 1
                continue
            if i + 1 < len(lines) and _WROTE.match(line + " " + lines[i + 1]):
                i += 2
                continue
        out.append(line)
        i += 1
    return "\n".join(out).strip()


# --------------------------------------------------------------------------- the record


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


def _first(h: dict[str, list[str]], name: str) -> str | None:
    values = h.get(name)
    return values[0] if values else None


def to_record(
    msg: Message,
    ctx: ImportContext,
    *,
    fmt: str,
    locator: str,
    where: str,
    envelope: bytes | None = None,
) -> ConversationMessage:
    """Build the record of one message parsed by the standard library."""
    body = Body()
    collect_body(msg, body)
    return build_record(
        headers(msg), body, ctx, fmt=fmt, locator=locator, where=where, envelope=envelope
    )


def build_record(
    h: dict[str, list[str]],
    body: Body,
    ctx: ImportContext,
    *,
    fmt: str,
    locator: str,
    where: str,
    envelope: bytes | None = None,
) -> ConversationMessage:
    """The record from raw headers (lower-case name -> values) and the collected body."""
    extra: dict[str, Any] = {}
    senders = addresses(h.get("from"))
    speaker = senders[0] if senders else None
    if len(senders) > 1:
        extra["from"] = senders
    to = addresses(h.get("to"))
    cc = addresses(h.get("cc"))
    listeners = list(dict.fromkeys([*to, *cc]))
    if to:
        extra["to"] = to
    if cc:
        extra["cc"] = cc
    bcc = addresses(h.get("bcc"))
    if bcc:
        extra["bcc"] = bcc

    timestamp = None
    date_value = _first(h, "date")
    dt = parse_date(date_value, ctx) if date_value is not None else None
    if dt is None:
        dt = envelope_date(envelope, ctx)
        if date_value is not None and date_value.strip():
            extra["date"] = decode_words(date_value)
            ctx.warn(
                where,
                "unreadable Date header"
                + ("; used the mbox From line's date" if dt else "; time left unknown"),
            )
        elif dt is None:
            ctx.warn(where, "no Date header; time left unknown (epoch)")
    if dt is not None:
        try:
            timestamp = format_timestamp_utc(dt)
        except (ValueError, OverflowError):
            timestamp = None

    own = message_ids(_first(h, "message-id"))
    msg_id = own[0] if own else None
    refs: list[str] = []
    for value in h.get("references", ()):
        refs.extend(message_ids(value))
    irt = message_ids(_first(h, "in-reply-to"))
    reply_to = irt[0] if irt else (refs[-1] if refs else None)
    thread = refs[0] if refs else (reply_to or msg_id)

    subject = decode_words(_first(h, "subject")) or None

    text = body.text()
    if ctx.options.strip_quotes:
        text = strip_quotes(text)
    if body.attachments:
        extra["attachments"] = body.attachments
    if envelope:
        extra["envelope"] = envelope.rstrip(b"\r\n").decode("utf-8", "replace")

    return ConversationMessage(
        text_chunks=[text],
        metadata=ConversationMessageMeta(speaker=speaker, recipients=listeners),
        tags=tags_of(h, subject or "", text),
        timestamp=timestamp,
        source_id=f"{ctx.source.name}#{locator}",
        id=msg_id,
        format=fmt,
        thread=thread,
        reply_to=reply_to,
        subject=subject,
        extra=extra or None,
    )
