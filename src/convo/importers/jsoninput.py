"""JSON input shared by every family: sniffing a head, lenient values, a document read
one array element at a time.

Sniffers look only at ``Source.head_text`` (the decoded head, BOM removed); readers take
values from untrusted JSON through ``as_str``/``as_dict``/``as_list`` so a wrong-typed
field reads as empty instead of failing, and stream a large export's array with
``StreamedDoc``.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

import orjson

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.jsonl import iter_lines
from convo.core.jsonstream import JsonArray, read_top_level
from convo.core.plural import counted

if TYPE_CHECKING:
    from convo.importers.context import ImportContext

T = TypeVar("T")


def json_lines(source: Source, ctx: ImportContext) -> Iterator[tuple[int, str, Any]]:
    """Each line of a JSONL ``source`` that is JSON: (its number, its locator, its value).
    A line that is not is rejected at its place ("not JSON", and "the last line, cut
    short" when it is the file's torn last line), kept whole for ``--rejects``."""
    with source.open() as stream:
        for line in iter_lines(stream):
            where = ctx.loc(line.number)
            try:
                value = orjson.loads(line.raw)
            except orjson.JSONDecodeError:
                torn = " (the last line, cut short)" if line.torn else ""
                ctx.reject(where, f"not JSON{torn}", line.raw.decode("utf-8", "replace"))
                continue
            yield line.number, where, value


class CutShort:
    """A streamed document's elements up to where it breaks off (an export interrupted, a
    file cut at its end, a garbled stretch): what came before is kept, and the break is
    one rejection at its place (``FILE:LINE``) saying how many elements came before it,
    instead of the whole file refused. Wrap each pass over the elements (``__call__``); a
    document read twice (a first pass for its senders) reports its break once. With
    ``defer`` the caller says it (``report``), after reading the element it broke in
    (``StreamedDoc.broken``), or not, when that element's own reading said it."""

    def __init__(
        self, ctx: ImportContext, one: str, many: str | None = None, hint: str = "", *,
        defer: bool = False,
    ):  # fmt: skip
        self.ctx = ctx
        self.one, self.many = one, many
        self.hint = hint
        self.defer = defer
        self.error: InputError | None = None
        self.n = 0  # the elements before the break
        self.reported = False

    @property
    def broke(self) -> bool:
        return self.error is not None

    def __call__(self, items: Iterable[T]) -> Iterator[T]:
        n = 0
        try:
            for item in items:
                n += 1
                yield item
        except InputError as e:
            if self.error is None:
                self.error, self.n = e, n
            if not self.defer:
                self.report()

    def report(self) -> None:
        e = self.error
        if e is None or self.reported:
            return
        self.reported = True
        self.ctx.reject(
            e.where or self.ctx.source.name,
            f"the file breaks off here, after {counted(self.n, self.one, self.many)}: {e.what}",
            hint=self.hint or e.hint,
        )


def json_head(source: Source) -> str:
    """The decoded head (BOM removed by ``head_text``) without leading whitespace, for sniffing."""
    return source.head_text().lstrip()


def has_key(text: str, key: str) -> bool:
    return re.search(r'"' + re.escape(key) + r'"\s*:', text) is not None


def json_head_with(source: Source, marker: str = "", *, key: str = "", opens: str = "[{") -> str:
    """The sniffing head (``json_head``) when it opens a JSON value with one of ``opens``
    and holds ``marker`` (a substring) and the member ``key``; "" otherwise (score 0)."""
    text = json_head(source)
    if not text or text[0] not in opens:
        return ""
    if (marker and marker not in text) or (key and not has_key(text, key)):
        return ""
    return text


def json_start(text: str) -> bool:
    """The decoded head (``Source.head_text``, BOM removed) opens a JSON object or array."""
    return text.lstrip()[:1] in ("{", "[")


# A sniff rule: the score given when every pattern is found in the head.
SniffRule = tuple[int, tuple[re.Pattern[str], ...]]


def sniff_json(source: Source, rules: tuple[SniffRule, ...]) -> int:
    """The score of the first rule whose patterns all match a JSON head, else 0."""
    text = source.head_text()
    if not json_start(text):
        return 0
    for score, patterns in rules:
        if all(p.search(text) for p in patterns):
            return score
    return 0


class LocatedArray(JsonArray):
    """A ``JsonArray`` whose ``span`` before its first element is the empty range just
    inside the array's ``[`` (where a pass that breaks off before any element broke:
    ``StreamedDoc.broken``); ``line`` numbers the stream's first line (a document read
    from the middle of a file)."""

    def __init__(
        self, stream: BinaryIO, path: tuple[str, ...] | None = (), *, line: int = 1, **kw: Any
    ):
        super().__init__(stream, path, **kw)
        self._sc.line = line

    def _opened_empty(self, close: int) -> bool:
        if close == _RBRACKET:
            at = self._sc.base + self._sc.pos + 1
            self.span = (at, at)
        return super()._opened_empty(close)


_RBRACKET = ord("]")


class MendedArray(LocatedArray):
    """A ``JsonArray`` whose values may hold bytes that are not UTF-8 (a writer that cut a
    character between two strings, as whisper.cpp does): a value orjson refuses only for
    them is read with U+FFFD for them and counted in ``mended``; any other fault is still
    the located error."""

    mended = 0

    def _parse(self, data: bytes, line: int) -> Any:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            text = data.decode("utf-8", "replace")
            if text.encode() == data:  # UTF-8 already: another fault
                return super()._parse(data, line)
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return super()._parse(data, line)
        self.mended += 1
        return value


# The BOMs of the JSON a Windows shell may write (PowerShell 5's ``>`` and ``Out-File``
# write UTF-16): UTF-32's little-endian BOM starts with UTF-16's, so it comes first.
_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
              (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))  # fmt: skip


