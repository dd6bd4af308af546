"""The message inside an opaque-signed S/MIME part (RFC 8551 ``application/pkcs7-mime;
smime-type=signed-data``, ``smime.p7m``): Outlook and other clients sign this way when
"send clear-text signed message" is off, so the whole text is inside a CMS
``SignedData`` (RFC 5652), not encrypted. Its ``encapContentInfo.eContent`` is the MIME
entity that was signed; it is read as that entity, the signature is not checked.

The CMS structure is BER: definite or indefinite lengths, the content octets possibly
cut into a constructed OCTET STRING's pieces. The walk below reads only the path to the
content and gives None for anything else (an ``EnvelopedData``: encrypted; a damaged or
truncated blob), so the caller keeps its ``[encrypted: ...]`` placeholder.
"""

from __future__ import annotations

# 1.2.840.113549.1.7.2 (signedData) and 1.2.840.113549.1.7.1 (data), their DER contents.
_SIGNED_DATA = bytes.fromhex("2a864886f70d010702")
_DATA = bytes.fromhex("2a864886f70d010701")
_MAX_DEPTH = 32  # nested indefinite lengths beyond this: not a real message


class _Bad(Exception):
    """Not the BER this reader walks."""


def _header(b: bytes, i: int) -> tuple[int, int, int | None]:
    """(tag, content start, content end) of the element at ``i``; the end is None for an
    indefinite length (its content ends at the end-of-contents octets)."""
    if i + 2 > len(b):
        raise _Bad
    tag = b[i]
    i += 1
    if tag & 0x1F == 0x1F:  # a high tag number: its bytes, none used here
        while i < len(b) and b[i] & 0x80:
            i += 1
        i += 1
    if i >= len(b):
        raise _Bad
    first = b[i]
    i += 1
    if first == 0x80:
        if not tag & 0x20:  # a primitive element has a definite length
            raise _Bad
        return tag, i, None
    if first & 0x80:
        count = first & 0x7F
        if count > 4 or i + count > len(b):
            raise _Bad
        length = int.from_bytes(b[i : i + count], "big")
        i += count
    else:
        length = first
    if i + length > len(b):
        raise _Bad
    return tag, i, i + length


def _ended(b: bytes, i: int, end: int | None) -> bool:
    """Whether the content that ``end`` bounds (None: up to end-of-contents) ends at ``i``."""
    if end is not None:
        return i >= end
    if i + 2 > len(b):
        raise _Bad  # an indefinite length without its end-of-contents
    return b[i : i + 2] == b"\0\0"


def _skip(b: bytes, i: int, depth: int = 0) -> int:
    """The place after the element at ``i`` (each byte of it looked at once)."""
    _, start, end = _header(b, i)
    if end is not None:
        return end
    if depth > _MAX_DEPTH:
        raise _Bad
    j = start
    while not _ended(b, j, None):
        j = _skip(b, j, depth + 1)
    return j + 2


def _child(b: bytes, parent: tuple[int, int | None], at: int, tag: int) -> tuple[int, int | None]:
    """(content start, end) of the ``at``-th child of ``parent`` (its content's start and
    end), which must have ``tag``; the children before it are skipped."""
    i, end = parent
    for _ in range(at):
        if _ended(b, i, end):
            raise _Bad
        i = _skip(b, i)
    if _ended(b, i, end):
        raise _Bad
    found, start, stop = _header(b, i)
    if found != tag:
        raise _Bad
    return start, stop


def _octets(b: bytes, i: int, out: list[bytes], depth: int = 0) -> int:
    """An OCTET STRING's content (its constructed pieces in order) added to ``out``;
    returns the place after it."""
    tag, start, end = _header(b, i)
    if tag == 0x04 and end is not None:  # (a primitive's length is always definite)
        out.append(b[start:end])
        return end
    if tag != 0x24 or depth > _MAX_DEPTH:
        raise _Bad
    j = start
    while not _ended(b, j, end):
        j = _octets(b, j, out, depth + 1)
    return j + 2 if end is None else end


def _oid(b: bytes, found: tuple[int, int | None]) -> bytes:
    return b[found[0] : found[1]]


def signed_content(blob: bytes) -> bytes | None:
    """The MIME entity an opaque ``SignedData`` blob holds; None when ``blob`` is not one
    (encrypted, damaged) or holds no content (a detached signature).

    The whole blob is walked once (a truncated one is damaged), then only the path to the
    content: no element is walked twice, so the time is linear in the blob's size."""
    try:
        tag, start, end = _header(blob, 0)
        if tag != 0x30:
            return None
        _skip(blob, 0)
        info = (start, end)
        if _oid(blob, _child(blob, info, 0, 0x06)) != _SIGNED_DATA:
            return None
        signed = _child(blob, _child(blob, info, 1, 0xA0), 0, 0x30)
        encap = _child(blob, signed, 2, 0x30)  # version, digest algorithms, this
        if _oid(blob, _child(blob, encap, 0, 0x06)) != _DATA:
            return None
        i, stop = _child(blob, encap, 1, 0xA0)
        if _ended(blob, i, stop):
            return None  # no content: a detached signature
        out: list[bytes] = []
        _octets(blob, i, out)
        return b"".join(out) or None
    except (_Bad, RecursionError):
        return None
