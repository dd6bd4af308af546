"""Safe streaming XML for forum dumps.

expat (the parser under ``ElementTree.iterparse``) is driven directly, fed 64 KiB at a
time, with handlers that refuse any entity declaration (``<!ENTITY``, general or
parameter, internal or external) the moment it is seen, before anything can expand, and
that never load an external DTD (parameter-entity parsing off). A DOCTYPE without
entities (Stack Exchange dumps carry ``<!DOCTYPE posts SYSTEM 'posts.dtd'>``) is fine.
Only the current element's attributes or text are kept, so memory is flat. An entity
reference nobody declared is refused in text; in an attribute expat drops it (never
expands it). expat is used directly rather than through ``iterparse`` because ElementTree
does not expose the declaration handlers that make refusing entities exact.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from xml.parsers import expat

from convo.core.errors import InputError
from convo.core.io import Source

CHUNK = 64 * 1024
Event = tuple[str, str, Any, int]  # (kind: start|end|text, tag, attrs or text, line)


class _Refused(Exception):
    def __init__(self, what: str, line: int):
        super().__init__(what)
        self.what = what
        self.line = line


def _parser(events: list[Event], want_text: bool) -> expat.XMLParserType:
    p = expat.ParserCreate()
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


def iter_events(source: Source, *, text: bool = False, path: Any = None) -> Iterator[Event]:
    """Start/end (and with ``text``, character data) events of the source, streamed.

    Raises InputError (located ``file:LINE``) for malformed XML or refused entities.
    """
    events: list[Event] = []
    p = _parser(events, text)
    name = source.name if path is None else str(path)
    stream = source.open() if path is None else open(path, "rb")  # noqa: SIM115
    try:
        with stream:
            while True:
                chunk = stream.read(CHUNK)
                try:
                    p.Parse(chunk, not chunk)
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
                except (LookupError, UnicodeError) as e:  # a declared encoding Python lacks
                    raise InputError(
                        f"unreadable XML encoding ({e})",
                        where=f"{name}:{p.CurrentLineNumber}",
                        hint="re-save the file as UTF-8",
                    ) from None
                yield from events
                events.clear()
                if not chunk:
                    break
    except OSError as e:
        raise InputError(f"cannot read ({e.strerror or e})", where=name) from None
