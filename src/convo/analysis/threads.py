"""Conversations, one row each: what ``convo threads`` lists.

A message belongs to its conversation (``fields.conversation``: its ``thread``; for a
message without one, the file it came from, as a transcript's cues), which is also what
``convo show --thread ID`` takes. A row holds the
title (the subject of the thread's first message, else its first words), the
participants (speakers, the most active first), the message count, the first and
latest times and the formats. Rows come newest first (by the latest message), ties by
the first time they were seen. Memory holds one small entry per thread, not messages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from convo.core import fields
from convo.core.timestamps import EPOCH_STR

TITLE_CHARS = 80


@dataclass
class Thread:
    thread: str  # what `convo show --thread` takes
    title: str = ""
    first: str = ""
    latest: str = ""
    messages: int = 0
    speakers: Counter[str] = field(default_factory=Counter)
    formats: set[str] = field(default_factory=set)
    _title_at: str = ""

    def add(self, record: dict[str, Any]) -> None:
        ts = fields.timestamp(record)
        self.messages += 1
        if not self.first or ts < self.first:
            self.first = ts
        if ts > self.latest:
            self.latest = ts
        speaker = fields.speaker(record)
        if speaker:
            self.speakers[speaker] += 1
        fmt = fields.string(record, "format")
        if fmt:
            self.formats.add(fmt)
        if not self.title or ts < self._title_at:
            title = _title(record)
            if title:
                self.title, self._title_at = title, ts

    def participants(self) -> list[str]:
        return [name for name, _ in self.speakers.most_common()]

    def to_dict(self) -> dict[str, Any]:
        unknown = None if self.first == EPOCH_STR else self.first
        return {
            "thread": self.thread, "title": self.title, "messages": self.messages,
            "participants": self.participants(), "first": unknown,
            "latest": None if self.latest == EPOCH_STR else self.latest,
            "formats": sorted(self.formats),
        }  # fmt: skip


def _title(record: dict[str, Any]) -> str:
    subject = fields.string(record, "subject")
    if subject:
        return " ".join(subject.split())[:TITLE_CHARS]
    return " ".join(fields.text(record).split())[:TITLE_CHARS]


def _keyed(records: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], str | None]]:
    """Each record with its conversation, one record behind: a record without a
    ``thread`` whose id the next record's ``thread`` names is that thread's root (a root
    often carries no thread field: docs/library.md's example), not its file's."""
    held: dict[str, Any] | None = None
    for record in records:
        if held is not None:
            yield held, _key(held, record)
        held = record
    if held is not None:
        yield held, _key(held, None)


def _key(record: dict[str, Any], after: dict[str, Any] | None) -> str | None:
    if after is not None and not fields.string(record, "thread"):
        rid = fields.record_id(record)
        if rid is not None and fields.string(after, "thread") == rid:
            return rid
    return fields.conversation(record)


def threads(records: Iterable[dict[str, Any]]) -> list[Thread]:
    """The conversations of ``records``, newest first."""
    found: dict[str, Thread] = {}
    for record, key in _keyed(records):
        if key is None:
            continue  # a record without id or thread cannot be shown as a thread
        entry = found.get(key)
        if entry is None:
            entry = found[key] = Thread(key)
        entry.add(record)
    order = {key: n for n, key in enumerate(found)}
    return sorted(found.values(), key=lambda t: (t.latest, -order[t.thread]), reverse=True)
