"""A fast path for well-formed messages: headers and MIME parts split by hand.

The standard library's feed parser costs more than everything else an import does, so
messages that are plainly well formed (valid header lines, 7bit/8bit/binary/QP/base64
parts, multiparts whose boundaries are all found, attached messages only with a plain
body, no digests) are split here with a few ``bytes`` operations. Anything else returns
None and goes to ``email.parser`` (compat32), which copes with every defect. Both paths
feed the same record builder, and tests check that they agree.

A leaf part whose Content-Type or Content-Disposition has RFC 2231 parameters
(``filename*=utf-8''r%C3%A9sum%C3%A9.pdf``, continuations ``name*0*=``), which every
mail program writes for a non-ASCII attachment name, keeps the fast split: only those
headers are read by compat32, through the robust path's own rules (``mime.leaf``), so
the names and charsets are the standard library's to the byte.
"""

from __future__ import annotations

import binascii
import functools
import re
from email.message import Message

from convo.importers.email.body import Body, add_leaf, collect_alternative, stored_apart
from convo.importers.email.charsets import decode_words
from convo.importers.email.mime import OPAQUE_SIGNED, SIZING, attached, leaf

# A header line and its continuation lines (the raw value keeps them, as compat32's does).
_HEADERS = re.compile(r"^([\x21-\x39\x3b-\x7e]+):[ \t]*(.*(?:\n[ \t].*)*)", re.M)
_PARAM = re.compile(r';\s*([A-Za-z0-9_.!#$%&\'*+^`{|}~-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]*)')
_ESCAPE = re.compile(r"\\(.)")
_PLAIN_CTE = ("", "7bit", "8bit", "binary")


class _Fallback(Exception):
    """This message needs the standard library's parser."""


def parse_fast(
    data: bytes, encoding: str | None = None
) -> tuple[dict[str, list[str]], Body] | None:
    """(raw headers by lower-case name, body) of a well-formed message, else None;
    ``encoding`` (``--encoding``) reads the text parts that declare no charset.

    ``_params`` results are cached and shared: treat them as read-only. Against the
    standard library's compat32 parse of the same messages: 4.81× less CPU (noise ±35%;
    2,000 generated messages, ``benchmarks/bench_fastpaths.py``); the property test
    ``tests/importers/test_email.py::test_fast_path_agrees_on_generated_mime`` holds the
    records equal."""
    try:
        h, rest = _split(data)
        body = Body(encoding)
        _collect(h, rest, body, 0)
        return h, body
    except _Fallback:
        return None


def _split(data: bytes) -> tuple[dict[str, list[str]], bytes]:
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
        if b"\r" in data:
            raise _Fallback
    if data[:1] == b"\n":
        return {}, data[1:]
    i = data.find(b"\n\n")
    if i < 0:
        head, rest = data.rstrip(b"\n"), b""
    else:
        head, rest = data[:i], data[i + 2 :]
    text = head.decode("ascii", "surrogateescape")
    if text[:1] in (" ", "\t", ""):
        raise _Fallback
    found = _HEADERS.findall(text)
    # Every line must be a header or a continuation: else the stdlib sorts out the defect.
    lines = text.count("\n") + 1 - text.count("\n ") - text.count("\n\t")
    if len(found) != lines:
        raise _Fallback
    h: dict[str, list[str]] = {}
    for name, value in found:
        key = name.lower()
        if key in h:
            h[key].append(value)
        else:
            h[key] = [value]
    return h, rest


@functools.lru_cache(maxsize=4096)
def _params(value: str) -> tuple[str, dict[str, str] | None]:
    """(main value lower-cased, parameters by lower-case name); parameters None when
    one uses RFC 2231 (a ``*`` in its name), which the standard library decodes."""
    main, sep, rest = value.partition(";")
    # A parameter written without its ";" (enmime's mime-bad-content-type.raw:
    # 'application/pdf name="x.pdf"') is a parameter, not part of the type.
    ctype, *more = main.split(None, 1) or [""]
    ctype, missed = ctype.lower(), more[0] if more else ""
    if "=" in missed:
        sep, rest = ";", f"{missed};{rest}"
    params: dict[str, str] = {}
    if sep:
        for m in _PARAM.finditer(";" + rest):
            key = m.group(1).lower()
            if "*" in key:
                return ctype, None
            v = m.group(2)
            if v[:1] == '"':
                v = _ESCAPE.sub(r"\1", v[1:-1])
            params.setdefault(key, v)
    return ctype, params


def _content_type(h: dict[str, list[str]]) -> tuple[str, dict[str, str] | None]:
    values = h.get("content-type")
    if not values:
        return "text/plain", {}
    ctype, params = _params(values[0])
    if ctype == "text" or ctype.count("/") != 1:
        ctype = "text/plain"
    return ctype, params


