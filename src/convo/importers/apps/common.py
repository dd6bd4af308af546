"""Helpers shared by the chat-app export readers: sniffing heads, streamed JSON, lines,
lenient JSON values, mojibake repair, the empty-message tally."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from convo.core.io import Source, decode_text, strip_bom
from convo.core.jsonstream import JsonArray, read_top_level

SYSTEM_TAG = "system"
# UTF-32's little-endian BOM starts with UTF-16's: test it first.
UTF32_BOMS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def json_head(source: Source) -> str:
    """The decoded head (BOM removed by ``head_text``) without leading whitespace, for sniffing."""
    return source.head_text().lstrip()


def has_key(text: str, key: str) -> bool:
    return re.search(r'"' + re.escape(key) + r'"\s*:', text) is not None


class StreamedDoc:
    """A JSON document whose array at ``path`` is read one element at a time.

    ``head()`` gives the top-level members (a second pass finds those the document puts
    after the array, when one in ``need`` was not before it); ``items()`` may be called
    more than once (each a pass). Standard input is spooled to a file to allow that.
    """

    def __init__(
        self,
        source: Source,
        path: tuple[str, ...],
        skip: tuple[str, ...] = (),
        keep: bool = True,
    ):
        self.source = source
        self.path = path
        self.skip = skip
        self.keep = keep
        self.found = False
        self.root = ""
        self.keys: list[str] = []
        self._pending: tuple[BinaryIO, JsonArray] | None = None

    def _open(self) -> BinaryIO:
        if self.source.is_stdin:
            return open(self.source.real_path(), "rb")
        return self.source.open()

    def _array(self, stream: BinaryIO) -> JsonArray:
        return JsonArray(stream, self.path, where=self.source.name, skip=self.skip, keep=self.keep)

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

    def items(self) -> Iterator[tuple[Any, int]]:
        """Each element with the line it starts on."""
        if self._pending is not None:
            stream, arr = self._pending
            self._pending = None
        else:
            stream = self._open()
            arr = self._array(stream)
        with stream:
            yield from arr

    def close(self) -> None:
        if self._pending is not None:
            self._pending[0].close()
            self._pending = None


def as_str(value: Any) -> str:
    """A value from JSON as text: strings as they are, numbers printed, anything else empty."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, int | float):
        return str(value)
    return ""


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _cp1252_reverse() -> dict[str, int]:
    table: dict[str, int] = {}
    for b in range(256):
        try:
            table[bytes([b]).decode("cp1252")] = b
        except UnicodeDecodeError:
            table[chr(b)] = b  # the five bytes cp1252 leaves undefined pass through as C1 chars
    return table


_CP1252 = _cp1252_reverse()


def fix_cp1252_mojibake(text: str) -> str:
    """Undo UTF-8 bytes that were decoded as cp1252 ('Grace ðŸ§¤' -> 'Grace 🧤').

    Only when every character maps back to one byte and those bytes are valid UTF-8
    with at least one multi-byte sequence: otherwise the text is left unchanged.
    """
    if text.isascii():
        return text
    try:
        raw = bytes(_CP1252[c] for c in text)
        fixed = raw.decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return text
    return fixed


def fix_latin1_mojibake(text: str) -> str:
    """Undo Facebook's escaping of UTF-8 bytes as \\u00XX characters."""
    if text.isascii():
        return text
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def numbered_lines(source: Source) -> Iterator[tuple[int, str]]:
    """Numbered lines without their ends; UTF-32/16 when a BOM says so, else UTF-8 (cp1252
    fallback, line by line). Stdin and .gz are spooled so a reader can take two passes."""
    with open(source.real_path(), "rb") as f:
        bom = f.read(4)
        wide = "utf-32" if bom in UTF32_BOMS else "utf-16" if bom[:2] in UTF16_BOMS else None
        if wide:
            f.seek(0)
            with io.TextIOWrapper(f, encoding=wide, errors="replace", newline=None) as text:
                for n, line in enumerate(text, 1):
                    yield n, line.rstrip("\r\n")
            return
        f.seek(0)
        for n, raw in enumerate(f, 1):
            yield n, decode_text(strip_bom(raw) if n == 1 else raw).rstrip("\r\n")


def head_lines(source: Source, limit: int) -> list[str]:
    """The first ``limit`` non-blank lines of the head (BOM removed), for sniffing."""
    return [x for x in source.head_text().splitlines() if x.strip()][:limit]


class EmptyCounter:
    """Counts messages skipped for having no text at all; warns once per source."""

    def __init__(self) -> None:
        self.n = 0

    def report(self, ctx: Any, what: str = "empty messages (no text, no media)") -> None:
        if self.n:
            ctx.warn(ctx.source.name, f"skipped {self.n} {what}")
