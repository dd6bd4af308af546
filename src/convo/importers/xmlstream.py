"""Safe streaming XML, shared by the importers that read XML: the forum dumps
(Stack Exchange, phpBB), TTML and YouTube timedtext transcripts, and Word documents
(``convo.importers.docx``).

expat (the parser under ``ElementTree.iterparse``) is driven directly, fed 64 KiB at a
time, with handlers that refuse any entity declaration (``<!ENTITY``, general or
parameter, internal or external) the moment it is seen, before anything can expand, and
that never load an external DTD (parameter-entity parsing off). A DOCTYPE without
entities (Stack Exchange dumps carry ``<!DOCTYPE posts SYSTEM 'posts.dtd'>``) is fine.
Only the current element's attributes or text are kept, so memory is flat. An entity
reference nobody declared is refused in text; in an attribute expat drops it (never
expands it). expat is used directly rather than through ``iterparse`` because ElementTree
does not expose the declaration handlers that make refusing entities exact.

A declared encoding expat cannot read (multi-byte Asian encodings, UTF-7) is decoded by
Python's codec and fed to expat as UTF-8. An unfinished token is rescanned a bounded
number of times (the next read is at least as large as what is pending), and a token
(an attribute value, a comment) over ``MAX_TOKEN_BYTES`` is refused with its line, since
expat's time on one attribute grows with the square of its length: reading stays linear
in the input (benchmarks/xml_attribute.py checks it).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from typing import Any, BinaryIO
from xml.parsers import expat

from convo.core.errors import InputError
from convo.core.io import Source, strip_bom

CHUNK = 64 * 1024
MAX_TOKEN_BYTES = 4 << 20  # Stack Exchange caps a post at 30,000 characters
Event = tuple[str, str, Any, int]  # (kind: start|end|text, tag, attrs or text, line)
# Encodings expat decodes itself; any other declared encoding is decoded by Python.
_EXPAT_NATIVE = {"utf-8", "utf8", "utf-16", "utf-16le", "utf-16be", "iso-8859-1", "us-ascii"}
_DECLARATION = re.compile(
    rb"""\s*<\?xml[^>]{0,200}?encoding\s*=\s*["']([A-Za-z0-9._-]{1,40})["']"""
)


class _Refused(Exception):
    def __init__(self, what: str, line: int):
        super().__init__(what)
        self.what = what
        self.line = line


def _parser(events: list[Event], want_text: bool, encoding: str | None) -> expat.XMLParserType:
    p = expat.ParserCreate(encoding)
    p.buffer_text = True
    p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def refuse_entity(name: str, *_: Any) -> None:
        raise _Refused(f"entity declaration <!ENTITY {name}>", p.CurrentLineNumber)

    def refuse_external(*_: Any) -> int:
        raise _Refused("external entity reference", p.CurrentLineNumber)

    def skipped(name: str, *_: Any) -> None:
        raise _Refused(f"reference to undeclared entity &{name};", p.CurrentLineNumber)

    p.EntityDeclHandler = refuse_entity
    p.UnparsedEntityDeclHandler = refuse_entity
    p.ExternalEntityRefHandler = refuse_external
    p.SkippedEntityHandler = skipped
    p.StartElementHandler = lambda tag, attrs: events.append(
        ("start", tag, attrs, p.CurrentLineNumber)
    )
    p.EndElementHandler = lambda tag: events.append(("end", tag, None, p.CurrentLineNumber))

    if want_text:
        p.CharacterDataHandler = lambda data: events.append(("text", "", data, p.CurrentLineNumber))
    return p


class _Transcoder:
    """Bytes in a declared encoding expat cannot read (Shift_JIS, EUC-JP, GBK, Big5,
    UTF-7...) re-encoded as UTF-8 for a parser told to read UTF-8."""

    def __init__(self, codec: str):
        self._decoder = codecs.getincrementaldecoder(codec)(errors="replace")

    def __call__(self, data: bytes) -> bytes:
        return self._decoder.decode(data, final=not data).encode("utf-8", "surrogatepass")


def _declared_codec(head: bytes, where: str) -> str | None:
    """The Python codec to transcode with, or None when expat reads the bytes itself."""
    m = _DECLARATION.match(strip_bom(head))
    if m is None:
        return None
    name = m.group(1).decode("ascii").lower().replace("_", "-")
    if name in _EXPAT_NATIVE:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise InputError(
            f"unreadable XML encoding {name!r}",
            where=f"{where}:1",
            hint="re-save the file as UTF-8",
        ) from None


def iter_events(source: Source, *, text: bool = False, path: Any = None) -> Iterator[Event]:
    """Start/end (and with ``text``, character data) events of the source, streamed.

    Raises InputError (located ``file:LINE``) for malformed XML or refused entities.
    """
    name = source.name if path is None else str(path)
    stream = source.open() if path is None else open(path, "rb")  # noqa: SIM115
    try:
        with stream:
            yield from _events(stream, name, text)
    except OSError as e:
        raise InputError(f"cannot read ({e.strerror or e})", where=name) from None


def stream_events(stream: BinaryIO, name: str, *, text: bool = False) -> Iterator[Event]:
    """``iter_events`` of an open stream (a zip member's): the caller closes it."""
    return _events(stream, name, text)


def _events(stream: BinaryIO, name: str, want_text: bool) -> Iterator[Event]:
    events: list[Event] = []
    first = stream.read(CHUNK)
    codec = _declared_codec(first, name)
    transcode = _Transcoder(codec) if codec else None
    p = _parser(events, want_text, "utf-8" if codec else None)
    fed = 0
    chunk = first
    while True:
        data = transcode(chunk) if transcode else chunk
        _feed(p, data, not chunk, name)
        fed += len(data)
        yield from events
        events.clear()
        if not chunk:
            break
        # expat rescans an unfinished token on every feed, and its time on one attribute
        # grows with the square of its length: reading as much as is pending keeps the
        # rescans linear, and a token is never allowed past MAX_TOKEN_BYTES.
        pending = fed - p.CurrentByteIndex
        if pending > MAX_TOKEN_BYTES:
            raise InputError(
                f"an XML tag or token longer than {MAX_TOKEN_BYTES >> 20} MiB",
                where=f"{name}:{p.CurrentLineNumber}",
                hint="no forum post is this large; is the file damaged?",
            )
        chunk = stream.read(max(CHUNK, pending))


def _feed(p: expat.XMLParserType, data: bytes, final: bool, name: str) -> None:
    try:
        p.Parse(data, final)
    except _Refused as e:
        raise InputError(
            f"unsafe XML refused ({e.what})",
            where=f"{name}:{e.line}",
            hint="convo does not expand XML entities; remove the DOCTYPE entities",
        ) from None
    except expat.ExpatError as e:
        raise InputError(
            f"malformed XML ({expat.ErrorString(e.code)}, column {e.offset})",
            where=f"{name}:{e.lineno}",
            hint="is the file complete?",
        ) from None
    except (LookupError, UnicodeError, ValueError) as e:  # an encoding expat and Python lack
        raise InputError(
            f"unreadable XML encoding ({e})",
            where=f"{name}:{p.CurrentLineNumber}",
            hint="re-save the file as UTF-8",
        ) from None
