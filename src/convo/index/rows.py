"""From JSONL bytes to index rows: lines with their byte spans, and the fields of a record.

Fields are read exactly as the scan reads them (``convo.core.fields``), so an indexed
lookup selects what the scan selects. FTS text is the subject and the text; runs of CJK
characters (Han, kana, Hangul) are split into one token per character before indexing
and in queries, so a word inside an unspaced CJK sentence is found as a phrase of its
characters (see docs/store.md, "CJK").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

from convo.core import fields

BLOCK = 1 << 20
BOM = b"\xef\xbb\xbf"
_CJK_CHARS = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f"
)


@functools.cache
def cjk_pattern() -> re.Pattern[str]:
    """One CJK character, compiled on first use: compiling this class of ~40,000 code
    points costs more than the rest of a short command."""
    return re.compile(f"[{_CJK_CHARS}]")


def has_cjk(text: str) -> bool:
    return not text.isascii() and cjk_pattern().search(text) is not None


def _spaced(m: re.Match[str]) -> str:
    return " " + m.group() + " "


def space_cjk(text: str) -> str:
    """Each CJK character as a token of its own (a no-op for other text): a space each
    side of it. (Two between neighbours: FTS5 reads the same tokens at the same
    positions, and one pass per character is the fastest way, measured, against a
    search first and a substitution of runs.)"""
    if text.isascii():
        return text
    return cjk_pattern().sub(_spaced, text)


@dataclass(slots=True)
class Row:
    """What the index keeps of one record."""

    id: str | None
    timestamp: str
    speaker: str | None
    thread: str | None
    format: str | None
    role: str
    subject: str | None
    listeners: list[str]
    tags: list[str]
    text: str


def row_of(record: dict[str, Any]) -> Row:
    """What the index keeps of ``record``: each field as its ``convo.core.fields``
    accessor reads it (the scan's filters use those).

    Deliberate hot-path copy of the accessors (``fields.speaker``, ``listeners``, ``tags``,
    ``role``, ``text``, ``string``): a build runs this once per line of a million-line
    store, and the inlined form costs half the accessor calls. ``tests/index/test_rows.py``
    checks it against the accessors on hostile records.
    """
    get = record.get
    meta = get("metadata")
    if type(meta) is not dict:
        meta = {}
    speaker = meta.get("speaker")
    if type(speaker) is not str:
        speaker = None
    people = meta.get("listeners")
    if people is None:
        people = meta.get("recipients")
    chunks = get("textChunks")
    if chunks is None:
        chunks = get("text_chunks")
    role = get("role")
    if role not in fields.ROLES:
        low = speaker.lower() if speaker else ""
        role = low if low in fields.ROLES else "user"
    return Row(
        id=_str(get("id")), timestamp=fields.timestamp(record), speaker=speaker or None,
        thread=fields.conversation(record), format=_str(get("format")),
        role=role,
        subject=_str(get("subject")), listeners=_strs(people, True), tags=_strs(get("tags")),
        text="\n".join(_strs(chunks)),
    )  # fmt: skip


def _strs(value: Any, nonempty: bool = False) -> list[str]:
    """``fields.str_list`` (empty strings dropped with ``nonempty``)."""
    if type(value) is not list:
        return []
    if nonempty:
        return [x for x in value if type(x) is str and x]
    return [x for x in value if type(x) is str]


def _str(value: Any) -> str | None:
    """``fields.string``: a non-empty string, else None."""
    return value if type(value) is str and value else None


def fts_values(row: Row) -> tuple[str, str]:
    return space_cjk(row.subject or ""), space_cjk(row.text)


def parse(raw: bytes) -> dict[str, Any] | None:
    """The record of a line, or None when it is not a record (``fields.is_record``: the
    scan reports those, the index skips them)."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return value if fields.is_record(value) else None


def iter_spans(stream: IO[bytes], start: int = 0) -> Iterator[tuple[int, int, bytes]]:
    """``(offset, length, line)`` for each whole non-blank line from ``start`` on.

    ``length`` excludes the newline; a CR before it is kept in the span but not in
    ``line``. A final line without a newline is not yielded (not whole yet).
    """
    stream.seek(start)
    at = start
    carry = b""
    while True:
        data = stream.read(BLOCK)
        if not data:
            return
        if at == 0 and data.startswith(BOM):
            data, at = data[3:], 3
        buf = carry + data if carry else data
        base = at - len(carry)
        at += len(data)
        cut = buf.rfind(b"\n")
        if cut < 0:
            carry = buf
            continue
        carry = buf[cut + 1 :]
        pos = 0
        for line in buf[:cut].split(b"\n"):
            n = len(line)
            body = line[:-1] if line.endswith(b"\r") else line
            if body.strip():
                yield base + pos, n, body
            pos += n + 1


def end_of_whole_lines(stream: IO[bytes], size: int, start: int) -> int:
    """The offset just after the last newline at or after ``start`` (``start`` if none)."""
    pos = size
    while pos > start:
        lo = max(start, pos - BLOCK)
        stream.seek(lo)
        data = stream.read(pos - lo)
        i = data.rfind(b"\n")
        if i >= 0:
            return lo + i + 1
        pos = lo
    return start
