"""What a TNEF part (``winmail.dat``, ``application/ms-tnef``: Outlook's and Exchange's
"Rich Text" encapsulation, [MS-OXTNEF]) holds: the message's text and its attachments.

A message Exchange sends whole in TNEF (a ``Content-Type: application/ms-tnef`` body, or
a ``text/plain`` part that is blank beside it) has its text only there: in the message
attributes ``attBody`` (0x800C) or ``attMsgProps`` (0x9003: MAPI properties, of which
``PidTagBody`` 0x1000 and ``PidTagHtml`` 0x1013 are read). Its attachments are each an
``attAttachRendData`` (0x9002) followed by their title (0x8010), data (0x800F) and
properties (0x9005: the long name 0x3707, the MIME type 0x370E). A body held only as
compressed RTF (0x1009) is not read, as in ``msg``.

Only this is read; a damaged or truncated stream gives what was read before the damage
(``Tnef.damaged``: the reader warns).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

SIGNATURE = 0x223E9F78
_BODY, _MSG_PROPS = 0x800C, 0x9003
_REND, _TITLE, _DATA, _ATTACH_PROPS = 0x9002, 0x8010, 0x800F, 0x9005
# MAPI property types and the size of one fixed value (MS-OXCDATA 2.11.1).
_FIXED = {0x0002: 2, 0x0003: 4, 0x0004: 4, 0x0005: 8, 0x0006: 8, 0x0007: 8, 0x000A: 4,
          0x000B: 2, 0x0014: 8, 0x0040: 8, 0x0048: 16, 0x0001: 0}  # fmt: skip
_STRING8, _UNICODE, _BINARY, _OBJECT = 0x001E, 0x001F, 0x0102, 0x000D
_MULTI = 0x1000
_MAX_VALUES = 1 << 16  # more values than this in one property: not a real stream


class _Damaged(Exception):
    """The stream ends or breaks here."""


@dataclass
class Tnef:
    """A TNEF stream's text (plain, else HTML) and attachments (``{name, type, size}``)."""

    plain: str | None = None
    html: bytes | None = None
    attachments: list[dict[str, Any]] = field(default_factory=list)
    damaged: bool = False  # the stream broke: what follows the damage is not read


def _pad4(n: int) -> int:
    return (n + 3) & ~3


def _props(data: bytes) -> dict[int, Any]:
    """The MAPI properties of an ``attMsgProps``/``attAttachment`` value: id -> value
    (strings decoded, binaries as bytes; fixed and multi-valued ones are skipped)."""
    out: dict[int, Any] = {}
    (count,) = struct.unpack_from("<I", data, 0)
    at = 4
    for _ in range(min(count, _MAX_VALUES)):
        kind, pid = struct.unpack_from("<HH", data, at)
        at += 4
        if pid >= 0x8000:  # a named property: its GUID, kind and ID or name
            (name_kind,) = struct.unpack_from("<I", data, at + 16)
            at += 20
            if name_kind == 0:
                at += 4
            else:
                (size,) = struct.unpack_from("<I", data, at)
                at += 4 + _pad4(size)
        base, multi = kind & ~_MULTI, bool(kind & _MULTI)
        if base in _FIXED:
            values = struct.unpack_from("<I", data, at)[0] if multi else 1
            at += 4 if multi else 0
            at += max(_pad4(_FIXED[base]), 4 if base else 0) * min(values, _MAX_VALUES)
            continue
        if base not in (_STRING8, _UNICODE, _BINARY, _OBJECT):
            raise _Damaged
        (values,) = struct.unpack_from("<I", data, at)
        at += 4
        got: list[bytes] = []
        for _ in range(min(values, _MAX_VALUES)):
            (size,) = struct.unpack_from("<I", data, at)
            at += 4
            if at + size > len(data):
                raise _Damaged
            got.append(data[at : at + size])
            at += _pad4(size)
        if got and not multi:
            out[pid] = _value(base, got[0])
    return out


def _value(base: int, raw: bytes) -> Any:
    if base == _UNICODE:
        return raw.decode("utf-16-le", "replace").rstrip("\0")
    if base == _STRING8:
        return raw.decode("cp1252", "replace").rstrip("\0")
    return _Object(raw) if base == _OBJECT else raw


class _Object(bytes):
    """A ``PT_OBJECT`` value (an attached Outlook item): its IID, then the item."""


def read_tnef(data: bytes) -> Tnef | None:
    """The text and attachments of a TNEF stream; None when ``data`` is not one."""
    if len(data) < 6 or struct.unpack_from("<I", data, 0)[0] != SIGNATURE:
        return None
    got = Tnef()
    at = 6  # the signature and the legacy key
    attachment: dict[str, Any] | None = None
    try:
        while at + 9 <= len(data):
            level, tag, size = struct.unpack_from("<BII", data, at)
            at += 9
            if at + size + 2 > len(data):
                raise _Damaged
            value = data[at : at + size]
            at += size + 2  # and the checksum
            attr = tag & 0xFFFF
            if level == 1:
                _message_attribute(got, attr, value)
            elif attr == _REND:
                attachment = {"name": None, "type": "application/octet-stream", "size": 0}
                got.attachments.append(attachment)
            elif attachment is not None:
                _attachment_attribute(attachment, attr, value)
    except (_Damaged, struct.error, UnicodeError):
        got.damaged = True
    return got


def _message_attribute(got: Tnef, attr: int, value: bytes) -> None:
    if attr == _BODY and got.plain is None:
        got.plain = value.decode("cp1252", "replace").rstrip("\0")
    elif attr == _MSG_PROPS:
        props = _props(value)
        body = props.get(0x1000)
        if isinstance(body, str) and body.strip():
            got.plain = body
        html = props.get(0x1013)
        if html:
            got.html = html.encode("utf-8") if isinstance(html, str) else html


def _attachment_attribute(attachment: dict[str, Any], attr: int, value: bytes) -> None:
    if attr == _TITLE and not attachment["name"]:
        attachment["name"] = value.decode("cp1252", "replace").rstrip("\0") or None
    elif attr == _DATA:
        attachment["size"] = len(value)
    elif attr == _ATTACH_PROPS:
        props = _props(value)
        name = props.get(0x3707)
        if isinstance(name, str) and name:
            attachment["name"] = name
        kind = props.get(0x370E)
        if isinstance(kind, str) and kind:
            attachment["type"] = kind.lower()
        item = props.get(0x3701)
        if isinstance(item, _Object):  # an attached Outlook item (a forwarded mail)
            attachment["type"] = "message/rfc822"
            attachment["size"] = max(len(item) - 16, 0)
