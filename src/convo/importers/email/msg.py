"""Outlook's ``.msg`` files (``msg``): one message saved from Outlook (drag and drop,
Save As), an OLE compound file.

Shape (Microsoft's [MS-OXMSG] and [MS-CFB] specifications): a ``__properties_version1.0``
stream of 16-byte entries (tag, flags, an inline value or a size) and a
``__substg1.0_<id><type>`` stream per string (``001F`` UTF-16LE, ``001E`` 8-bit) or
binary (``0102``) property; ``__recip_version1.0_#N`` storages (``PidTagRecipientType``
0x0C15: 1 To, 2 Cc, 3 Bcc; display name 0x3001, address 0x3003, SMTP address 0x39FE) and
``__attach_version1.0_#N`` storages (long name 0x3707, name 0x3704, MIME type 0x370E,
data 0x3701). The message: class 0x001A (``IPM.Note``...), subject 0x0037, sender name
0x0C1A and addresses 0x0C1F/0x5D01, the headers it arrived with 0x007D
(``PidTagTransportMessageHeaders``), ``Message-ID`` 0x1035, ``In-Reply-To`` 0x1042,
``References`` 0x1039, times 0x0039 (submitted) and 0x0E06 (delivered), plain body
0x1000, HTML body 0x1013.

The message is made into the RFC 5322 message it stands for and read by the eml reader
(``convo.importers.email.convert``), so an .msg and the .eml of the same mail give the
same record (speaker, listeners, subject, ids, thread, time, tags, attachments):

- the headers are the ones it arrived with (0x007D) less their ``Content-*`` and
  ``MIME-Version`` (they describe a body the .msg no longer holds); a message never sent
  (a draft, a sent item saved from Outlook) gets headers made from its properties:
  ``From`` (sender name and SMTP address; an Exchange address ``/o=.../cn=...``, no
  mail address, leaves the name alone), ``To``/``Cc`` (the recipients by type),
  ``Subject``, ``Date`` (submitted, else delivered), the ids; a message with no time
  at all (a draft: TeamMsgExtractor/msg-extractor's ``example-msg-files/strangeDate.msg``)
  takes the .msg's creation time 0x3007, warned and named in ``extra.time_source``;
- the body is the plain text (0x1000), else the HTML (0x1013); a body held only as
  compressed RTF is not read (a warning says so); attachments become MIME parts with
  their names, types and bytes, so they are listed as the eml reader lists them; an
  attached Outlook item (``__substg1.0_3701000D``: a mail forwarded as an attachment, a
  bounce's returned original) is made into its own message the same way (five deep at
  most) and attached as ``message/rfc822``, so its text follows as a forwarded block;
  an attached ``message/`` type other than ``rfc822`` (a bounce's ``delivery-status``)
  is attached as text; a headers property that does not start with a header (a cut
  piece of a returned original) is not used.

An Outlook contact card (``IPM.Contact``) or contact group (``IPM.DistList``) saved as
.msg holds no conversation: it is recognised, warned about and imports nothing (notes,
tasks and appointments are read as messages: their text is someone's).

Why olefile (a dependency): it is pure Python, one module, BSD-licensed and maintained
(decalage2/olefile), reads every CFB version and refuses malformed files with its own
errors; ``extract-msg`` would bring a dozen dependencies (RTF, HTML, compression) for the
few properties read here.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.header import Header
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import default
from email.utils import format_datetime, formataddr, parseaddr
from typing import Any

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.importers.context import ImportContext
from convo.importers.email import FIELDS
from convo.importers.email.convert import convert
from convo.importers.email.record import Origin
from convo.importers.registry import Format

NAME = "msg"
OLE_MAGIC = bytes.fromhex("D0CF11E0A1B11AE1")
MSG_LIMIT = 256 << 20  # a .msg is read whole (OLE): its attachments up to this
_HINT = "save the message from Outlook as .msg, or as .eml"
_CONTENT = re.compile(rb"(?im)^(?:content-[!-9;-~]*|mime-version):.*(?:\r?\n[ \t].*)*\r?\n")
_HEADER_FIRST = re.compile(rb"[!-9;-~]+:")
_EXCHANGE_DN = re.compile(r"/o=", re.I)
_CARDS = ("IPM.CONTACT", "IPM.DISTLIST")  # message classes of items no one said
_EPOCH = datetime(1601, 1, 1, tzinfo=UTC)
_TYPES = {1: "To", 2: "Cc"}
_BREAKS = re.compile(r"[\r\n]+")
# What olefile raises on a damaged file (a sector number past any index: OverflowError)
# RecursionError: olefile walks a storage's children recursively, so a directory written
# as a chain of right siblings (not the balanced tree Outlook writes) a thousand long
# exceeds Python's limit.
_DAMAGED = (OSError, ValueError, struct.error, IndexError, KeyError, OverflowError, RecursionError)


def _ole(source: Source) -> Any:
    import olefile

    try:
        return olefile.OleFileIO(str(source.real_path()))
    except _DAMAGED as e:
        raise InputError(f"not a readable Outlook .msg file ({e})", where=source.name,
                         hint=_HINT) from None  # fmt: skip


def sniff(source: Source) -> int:
    """An OLE compound file holding a message class (0x001A) that starts ``IPM.``."""
    if not source.head.startswith(OLE_MAGIC):
        return 0
    try:
        ole = _ole(source)
    except InputError:
        return 0
    try:
        kind = _Props(ole, []).string(0x001A)
    except Exception:  # a damaged file is not this format's to claim
        return 0
    finally:
        ole.close()
    return 95 if kind.upper().startswith("IPM.") else 0


class _Props:
    """The properties of one object (the message, a recipient, an attachment)."""

    def __init__(self, ole: Any, path: list[str], header: int | None = None):
        self.ole, self.path = ole, path
        # The fixed-size entries start after a header: 32 bytes in the file's message,
        # 24 in an attached message's, 8 in a recipient's or an attachment's.
        self.header = header if header is not None else (32 if not path else 8)
        self._fixed: dict[int, tuple[int, bytes]] | None = None

    def _stream(self, name: str) -> bytes | None:
        where = [*self.path, name]
        return self.ole.openstream(where).read() if self.ole.exists(where) else None

    def string(self, pid: int) -> str:
        raw = self._stream(f"__substg1.0_{pid:04X}001F")
        if raw is not None:
            return raw.decode("utf-16-le", "replace").rstrip("\0")
        raw = self._stream(f"__substg1.0_{pid:04X}001E")
        return raw.decode("cp1252", "replace").rstrip("\0") if raw is not None else ""

    def binary(self, pid: int) -> bytes | None:
        return self._stream(f"__substg1.0_{pid:04X}0102")

    def fixed(self, pid: int) -> tuple[int, bytes] | None:
        if self._fixed is None:
            raw = self._stream("__properties_version1.0") or b""
            self._fixed = {}
            for at in range(self.header, len(raw) - 15, 16):
                tag, _, value = struct.unpack_from("<II8s", raw, at)
                self._fixed[tag >> 16] = (tag & 0xFFFF, value)
        return self._fixed.get(pid)

    def long(self, pid: int) -> int | None:
        got = self.fixed(pid)
        return struct.unpack("<i", got[1][:4])[0] if got and got[0] == 0x0003 else None

    def time(self, pid: int) -> datetime | None:
        got = self.fixed(pid)
        if not got or got[0] != 0x0040:
            return None
        ticks = struct.unpack("<Q", got[1])[0]
        try:
            return _EPOCH + timedelta(microseconds=ticks // 10)
        except OverflowError:
            return None


def _children(ole: Any, prefix: str, under: list[str] | None = None) -> list[str]:
    """The names of the storages directly in ``under`` (the root) that start ``prefix``:
    from the directory tree olefile built, where ``under`` is (a listing of the whole file
    for each attached item made 250 attached items take 4 s, 1,000 a minute)."""
    entry = ole.root
    for name in under or []:
        entry = entry.kids_dict.get(name.lower())
        if entry is None:
            return []
    return sorted({kid.name for kid in entry.kids if kid.name.startswith(prefix)})


def _one_line(value: str) -> str:
    """A property's text as one header line: a line break in it would end the header
    and begin another (a subject holding ``\r\nMessage-ID: <x>`` gave the message that
    id, ``\r\nFrom:`` another sender)."""
    return _BREAKS.sub(" ", value)


def _header(value: str) -> str:
    value = _one_line(value)
    return value if value.isascii() else Header(value, "utf-8").encode()


def _address(name: str, addr: str) -> str:
    name, addr = _one_line(name).strip(), _one_line(addr).strip()
    if _EXCHANGE_DN.match(addr):
        addr = ""  # an Exchange address (``/o=Org/ou=.../cn=Recipients/cn=ann``): no mail address
    if "<" in addr:  # a property holding ``Name <ann@example.org>`` (some writers')
        named, addr = parseaddr(addr)
        name = name if name and "<" not in name else named
    if "<" in name and (got := parseaddr(name))[1] and got[1] == addr:
        name = got[0]
    if not addr:
        return _header(name)
    return formataddr((name, addr), charset="utf-8") if name and name != addr else addr


def _made_headers(props: _Props, people: dict[str, list[str]]) -> bytes:
    """The headers of a message that has none of its own (never sent)."""
    sender = props.string(0x5D01) or props.string(0x0C1F) or props.string(0x0065)
    lines = []
    if sender or props.string(0x0C1A):
        lines.append(f"From: {_address(props.string(0x0C1A) or props.string(0x0042), sender)}")
    for kind, addrs in people.items():
        lines.append(f"{kind}: {', '.join(addrs)}")
    subject = props.string(0x0037)
    if subject:
        lines.append(f"Subject: {_header(subject)}")
    when = props.time(0x0039) or props.time(0x0E06)
    if when is not None:
        lines.append(f"Date: {format_datetime(when)}")
    for name, pid in (("Message-ID", 0x1035), ("In-Reply-To", 0x1042), ("References", 0x1039)):
        value = _one_line(props.string(pid))
        if value:
            lines.append(f"{name}: {value}")
    return "".join(f"{x}\r\n" for x in lines).encode("ascii", "replace")


def _recipients(ole: Any, root: list[str]) -> dict[str, list[str]]:
    people: dict[str, list[str]] = {}
    for storage in _children(ole, "__recip_version1.0_#", root):
        r = _Props(ole, [*root, storage])
        kind = _TYPES.get(r.long(0x0C15) or 1)
        if kind is None:
            continue  # Bcc: not in the headers the message was sent with
        addr = r.string(0x39FE) or r.string(0x3003)
        people.setdefault(kind, []).append(_address(r.string(0x3001), addr))
    return people


def _body(ole: Any, props: _Props, ctx: ImportContext, where: str, depth: int = 0) -> EmailMessage:
    part = EmailMessage()
    text = props.string(0x1000)
    html = props.binary(0x1013)
    if text:
        part.set_content(text.replace("\r\n", "\n"), cte="8bit")
    elif html:
        part.set_content(html.decode("utf-8", "replace"), subtype="html", cte="8bit")
    else:
        part.set_content("", cte="8bit")
        if props.binary(0x1009):
            ctx.warn(where, "the body is held only as compressed RTF: not read")
    for storage in _children(ole, "__attach_version1.0_#", props.path):
        _attach(part, ole, [*props.path, storage], ctx, where, depth)
    return part


_EMBEDDED = "__substg1.0_3701000D"  # an attached Outlook item (PidTagAttachDataObject)
_NESTING = 5  # attached messages read this deep; deeper ones are listed by name


def _attach(
    part: EmailMessage, ole: Any, path: list[str], ctx: ImportContext, where: str, depth: int
) -> None:
    """One attachment storage as a MIME part: an attached Outlook item (an .msg inside
    the .msg: a mail forwarded as an attachment) as the ``message/rfc822`` it stands
    for, an attached ``.eml`` (``message/rfc822`` bytes) likewise, other types as their
    bytes. A ``message/`` type of another kind (a bounce's ``delivery-status``) is text:
    the standard library cannot write its bytes as that type."""
    a = _Props(ole, path)
    name = a.string(0x3707) or a.string(0x3704) or a.string(0x3001) or None
    kind = (a.string(0x370E) or "application/octet-stream").strip().lower()
    main, _, sub = kind.partition("/")
    inner: bytes | None = None
    if ole.exists([*path, _EMBEDDED]) and depth < _NESTING:
        inner, _ = _message(ole, [*path, _EMBEDDED], ctx, where, depth + 1)
    elif kind == "message/rfc822":
        inner = a.binary(0x3701)
    if inner is not None:
        parsed = BytesParser(policy=default).parsebytes(inner)
        part.add_attachment(parsed, filename=name)
        return
    if main in ("message", "multipart"):
        main, sub = ("text", "plain") if main == "message" else ("application", "octet-stream")
    part.add_attachment(a.binary(0x3701) or b"", maintype=main or "application",
                        subtype=sub or "octet-stream", filename=name)  # fmt: skip


def _message(
    ole: Any, root: list[str], ctx: ImportContext, where: str, depth: int = 0
) -> tuple[bytes, datetime | None]:
    """The RFC 5322 message the Outlook item at ``root`` stands for, and its creation time."""
    props = _Props(ole, root, 32 if not root else 24)
    sent = props.string(0x007D).encode("utf-8", "replace").lstrip(b"\r\n")
    if not _HEADER_FIRST.match(sent):
        sent = b""  # not a header block (a bounce's attached original: a cut piece of it)
    sent = sent.split(b"\r\n\r\n", 1)[0]  # a body after the headers is not the item's
    head = _CONTENT.sub(b"", sent.rstrip(b"\r\n") + b"\r\n") if sent.strip() else b""
    if not head:
        head = _made_headers(props, _recipients(ole, root))
    body = _body(ole, props, ctx, where, depth)
    return head + body.as_bytes(), props.time(0x3007)


def message_bytes(
    source: Source, ctx: ImportContext, where: str
) -> tuple[bytes, datetime | None] | None:
    """The RFC 5322 message an .msg stands for (see the module docstring), and the time
    the .msg was created (``PidTagCreationTime``), for a message that has no other;
    None for a contact card or a contact group, which no one said."""
    ole = _ole(source)
    try:
        kind = _Props(ole, []).string(0x001A)
        if not kind:
            raise InputError("not an Outlook message (no message class, 0x001A)",
                             where=source.name, hint=_HINT)  # fmt: skip
        if kind.upper().startswith(_CARDS):
            return None
        return _message(ole, [], ctx, where)
    finally:
        ole.close()


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    if source.path is not None and not source.gzipped and source.path.stat().st_size > MSG_LIMIT:
        raise InputError(f"larger than {MSG_LIMIT >> 20} MiB", where=source.name, hint=_HINT)
    where = ctx.loc("msg-1")
    try:
        made = message_bytes(source, ctx, where)
    except InputError:
        raise
    except _DAMAGED as e:
        raise InputError(f"not a readable Outlook .msg file ({e})", where=source.name,
                         hint=_HINT) from None  # fmt: skip
    if made is None:
        ctx.warn(
            source.name, "an Outlook contact card or contact group, not a message: nothing imported"
        )
        return
    data, created = made
    origin = Origin(NAME, "msg-1", where, arrival=created, arrival_source="msg-created")
    rec = convert(data, ctx, origin)
    if rec is not None:
        yield rec


DESCRIPTION = "Outlook .msg (one message saved from Outlook: OLE, MS-OXMSG)"
EXAMPLE = "message.msg (an OLE compound file: __substg1.0_0037001F the subject...)"
FORMATS = (Format(NAME, "email", DESCRIPTION, ("*.msg",), sniff, read, EXAMPLE, fields=FIELDS),)
