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


def _element(b: bytes, i: int, depth: int = 0) -> tuple[int, int, int, int]:
    """(tag, content start, content end, next element) of the element at ``i``."""
    if depth > _MAX_DEPTH or i + 2 > len(b):
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
    if first == 0x80:  # indefinite: the children up to the end-of-contents octets
        if not tag & 0x20:
            raise _Bad
        j = i
        while b[j : j + 2] != b"\0\0":
            j = _element(b, j, depth + 1)[3]
            if j >= len(b):
                raise _Bad
        return tag, i, j, j + 2
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
    return tag, i, i + length, i + length


def _children(b: bytes, start: int, end: int) -> list[tuple[int, int, int]]:
    """(tag, content start, content end) of each element between ``start`` and ``end``."""
    out = []
    i = start
    while i < end and b[i : i + 2] != b"\0\0":
        tag, s, e, i = _element(b, i)
        out.append((tag, s, e))
    return out


def _octets(b: bytes, tag: int, start: int, end: int, depth: int = 0) -> bytes:
    """An OCTET STRING's content, its constructed pieces joined."""
    if tag == 0x04:
        return b[start:end]
    if tag != 0x24 or depth > _MAX_DEPTH:
        raise _Bad
    return b"".join(_octets(b, t, s, e, depth + 1) for t, s, e in _children(b, start, end))


def _only(found: list[tuple[int, int, int]], tag: int, at: int = 0) -> tuple[int, int]:
    if len(found) <= at or found[at][0] != tag:
        raise _Bad
    return found[at][1], found[at][2]


def signed_content(blob: bytes) -> bytes | None:
    """The MIME entity an opaque ``SignedData`` blob holds; None when ``blob`` is not one
    (encrypted, damaged) or holds no content (a detached signature)."""
    try:
        tag, s, e, _ = _element(blob, 0)
        if tag != 0x30:
            return None
        info = _children(blob, s, e)
        oid = _only(info, 0x06)
        if blob[oid[0] : oid[1]] != _SIGNED_DATA:
            return None
        signed = _only(_children(blob, *_only(info, 0xA0, 1)), 0x30)
        encap = _only(_children(blob, *signed), 0x30, 2)  # version, digest algorithms, this
        parts = _children(blob, *encap)
        oid = _only(parts, 0x06)
        if blob[oid[0] : oid[1]] != _DATA:
            return None
        inner = _children(blob, *_only(parts, 0xA0, 1))
        if not inner:
            return None
        return _octets(blob, *inner[0]) or None
    except (_Bad, IndexError, RecursionError):
        return None
