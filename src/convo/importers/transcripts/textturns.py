"""Speaker paragraphs of the text transcripts (Otter, Teams .docx, Google Meet) as messages.

The text formats time a paragraph by an offset from the start of the recording, as a
cue is timed: the message's time is the start plus the offset, where the start is
``--start-date`` when given, else the meeting's start the file states (Google Meet's
title, Teams' date line), else the epoch (an undated transcript, as ``vtt`` does).
``extra.start`` holds the offset in seconds. The id hashes the offset, not the start,
so re-ingesting with another ``--start-date`` finds the same messages (``turns`` does
the same for cues).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_plus, format_timestamp_utc
from convo.importers.build import ContentIds, message
from convo.importers.context import ImportContext

# ``M:SS``, ``MM:SS`` or ``H:MM:SS`` (any number of hour digits): minutes and seconds < 60.
CLOCK = r"\d{1,6}:[0-5]\d(?::[0-5]\d)?"


def clock_seconds(clock: str) -> int:
    """Seconds of a ``CLOCK`` (``1:02:03`` is 3723, ``2:03`` is 123)."""
    total = 0
    for part in clock.split(":"):
        total = total * 60 + int(part)
    return total


class TextTurns:
    """Builds the messages of one text transcript, numbering their ids."""

    def __init__(self, source: Source, ctx: ImportContext, kind: str):
        self.ctx = ctx
        self.kind = kind
        self.ids = ContentIds(source.name)
        self.start: datetime | None = ctx.options.start_date
        self.count = 0

    def stated_start(self, start: datetime) -> None:
        """The meeting's start as the file states it; ``--start-date`` wins when given."""
        if self.ctx.options.start_date is None:
            self.start = start

    def build(
        self,
        lines: list[str],
        *,
        speaker: str | None,
        offset: int | None,
        where: str,
        subject: str | None = None,
        tags: list[str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> ConversationMessage:
        """One message of the paragraph ``lines`` (joined with newlines), found at ``where``
        (its ``source_id``); ``offset`` in seconds from the start of the recording (None:
        unknown)."""
        ts = self._time(offset, where)
        msg = message(
            "\n".join(lines),
            speaker=speaker,
            timestamp=ts,
            source_id=where,
            format=self.kind,
            subject=subject,
            tags=tags,
            extra={"start": None if offset is None else float(offset), **(extra or {})},
        )
        self.ids.assign(msg, timestamp=None if offset is None else _offset_time(offset))
        self.count += 1
        return msg

    def _time(self, offset: int | None, where: str) -> str | None:
        if offset is None:
            return None
        if self.start is None:
            return _offset_time(offset)
        try:
            return format_timestamp_utc(self.start + timedelta(seconds=offset))
        except OverflowError:
            self.ctx.warn(where, "time past the year 9999; left unknown")
            return None


def _offset_time(seconds: int) -> str:
    try:
        return epoch_plus(seconds)
    except OverflowError:
        return f"+{seconds}s"
