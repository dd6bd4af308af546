"""Helpers shared by the chat-app export readers (JSON loading, mojibake, times, records)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from convo.core.io import Source
from convo.core.jsonstream import JsonArray, read_top_level
from convo.core.record import ConversationMessage, ConversationMessageMeta

# A JSON document read whole (shapes the streaming reader does not serve) is capped.
SYSTEM_TAG = "system"


def json_head(source: Source) -> str:
    """The decoded head without BOM and leading whitespace, for sniffing."""
    return source.head_text().lstrip("\ufeff").lstrip()


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


def message(
    text: str | list[str],
    *,
    speaker: str | None,
    listeners: list[str] | None = None,
    timestamp: str | None = None,
    id: str | None = None,
    source_id: str | None = None,
    format: str | None = None,
    thread: str | None = None,
    reply_to: str | None = None,
    subject: str | None = None,
    role: str | None = None,
    tags: list[str] | None = None,
    extra: dict[str, Any] | None = None,
) -> ConversationMessage:
    """Build a record; listeners exclude the speaker and keep their first-seen order."""
    chunks = [text] if isinstance(text, str) else [c for c in text if c] or [""]
    heard = [x for x in dict.fromkeys(listeners or []) if x and x != speaker]
    return ConversationMessage(
        text_chunks=chunks,
        metadata=ConversationMessageMeta(speaker=speaker or None, recipients=heard),
        tags=list(tags or []),
        timestamp=timestamp,
        id=id,
        source_id=source_id,
        format=format,
        thread=thread or None,
        reply_to=reply_to or None,
        subject=subject or None,
        role=role,
        extra={k: v for k, v in (extra or {}).items() if v not in (None, "", [], {})} or None,
    )


class EmptyCounter:
    """Counts messages skipped for having no text at all; warns once per source."""

    def __init__(self) -> None:
        self.n = 0

    def report(self, ctx: Any, what: str = "empty messages (no text, no media)") -> None:
        if self.n:
            ctx.warn(ctx.source.name, f"skipped {self.n} {what}")
