"""Shared pieces of the forum readers: JSON input, mentions, times, ids, tallies."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any, TypedDict, Unpack

import orjson

from convo.core.errors import RecordError
from convo.core.io import Source, load_json, strip_bom
from convo.core.jsonl import iter_lines, parse_line
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_ts, iso_ts
from convo.importers import build
from convo.importers.context import ImportContext
from convo.importers.jsoninput import as_digits

__all__ = [
    "DELETED_AUTHORS",
    "Tally",
    "as_int",
    "as_str",
    "items",
    "json_values",
    "mentions",
    "message",
    "record_error",
    "unescape",
]

DELETED_AUTHORS = {"[deleted]", "[removed]", "ghost", ""}

# @name not preceded by a word character (so mail addresses are not mentions).
_AT_MENTION = re.compile(r"(?<![\w@./])@([A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?)")
_REDDIT_MENTION = re.compile(r"(?<![\w/])/?u/([A-Za-z0-9_-]{3,20})\b")


def mentions(text: str, speaker: str | None, *, reddit: bool = False) -> list[str]:
    """@-mentioned users (``u/name`` for Reddit), in order, without repeats or the speaker."""
    pattern = _REDDIT_MENTION if reddit else _AT_MENTION
    out: dict[str, None] = {}
    for m in pattern.finditer(text):
        name = m.group(1)
        if name != speaker:
            out.setdefault(name, None)
    return list(out)


def unescape(text: str) -> str:
    """Entities as characters (Reddit escapes &, < and > in markdown bodies)."""
    return html.unescape(text) if "&" in text else text


def as_str(value: Any) -> str | None:
    """A JSON string or number as text; anything else (None, objects) as None."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    return None


def body_text(value: Any) -> str:
    """A body with its line ends made ``\\n`` (the GitHub and GitLab APIs keep the CRLF
    of text typed in a browser)."""
    text = as_str(value) or ""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):  # ASCII digits, at most 19: "²" and 5,000 digits int() refuses
        return as_digits(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


class Tally:
    """Per-source counts reported once at the end (deleted authors, unknown times...)."""

    def __init__(self, ctx: ImportContext):
        self.ctx = ctx
        self.deleted = 0
        self.no_time = 0
        self.ids = build.ContentIds(ctx.source.name)

    def speaker(self, name: Any) -> str | None:
        """The author's name, or None (counted) for a deleted or missing author."""
        text = as_str(name)
        if text is None or text.strip() in DELETED_AUTHORS:
            self.deleted += 1
            return None
        return text.strip()

    def epoch(self, value: Any) -> str | None:
        """Epoch seconds (number or numeric string) to a record timestamp, or None (counted)."""
        return self._counted(epoch_ts(value))

    def iso(self, value: Any) -> str | None:
        """An ISO date/time (naive ones in --tz) to a record timestamp, or None (counted)."""
        return self._counted(iso_ts(value, self.ctx.options.tz))

    def _counted(self, timestamp: str | None) -> str | None:
        self.no_time += timestamp is None
        return timestamp

    def ensure_id(self, msg: ConversationMessage) -> str:
        """The message's id, or the content hash the pipeline would give it (for replyTo)."""
        return self.ids.assign(msg)

    def finish(self) -> None:
        name = self.ctx.source.name
        if self.deleted:
            self.ctx.warn(
                name,
                f"{counted(self.deleted, 'post')} by deleted or unknown authors (speaker null)",
            )
        if self.no_time:
            self.ctx.warn(
                name,
                f"{counted(self.no_time, 'post')} without a readable time (timestamp left unknown)",
            )


class MessageFields(TypedDict, total=False):
    """What a forum reader passes on to ``convo.importers.build.message`` unchanged."""

    id: str | None
    thread: str | None
    reply_to: str | None
    subject: str | None
    tags: list[str] | None
    extra: dict[str, Any] | None


def message(
    fmt: str,
    text: str,
    speaker: str | None,
    *,
    timestamp: str | None,
    source_id: str,
    reddit: bool = False,
    **fields: Unpack[MessageFields],
) -> ConversationMessage:
    """One forum message (``convo.importers.build.message``) whose listeners are the
    @-mentions in its text."""
    listeners = mentions(text, speaker, reddit=reddit)
    return build.message(
        text, speaker=speaker, listeners=listeners, timestamp=timestamp, source_id=source_id,
        format=fmt, **fields,
    )  # fmt: skip


def _is_json_lines(head: bytes) -> bool:
    """True when the first line is a whole JSON object and more content follows."""
    head = strip_bom(head).lstrip()
    if not head.startswith(b"{"):
        return False
    first, _, rest = head.partition(b"\n")
    if not rest.strip():
        return False
    try:
        return isinstance(orjson.loads(first), dict)
    except orjson.JSONDecodeError:
        return False


def json_values(source: Source, ctx: ImportContext) -> Iterator[tuple[str, Any]]:
    """Top-level values with their location: one document, or JSON lines (streamed).

    A bad line is rejected and reading goes on; an unreadable document is an InputError.
    """
    if _is_json_lines(source.head):
        with source.open() as stream:
            for line in iter_lines(stream):
                try:
                    yield ctx.loc(line.number), parse_line(line, source.name)
                except RecordError as e:
                    ctx.reject_error(e, line.raw)
        return
    yield source.name, load_json(source)


def items(where: str, value: Any) -> Iterator[tuple[str, Any]]:
    """The records of one top-level value: an array's items (located ``#item-N``) or itself."""
    if isinstance(value, list):
        for i, item in enumerate(value, 1):
            yield f"{where}#item-{i}", item
    else:
        yield where, value


def record_error(where: str, what: str, hint: str | None = None) -> RecordError:
    return RecordError(what, where=where, hint=hint)
