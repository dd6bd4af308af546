"""Speaker turns into messages, shared by every transcript format: consecutive segments
of one named speaker merged (``--no-merge`` keeps them apart), each turn built with its
offsets, and its content-hash id hashing the offset (not ``--start-date``).

The cue formats (``turns``) and the speech-to-text JSON formats (``speech``) feed it one
segment at a time; a segment is a cue's voice span or prefixed group, or one segment or
utterance of a speech-to-text engine. ``unit`` names what the numbers count: ``cue``
(``FILE#cue-N``, ``extra.cues``, ``extra.cue_ids``) or ``segment`` (``FILE#segment-N``,
``extra.segments``, ``extra.segment_ids``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from convo.core.record import ConversationMessage
from convo.core.timestamps import epoch_plus, format_timestamp_utc
from convo.importers.build import ContentIds, message
from convo.importers.context import ImportContext

MAX_MERGED_CHARS = 64 * 1024


class TurnMerger:
    """Merges segments into turns and builds their messages (see the module docstring).

    ``start_date``: the wall-clock time of offset 0 (``--start-date``), else the epoch
    sentinel + the offset. ``extra`` of a segment (a channel, say) is the turn's when it
    starts one; segments with different ``extra`` are never merged.
    """

    def __init__(
        self,
        ctx: ImportContext,
        name: str,
        kind: str,
        *,
        merge: bool,
        start_date: datetime | None,
        unit: str = "cue",
    ):
        self.ctx = ctx
        self.name = name
        self.kind = kind
        self.merge = merge
        self.start_date = start_date
        self.unit = unit
        self.cur: dict[str, Any] | None = None
        self.count = 0
        self.ids = ContentIds(name)

    def add(
        self,
        speaker: str | None,
        text: str,
        n: int,
        ident: str | None,
        start_ms: int,
        end_ms: int,
        extra: dict[str, Any] | None = None,
    ) -> ConversationMessage | None:
        """One segment: merged into the current turn (None), or a new turn begun and the
        finished one's message returned. A plain call, not a generator: it runs once a cue."""
        cur = self.cur
        if (
            cur is not None
            and self.merge
            and speaker is not None
            and speaker == cur["speaker"]
            and extra == cur["extra"]
            and cur["size"] + len(text) <= MAX_MERGED_CHARS
        ):
            cur["texts"].append(text)
            cur["size"] += len(text) + 1
            cur["end"] = max(cur["end"], end_ms)
            if cur["ns"][-1] != n:
                cur["ns"].append(n)
                cur["ids"].append(ident)
            return None
        self.cur = {
            "speaker": speaker, "texts": [text], "size": len(text), "start": start_ms,
            "end": end_ms, "ns": [n], "ids": [ident], "extra": extra,
        }  # fmt: skip
        return self._build(cur) if cur is not None else None

    def finish(self) -> ConversationMessage | None:
        """The last turn's message, if any."""
        cur, self.cur = self.cur, None
        return self._build(cur) if cur else None

    def _build(self, cur: dict[str, Any]) -> ConversationMessage:
        start = cur["start"]
        unit = self.unit
        try:
            if self.start_date is not None:
                ts = format_timestamp_utc(self.start_date + timedelta(milliseconds=start))
            else:
                ts = epoch_plus(start / 1000)
        except OverflowError:  # --start-date plus the offset is past the year 9999
            ts = None
            self.ctx.warn(
                f"{self.name}#{unit}-{cur['ns'][0]}", "time past the year 9999; left unknown"
            )
        extra: dict[str, Any] = {"start": start / 1000, "end": cur["end"] / 1000}
        extra[f"{unit}s"] = cur["ns"]
        if any(i is not None for i in cur["ids"]):
            extra[f"{unit}_ids"] = cur["ids"]
        if cur["extra"]:
            extra.update(cur["extra"])
        self.count += 1
        texts = cur["texts"]
        msg = message(
            " ".join(texts) if len(texts) > 1 else texts[0],
            speaker=cur["speaker"],
            timestamp=ts,
            source_id=f"{self.name}#{unit}-{cur['ns'][0]}",
            format=self.kind,
            extra=extra,
        )
        # The id hashes the offset, not --start-date + offset: re-ingesting with another
        # (or no) --start-date finds the same messages. Without one, the offset time is
        # ``ts`` (computed once: this runs for every message).
        offset = ts if ts is not None and self.start_date is None else offset_time(start)
        self.ids.assign(msg, timestamp=offset)
        return msg


def offset_time(ms: int) -> str:
    """The offset as a time after the epoch (what a transcript without a start has)."""
    try:
        return epoch_plus(ms / 1000)
    except OverflowError:
        return f"+{ms}ms"
