"""Streaming JSON: the elements of one array inside a document, parsed one at a time.

The stream is read in blocks; compiled bytes regexes skip plain bytes and whole strings
(escapes included) so Python only looks at brackets, keys and separators. Only the
current element's bytes (plus one block) are held; each element is parsed with orjson.

Decisions:
- ``path`` is the object keys leading to the array (``()``: the document is the array).
  Elements are checked by orjson; bytes skipped (values off the path below the top
  level) are only checked for balanced brackets and closed strings.
- Top-level members other than the path's first key (a later one too: never kept) are
  kept in ``members`` (small in the formats this serves); ``skip`` names members to pass
  over unkept. With duplicate keys the first non-empty array on the path wins.
- Malformed JSON is an ``InputError`` located ``name:LINE`` (1-based), raised when it is
  met: elements before it have already been yielded. A leading UTF-8 BOM is ignored.
- ``values()`` (elements without their lines) parses a run of elements with one
  ``orjson.loads`` (``[`` + the run + ``]``): a run of objects ends at the last ``}`` in
  the buffer followed by ``, {``, other elements where a regex of shallow elements ends.
  A cut inside an element or a string cannot parse, so a run orjson reads is whole
  elements; a run it refuses is read again element by element, so errors are located as
  ``__iter__`` locates them. On 200k small chat messages (28 MB): 0.30 s of CPU, as much
  as ``orjson.loads`` of the whole file (0.28 s, 170 MB), a third of a call an element.
- Skipped values step over whole containers up to ``jsonpatterns.SKIM_DEPTH`` levels in
  one regex match (brackets paired), not a bracket at a time: 0.27 s of CPU, not 0.45 s,
  to skim those 28 MB. A skipped array of objects goes faster still in
  runs that orjson checks and drops (``_skip_array``: 0.09-0.11 s for those 28 MB).

Why not ijson (yajl2_c, which installs from a wheel here): ``ijson.items`` took 0.29 s
on the same file, no faster than ``values()``, and gives ``Decimal`` or float values of
its own, errors without a line, and a dependency; this reader keeps orjson's values
(floats, big integers, duplicate keys, surrogates) and its refusals exactly."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, BinaryIO

import orjson

from convo.core.errors import InputError
from convo.core.jsonpatterns import Patterns

BLOCK = 1 << 20

_WS = re.compile(rb"[ \t\r\n]*+")
_STR_BODY = re.compile(rb'[^"\\]*+(?:\\.[^"\\]*+)*+', re.S)  # a string's inside, to its quote
_SCALAR = re.compile(rb'[^ \t\r\n,:\[\]{}"]*+')  # a number, true, false, null (orjson checks)

_RE = Patterns()
_NEXT_OBJECT = re.compile(rb"[ \t\r\n]*+,[ \t\r\n]*+\{")  # after an object another follows

_QUOTE, _LBRACK, _RBRACK, _LBRACE, _RBRACE = b'"[]{}'
_COMMA, _COLON = b",:"
_CLOSER = {_LBRACK: _RBRACK, _LBRACE: _RBRACE}
_START = object()  # internal event: the array at the path has opened


class _Run(list[Any]):
    """Internal event: the values of a run of elements parsed at once (``values()``)."""

    __slots__ = ()


_HINT = "is the file complete?"


class _Scanner:
    """A byte buffer over a stream that drops what is behind the current value."""

    def __init__(self, stream: BinaryIO, where: str, block: int):
        self.stream = stream
        self.where = where
        self.block = block
        self.buf = bytearray()
        self.pos = 0
        self.base = 0  # stream offset of buf[0]
        self.mark: int | None = None  # start of bytes being kept
        self.eof = False
        self.line = 1  # line number at buf[line_pos]
        self.line_pos = 0

    def fill(self) -> bool:
        """Read one more block (dropping consumed bytes); False at the end of the stream."""
        if self.eof:
            return False
        keep = self.pos if self.mark is None else self.mark
        if keep > 0:
            self.line_at(keep)
            del self.buf[:keep]
            self.base += keep
            self.pos -= keep
            self.line_pos -= keep
            if self.mark is not None:
                self.mark -= keep
        data = self.stream.read(self.block)
        if not data:
            self.eof = True
            return False
        self.buf += data
        return True

    def line_at(self, p: int) -> int:
        """The 1-based line of ``buf[p]`` (``p`` never goes backwards)."""
        if p > self.line_pos:
            self.line += self.buf.count(b"\n", self.line_pos, p)
            self.line_pos = p
        return self.line

    def error(self, what: str, line: int | None = None) -> InputError:
        if line is None:
            line = self.line_at(min(self.pos, len(self.buf)))
        return InputError(f"not valid JSON ({what})", where=f"{self.where}:{line}", hint=_HINT)

    def peek(self) -> int | None:
        """The next byte after whitespace (not consumed), or None at the end."""
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.fill():
                return None

    def expect(self, ch: int, what: str) -> None:
        if self.peek() != ch:
            raise self.error(f"expected {what}")
        self.pos += 1

    def value(self, keep: bool) -> bytes | None:
        """Move past the value starting at the next byte; its bytes when ``keep``."""
        c = self.peek()
        if c is None:
            raise self.error("unexpected end of input")
        if keep:
            self.mark = self.pos
        if c in _CLOSER:
            self._container()
        elif c == _QUOTE:
            self.pos += 1
            self._string()
        else:
            self._scalar()
        if not keep:
            return None
        assert self.mark is not None
        data = bytes(self.buf[self.mark : self.pos])
        self.mark = None
        return data

    def _scalar(self) -> None:
        n = 0
        while True:
            end = _SCALAR.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            n += end - self.pos
            self.pos = end
            if end < len(self.buf) or not self.fill():
                break
        if n == 0:
            raise self.error(f"unexpected {chr(self.buf[self.pos])!r}")

    def _string(self) -> None:
        """From inside a string to just past its closing quote."""
        while True:
            p = _STR_BODY.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if p < len(self.buf) and self.buf[p] == _QUOTE:
                self.pos = p + 1
                return
            self.pos = p  # the end of the buffer, or a backslash that ends it
            if not self.fill():
                raise self.error("unterminated string")

    def _container(self, stack: list[int] | None = None) -> None:
        """Past the container opening at the scanner; with ``stack`` (the closers still
        owed), from inside one whose opening is behind."""
        buf = self.buf
        if stack is None:
            stack = [_CLOSER[buf[self.pos]]]  # opened here: the pattern skips inner ones
            self.pos += 1
        while True:
            p = _RE.plain.match(buf, self.pos).end()  # type: ignore[union-attr]
            if p >= len(buf):
                self.pos = p
                if not self.fill():
                    raise self.error("unexpected end of input")
                continue
            ch = buf[p]
            self.pos = p + 1
            if ch == _QUOTE:
                self._string()
            elif ch in _CLOSER:
                stack.append(_CLOSER[ch])
            elif not stack or stack.pop() != ch:
                raise self.error(f"unexpected {chr(ch)!r}")
            elif not stack:
                return


class JsonArray:
    """The array at ``path`` in a JSON document, one ``(element, line)`` at a time.

    ``start()`` reads up to the array's opening bracket and returns the top-level members
    seen so far; after iteration ``members`` holds all of them. ``found`` says whether an
    array was at the path (``other``: the first byte of what was there instead); ``root``
    is the document's first byte, ``keys`` the top-level keys in order (skipped ones too),
    ``kinds`` the first byte of each top-level value off the path, ``span`` the byte range
    in the stream of the element last yielded. ``values()`` gives the elements alone,
    faster (the module docstring; no ``span``). ``path=None`` reads the top-level members
    only; ``keep=False`` keeps none. ``embedded``: the document starts other text (a
    script's ``var x = [...];``), not read after it."""

    skim_runs = True  # skipped arrays of objects checked in runs (``_skip_array``)

    def __init__(
        self,
        stream: BinaryIO,
        path: tuple[str, ...] | None = (),
        *,
        where: str = "input",
        skip: tuple[str, ...] = (),
        keep: bool = True,
        block: int = BLOCK,
        embedded: bool = False,
    ):
        self.embedded = embedded
        self.members: dict[str, Any] = {}
        self.keys: list[str] = []
        self.kinds: dict[str, str] = {}
        self.span = (0, 0)
        self.found = False
        self.other = ""  # the first byte of what the path held instead of an array, if any
        self._reopen = False  # the array on the path was empty (Mastodon's outbox.json)
        self.root = ""
        self._sc = _Scanner(stream, where, block)
        self._path = path
        self._skip = set(skip)
        self._keep = keep
        self._events = self._run()
        self._started = False
        self._runs = False  # values(): parse runs of shallow elements at once
        self._careful_until = 0  # stream offset: a run refused by orjson, read one by one

    def start(self) -> dict[str, Any]:
        if not self._started:
            self._started = True
            for event in self._events:
                if event is _START:
                    break
        return self.members

    def __iter__(self) -> Iterator[tuple[Any, int]]:
        self.start()
        yield from self._events

    def values(self) -> Iterator[Any]:
        """Each element, without its line."""
        self._runs = True
        self.start()
        for event in self._events:
            if type(event) is _Run:
                yield from event
            else:
                yield event[0]

    def _run(self) -> Iterator[Any]:
        sc = self._sc
        while len(sc.buf) < 3 and sc.fill():
            pass
        if sc.buf.startswith(b"\xef\xbb\xbf"):
            sc.pos = 3
        c = sc.peek()
        if c is None:
            raise sc.error("empty document")
        self.root = chr(c)
        yield from self._at(self._path, 0)
        if not self.embedded and sc.peek() is not None:
            raise sc.error("trailing data after the document")

    def _at(self, path: tuple[str, ...] | None, depth: int) -> Iterator[Any]:
        """The value at the scanner: navigate ``path`` into it, or skip it."""
        sc = self._sc
        c = sc.peek()
        if path == () and c == _LBRACK and (not self.found or self._reopen):
            first, self.found, self._reopen = not self.found, True, False
            if first:
                yield _START
            yield from self._elements()
        elif c == _LBRACE and (path or (path is None and depth == 0)):
            yield from self._object(path, depth)
        else:
            self.other = chr(c or 32) if path == () and not self.found else self.other
            self._pass_value()

    def _parse(self, data: bytes, line: int) -> Any:
        """A value's bytes parsed (``importers.jsoninput`` mends bytes that are not UTF-8)."""
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as e:
            at = line + (getattr(e, "lineno", 1) or 1) - 1
            what = f"not valid JSON ({str(e).split(':', 1)[0]})"
            raise InputError(what, where=f"{self._sc.where}:{at}", hint=_HINT) from None

    def _opened_empty(self, close: int) -> bool:
        """Step past an opening bracket; True when the container closes at once (``[]``)."""
        sc = self._sc
        sc.pos += 1
        if sc.peek() == close:
            sc.pos += 1
            return True
        return False

    def _closed_after_item(self, close: int, what: str) -> bool:
        """Step past the ``,`` after an item (False) or the closing bracket (True)."""
        sc = self._sc
        c = sc.peek()
        sc.pos += 1
        if c == close:
            return True
        if c != _COMMA:
            raise sc.error(f"expected ',' or '{chr(close)}' after {what}")
        return False

    def _elements(self) -> Iterator[Any]:
        sc = self._sc
        if self._opened_empty(_RBRACK):
            self._reopen = True  # the elements may follow in a later member of its name
            return
        while True:
            if self._runs and sc.base + sc.pos >= self._careful_until:
                run = self._run_of_elements()
                if run is not None:
                    values, closer = run
                    yield values
                    if closer == _RBRACK:
                        return
                    if sc.buf[sc.pos] == _RBRACK:
                        raise sc.error("trailing comma")
                    continue
            whole = _RE.element.match(sc.buf, sc.pos)
            if whole is not None and whole.end() < len(sc.buf):  # the common element, at once
                line = sc.line_at(sc.pos)
                start = sc.base + sc.pos
                data = whole.group(1)
                self.span = (start, start + len(data))
                sc.pos = whole.end()
                yield self._parse(data, line), line
                if whole.group(2) == b"]":
                    return
                if sc.buf[sc.pos] == _RBRACK:
                    raise sc.error("trailing comma")
                continue
            line = sc.line_at(sc.pos)
            start = sc.base + sc.pos
            data = sc.value(keep=True)
            assert data is not None
            self.span = (start, start + len(data))
            yield self._parse(data, line), line
            if self._closed_after_item(_RBRACK, "an array element"):
                return
            if sc.peek() == _RBRACK:
                raise sc.error("trailing comma")

    def _run_of_elements(self) -> tuple[_Run, int] | None:
        """The elements from the scanner on, parsed at once, and the separator after them
        (the scanner moved past it); None to take one element the long way.

        The run ends at the last ``}`` of the buffer that is followed by ``,`` and ``{``
        (objects, the common element), else where ``_RE.run`` (shallow elements) ends. A
        cut that is not between two elements leaves ``[`` + run + ``]`` unbalanced or
        inside a string, so orjson refuses it: a run orjson reads is whole elements."""
        sc = self._sc
        if sc.pos < len(sc.buf) and sc.buf[sc.pos] == _LBRACE:
            for cut in self._cuts():
                if (values := self._parsed(cut)) is not None:
                    return values, self._past_separator(cut)
        run = _RE.run.match(sc.buf, sc.pos)
        while run is not None and run.end() == len(sc.buf) and sc.fill():
            run = _RE.run.match(sc.buf, sc.pos)  # what follows the run was not read yet
        if run is None or run.end() >= len(sc.buf):
            return None
        values = self._parsed(run.end(1))
        if values is None:  # located by the element-wise path
            self._careful_until = sc.base + run.end()
            return None
        sc.pos = run.end()
        return values, run.group(2)[0]

    def _cuts(self) -> Iterator[int]:
        """Up to two ends of a run: just past a ``}`` followed by ``,`` and ``{``."""
        sc = self._sc
        buf, end = sc.buf, len(sc.buf)
        for _ in range(2):
            brace = buf.rfind(b"}", sc.pos, end)
            if brace < 0:
                return
            m = _NEXT_OBJECT.match(buf, brace + 1)
            if m is not None and m.end() < len(buf):
                yield brace + 1
            end = brace

    def _parsed(self, cut: int) -> _Run | None:
        try:
            return _Run(orjson.loads(b"[" + self._sc.buf[self._sc.pos : cut] + b"]"))
        except orjson.JSONDecodeError:
            return None

    def _past_separator(self, cut: int) -> int:
        """Move the scanner past the separator after ``cut`` (and white space); it."""
        sc = self._sc
        sep = _WS.match(sc.buf, cut).end()  # type: ignore[union-attr]
        sc.pos = _WS.match(sc.buf, sep + 1).end()  # type: ignore[union-attr]
        return sc.buf[sep]

    def _pass_value(self) -> None:
        """Past the value at the scanner, unkept: an array by ``_skip_array``."""
        if self.skim_runs and self._sc.peek() == _LBRACK:
            self._skip_array()
        else:
            self._sc.value(keep=False)

    def _skip_array(self) -> None:
        """Past the array at the scanner as ``_Scanner.value(keep=False)`` goes (brackets
        paired, strings closed: nothing else checked), its runs of objects each checked
        by one ``orjson.loads`` (ended at ``_cuts``, as ``values()`` ends them) instead of
        walked by the regexes. A run orjson reads is whole, valid elements, which the walk
        passes without a word; what it refuses, and anything but objects, is walked, so
        the errors and the place the skip ends are the walk's.

        The top-level skim of a 200k-message ``{"messages": [...]}`` document (its first
        pass, ``convo.importers.agents.reader``) took 0.13-0.15 s of CPU instead of
        0.19-0.24 s (in-process, 5 runs each). Its plain twin is the walk itself
        (``skim_runs = False``): tests/core/test_jsonstream.py holds the two equal, on
        valid, garbled and truncated documents."""
        sc = self._sc
        sc.pos += 1  # the '['
        careful = 0  # stream offset: up to there a run orjson refused, walked
        while sc.peek() == _LBRACE:
            if sc.base + sc.pos >= careful:
                cuts = list(self._cuts())
                good = next((cut for cut in cuts if self._parsed(cut) is not None), None)
                if good is not None:
                    self._past_separator(good)  # a comma: _cuts ends runs before ", {"
                    continue
                if cuts:
                    careful = sc.base + cuts[0]
                elif len(sc.buf) - sc.pos < sc.block and sc.fill():
                    continue  # the next cut may be in the next block (the buffer: two at most)
            sc._container()  # one element, walked
            if sc.peek() != _COMMA:
                break
            sc.pos += 1
        sc._container([_RBRACK])  # the rest as the walk goes, up to the closing bracket

    def _object(self, path: tuple[str, ...] | None, depth: int) -> Iterator[Any]:
        sc = self._sc
        if self._opened_empty(_RBRACE):
            return
        while True:
            if sc.peek() != _QUOTE:
                raise sc.error("expected a key")
            line = sc.line_at(sc.pos)
            key = self._parse(sc.value(keep=True) or b"", line)
            sc.expect(_COLON, "':' after a key")
            if path and key == path[0] and (not self.found or self._reopen):
                if depth == 0:
                    self.keys.append(key)
                yield from self._at(path[1:], depth + 1)
            elif depth == 0:
                self._top_member(key)
            else:
                self._pass_value()
            if self._closed_after_item(_RBRACE, "a member"):
                return

    def _top_member(self, key: str) -> None:
        """A top-level member: its key and kind noted, its value kept unless skipped."""
        sc = self._sc
        self.keys.append(key)
        self.kinds[key] = chr(sc.peek() or 32)
        if key in self._skip or not self._keep or key in (self._path or ())[:1]:
            self._pass_value()
        else:
            line = sc.line_at(sc.pos)
            self.members[key] = self._parse(sc.value(keep=True) or b"", line)


def iter_items(
    stream: BinaryIO, path: tuple[str, ...] = (), *, where: str = "input"
) -> Iterator[tuple[Any, int]]:
    """Each element of the array at ``path`` with the line it starts on."""
    return iter(JsonArray(stream, path, where=where))


def read_top_level(
    stream: BinaryIO, skip: tuple[str, ...] = ("messages",), *, where: str = "input"
) -> dict[str, Any]:
    """The document's top-level members except those in ``skip`` (passed over unkept)."""
    doc = JsonArray(stream, None, where=where, skip=skip)
    for _ in doc:
        pass
    return doc.members
