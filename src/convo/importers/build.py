"""The one message builder of the importers: every reader's record is made here.

Readers pass what they know; the builder applies the shared rules: empty text chunks
dropped (one empty chunk kept so the record is well-formed), listeners without the
speaker and without repeats in first-seen order, tags without repeats, a reply to the
message itself dropped, and empty ``extra`` values (None, "", [], {}) left out.

It is also the one home of content-hash ids: ``ContentIds`` gives every message of one
source that has no id of its own ``h:`` + a hash of (format, conversation, speaker,
time, text) (``convo.core.record.content_id``), the conversation being the message's
``thread``, else the source file's name (without its folder, so the same file ingested
from another folder keeps its ids), with an occurrence counter for true repeats. The
pipeline finishes every message through it; readers that need an id before the
pipeline (a reply's target) or that hash another time (a transcript's cue offset, so
``--start-date`` does not change ids) call it themselves.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from convo.core.record import ConversationMessage, ConversationMessageMeta, content_id

EMPTY_VALUES: tuple[Any, ...] = (None, "", [], {})


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
    """Build a record (see the module docstring for the rules)."""
    return ConversationMessage(
        text_chunks=_chunks(text),
        metadata=ConversationMessageMeta(
            speaker=speaker or None, recipients=_listeners(listeners, speaker)
        ),
        tags=list(dict.fromkeys(tags or [])),
        timestamp=timestamp,
        id=id,
        source_id=source_id,
        format=format,
        thread=thread or None,
        reply_to=reply_to if reply_to and reply_to != id else None,
        subject=subject or None,
        role=role,
        extra=_extra(extra),
    )


def _chunks(text: str | list[str]) -> list[str]:
    if isinstance(text, str):
        return [text]
    return [c for c in text if c] or [""]


def _listeners(listeners: list[str] | None, speaker: str | None) -> list[str]:
    return [x for x in dict.fromkeys(listeners or []) if x and x != speaker]


def _extra(extra: dict[str, Any] | None) -> dict[str, Any] | None:
    return {k: v for k, v in (extra or {}).items() if not _empty(v)} or None


def _empty(value: Any) -> bool:
    # ``0 in (None, "", [], {})`` is False but ``False == 0``: compare by type first.
    return value is None or (type(value) in (str, list, dict) and not value)


class ContentIds:
    """Content-hash ids for the messages of one source (see the module docstring)."""

    def __init__(self, source_name: str):
        self.file = PurePath(source_name).name or source_name
        self._seen: dict[str, int] = {}

    def assign(self, msg: ConversationMessage, timestamp: str | None = None) -> str:
        """The message's id; one without gets its content hash (``timestamp`` replaces the
        message's time in the hash)."""
        if not msg.id:
            base = content_id(msg, conversation=self.file, timestamp=timestamp)
            k = self._seen.get(base, 0)
            self._seen[base] = k + 1
            msg.id = f"{base}-{k}" if k else base
        return msg.id