def _collect(h: dict[str, list[str]], data: bytes, body: Body, depth: int) -> None:
    ctype, params = _content_type(h)
    if ctype.startswith("multipart/"):
        _collect_multipart(ctype, params, data, body, depth)
        return
    if ctype == "message/rfc822":
        _attached(h, data, params, body, depth)
        return
    if ctype.startswith("message/") or ctype in OPAQUE_SIGNED:
        raise _Fallback  # an opaque-signed S/MIME part: read by ``mime``
    disp_values = h.get("content-disposition")
    disp, dparams = _params(disp_values[0]) if disp_values else ("", {})
    if params is None or dparams is None:
        _rfc2231_leaf(h, data, ctype, body)
        return
    name = dparams.get("filename") or params.get("name")
    if name:
        name = decode_words(name)
    cid = h.get("content-id")
    add_leaf(
        body,
        ctype,
        disp,
        name,
        lambda: _decode(h, data),
        lambda: (params.get("charset"), params.get("format"), params.get("delsp")),
        decode_words(cid[0]).strip() if cid else None,
    )
    apple = h.get("x-apple-content-length")
    stored_apart(body, apple[0] if apple else None)


def _collect_multipart(
    ctype: str, params: dict[str, str] | None, data: bytes, body: Body, depth: int
) -> None:
    # A digest's parts are messages by default (RFC 2046 5.1.5): the stdlib's.
    if depth > 10 or params is None or ctype == "multipart/digest":
        raise _Fallback
    parts = [_split(p) for p in _multipart(data, params.get("boundary"))]
    if ctype == "multipart/alternative":
        collect_alternative(
            [_content_type(ph)[0] for ph, _ in parts],
            lambda i, sub: _collect(*parts[i], sub, depth + 1),
            body,
        )
        return
    for ph, pdata in parts:
        _collect(ph, pdata, body, depth + 1)


def _attached(
    h: dict[str, list[str]], data: bytes, params: dict[str, str] | None, body: Body, depth: int
) -> None:
    """An attached message with a plain body, split here (``mime.attached`` builds the
    record, as for the stdlib's). Left to the stdlib: a file name on the part (its
    unquoting rules), an encoded part, and an inner multipart, whose size is that of
    the stdlib's rewriting of it (boundaries, preamble and epilogue rewritten)."""
    disp = h.get("content-disposition")
    cte = h.get("content-transfer-encoding")
    if params is None or "name" in params or (disp and "name" in disp[0].lower()):
        raise _Fallback
    if cte and cte[0].strip().lower() not in _PLAIN_CTE:
        raise _Fallback
    ih, rest = _split(data)
    if not ih or _content_type(ih)[0].startswith(("multipart/", "message/")):
        raise _Fallback
    inner = Body(body.encoding)
    _collect(ih, rest, inner, depth + 1)
    attached(body, None, ih, inner, _written_size(ih, rest) if depth < 5 else 0)


def _written_size(h: dict[str, list[str]], rest: bytes) -> int:
    """``mime.attached_size`` of a plain message: its headers as compat32 writes them
    (``mime.SIZING``; a header's length does not depend on its name's case), a blank
    line, the body (whose lines compat32 writes back as they are)."""
    size = 1 + len(rest)
    try:
        for name, values in h.items():
            size += sum(len(SIZING.fold_binary(name, value)) for value in values)
    except Exception:  # as mime.attached_size: a message it cannot write
        return 0
    return size


_LEAF_HEADERS = ("content-type", "content-disposition", "content-id")


def _rfc2231_leaf(h: dict[str, list[str]], data: bytes, ctype: str, body: Body) -> None:
    """A leaf with RFC 2231 parameters: its headers by compat32's rules, its body here."""
    part = Message()
    for header in _LEAF_HEADERS:
        for value in h.get(header, ()):
            if not value.isascii():  # 8-bit bytes: compat32 reads the raw headers in order
                raise _Fallback
            part[header] = value
    name = leaf(part, ctype, body, lambda: _decode(h, data))
    if name is not None and "\ufffd" in name:  # the same: its raw-header reading
        raise _Fallback


def _decode(h: dict[str, list[str]], data: bytes) -> bytes:
    values = h.get("content-transfer-encoding")
    cte = values[0].strip().lower() if values else ""
    if cte in _PLAIN_CTE:
        return data
    if cte == "quoted-printable":
        return binascii.a2b_qp(data)
    if cte == "base64":
        try:
            return binascii.a2b_base64(data)
        except binascii.Error:
            raise _Fallback from None
    raise _Fallback


def _multipart(data: bytes, boundary: str | None) -> list[bytes]:
    """The parts between ``--boundary`` lines; _Fallback unless every delimiter is clean."""
    if not boundary or not boundary.isascii():
        raise _Fallback
    delim = b"--" + boundary.encode("ascii")
    close = delim + b"--"
    parts: list[bytes] = []
    start = -1
    pos = 0
    n = len(data)
    dl = len(delim)
    while pos <= n:
        i = data.find(delim, pos)
        if i < 0:
            raise _Fallback  # no closing delimiter
        if i and data[i - 1 : i] != b"\n":
            pos = i + dl
            continue
        end = data.find(b"\n", i)
        if end < 0:
            end = n
        line = data[i:end].rstrip(b" \t")
        if line == delim:
            if start >= 0:
                parts.append(data[start : i - 1] if i > start else b"")
            start = end + 1
        elif line == close:
            if start < 0:
                raise _Fallback
            parts.append(data[start : i - 1] if i > start else b"")
            return parts
        else:
            raise _Fallback  # a longer boundary that starts with ours
        pos = end + 1
    raise _Fallback