class _AsUtf8(io.RawIOBase):
    """A UTF-16 or UTF-32 stream (its BOM first) as UTF-8 bytes, streamed (what cannot be
    decoded is U+FFFD), so the JSON reader, which reads UTF-8, reads it as it is meant."""

    def __init__(self, raw: BinaryIO, encoding: str):
        self._raw = raw
        self._decode = codecs.getincrementaldecoder(encoding)("replace").decode
        self._out = b""

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        while not self._out:
            data = self._raw.read(1 << 16)
            self._out = self._decode(data, final=not data).encode("utf-8")
            if not data:
                break
        n = min(len(b), len(self._out))
        b[:n] = self._out[:n]
        self._out = self._out[n:]
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


class StreamedDoc:
    """A JSON document whose array at ``path`` is read one element at a time.

    ``head()`` gives the top-level members (a second pass finds those the document puts
    after the array, when one in ``need`` was not before it); ``items()`` may be called
    more than once (each a pass). Standard input is spooled to a file to allow that. A
    document in UTF-16 or UTF-32 with its BOM (as its head was decoded for sniffing) is
    read through ``_AsUtf8``.
    """

    def __init__(
        self,
        source: Source,
        path: tuple[str, ...],
        skip: tuple[str, ...] = (),
        keep: bool = True,
        mend_utf8: bool = False,
    ):
        self.source = source
        self.path = path
        self.skip = skip
        self.keep = keep
        self.mend_utf8 = mend_utf8  # see ``MendedArray``; ``mended`` counts the values
        self.mended = 0
        self.found = False
        self.root = ""
        self.keys: list[str] = []
        self._pending: tuple[BinaryIO, JsonArray] | None = None
        # where the last pass stood (``broken``: the element it broke off in is after it)
        self._done = (0, 0)

    def _open(self) -> BinaryIO:
        if self.source.is_stdin:
            stream: BinaryIO = open(self.source.real_path(), "rb")  # noqa: SIM115 - returned
        else:
            stream = self.source.open()
        head = self.source.head
        wide = next((codec for bom, codec in _WIDE_BOMS if head.startswith(bom)), None)
        return io.BufferedReader(_AsUtf8(stream, wide)) if wide else stream

    def _array(self, stream: BinaryIO) -> JsonArray:
        kind = MendedArray if self.mend_utf8 else LocatedArray
        return kind(stream, self.path, where=self.source.name, skip=self.skip, keep=self.keep)

    def head(self, need: tuple[str, ...] = ()) -> dict[str, Any]:
        stream = self._open()
        try:
            arr = self._array(stream)
            members = dict(arr.start())
        except BaseException:
            stream.close()
            raise
        self.found, self.root, self.keys = arr.found, arr.root, arr.keys
        if not arr.found or all(k in members for k in need):
            self._pending = (stream, arr)
            return members
        stream.close()
        with self._open() as again:
            skip = (*self.skip, self.path[0]) if self.path else self.skip
            return read_top_level(again, skip, where=self.source.name)

    def expect(self, missing: str, need: tuple[str, ...] = ()) -> dict[str, Any]:
        """``head(need)``; an InputError saying ``missing`` (the document closed) when the
        array at ``path`` is not there."""
        members = self.head(need)
        if not self.found:
            self.close()
            raise InputError(missing, where=self.source.name)
        return members

    def _taken(self) -> tuple[Any, Any]:
        """The open stream and its array: the one ``expect`` opened, else a new one."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            return pending
        stream = self._open()
        return stream, self._array(stream)

    def items(self) -> Iterator[tuple[Any, int]]:
        """Each element with the line it starts on."""
        stream, arr = self._taken()
        self._done = (0, 0)
        with stream:
            try:
                for item in arr:
                    self._done = arr.span
                    yield item
            finally:
                self._done = arr.span if self._done == (0, 0) else self._done
                self.mended += getattr(arr, "mended", 0)
        self._no_list(arr)

    def broken(self, path: tuple[str, ...]) -> BrokenElement:
        """After a pass of ``items()`` broke off: the element it broke in, read as a
        document of its own whose array at ``path`` streams up to the break (a full
        export's chat, cut inside its messages)."""
        return BrokenElement(self, self._done[1], path)

    def values(self) -> Iterator[Any]:
        """Each element without its line, faster (``JsonArray.values``)."""
        stream, arr = self._taken()
        with stream:
            try:
                yield from arr.values()
            finally:
                self.mended += getattr(arr, "mended", 0)
        self._no_list(arr)

    def _no_list(self, arr: JsonArray) -> None:
        """The path held something else than a list (``"messages": ""``): an InputError,
        where its elements were read as none, unsaid (a Telegram chat, a LibreChat or
        SWE-agent file)."""
        if arr.other and not arr.found:
            what = _KINDS.get(arr.other, "a number")
            raise InputError(
                f"its {'.'.join(self.path)} is {what}, not a list",
                where=self.source.name,
                hint="the file was changed or cut; export it again",
            )

    def close(self) -> None:
        if self._pending is not None:
            self._pending[0].close()
            self._pending = None


class BrokenElement:
    """The element a ``StreamedDoc`` pass broke off in, from its first byte (``offset`` in
    the document's stream, past the separator): ``head()`` its members before its array
    at ``path`` (None when it breaks before that array opens), ``items()`` that array's
    elements up to the break (a pass each; errors located at the document's lines)."""

    def __init__(self, doc: StreamedDoc, offset: int, path: tuple[str, ...]):
        self.doc, self.offset, self.path = doc, offset, path

    def _array(self) -> tuple[BinaryIO, JsonArray]:
        stream = self.doc._open()
        line, left = 1, self.offset
        while left > 0:  # the bytes before it, counted for the lines (a rare, one-off read)
            chunk = stream.read(min(left, 1 << 20))
            if not chunk:
                break
            line += chunk.count(b"\n")
            left -= len(chunk)
        lead = stream.read(64)
        rest = lead.lstrip(b" \t\r\n")
        rest = rest[1:].lstrip(b" \t\r\n") if rest.startswith(b",") else rest
        line += lead[: len(lead) - len(rest)].count(b"\n")
        joined: BinaryIO = io.BufferedReader(_Prefixed(rest, stream))
        return joined, LocatedArray(joined, self.path, where=self.doc.source.name, line=line)

    def head(self) -> dict[str, Any] | None:
        stream, arr = self._array()
        with stream:
            try:
                members = dict(arr.start())
            except InputError:
                return None
        return members if arr.found else None

    def items(self) -> Iterator[tuple[Any, int]]:
        stream, arr = self._array()
        with stream:
            yield from arr


class _Prefixed(io.RawIOBase):
    """Bytes already read, then the rest of ``stream`` (closed with it)."""

    def __init__(self, first: bytes, stream: BinaryIO):
        self._first, self._stream = first, stream

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        data = self._first[: len(b)] if self._first else self._stream.read(len(b))
        self._first = self._first[len(data) :] if self._first else b""
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._stream.close()
        super().close()


_KINDS = {'"': "a string", "{": "an object", "n": "null", "t": "true", "f": "false", " ": "nothing"}


def as_str(value: Any) -> str:
    """A value from JSON as text: strings as they are, numbers printed, anything else empty."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, int | float):
        return str(value)
    return ""


def as_digits(value: Any) -> int | None:
    """An integer a JSON value writes as ASCII digits (a string, ``"1718000000000"``:
    MongoDB's ``$numberLong``, Google's microseconds; or a number), an optional minus
    before them, at most 19 (a time in any unit); else None. ``str.isdigit`` is no test:
    it passes ``"²"``, which ``int`` refuses, and a 5,000-digit string ``int`` refuses
    too."""
    text = as_str(value) if isinstance(value, str | int) else ""
    digits = text[1:] if text.startswith("-") else text
    if not (0 < len(digits) <= 19 and digits.isascii() and digits.isdigit()):
        return None
    return int(text)


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def listed(doc: dict[str, Any], key: str, where: str, ctx: Any) -> list[Any]:
    """``doc[key]`` when it is a list, [] when it is absent or null; anything else (a
    string, an object, a number: a file changed or cut) is rejected at ``where`` and read
    as none (``as_list`` read it as none, unsaid)."""
    value = doc.get(key)
    if value is None or isinstance(value, list):
        return value or []
    ctx.reject(where, f"its {key} is a {type(value).__name__}, not a list", value)
    return []
