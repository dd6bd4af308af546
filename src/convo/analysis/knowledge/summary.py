"""A conversation summed up: who talks to whom, top entities and topics, per-speaker topics."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from convo.analysis.knowledge.extract import (
    Conversation,
    as_record,
    extract_all,
    person,
    replay,
)
from convo.core import fields
from convo.core.knowledge_schema import KnowledgeResponse
from convo.core.record import ConversationMessage


def _drop_singles(table: Counter[Any], limit: int) -> None:
    if len(table) > limit:
        for key in [k for k, n in table.items() if n <= 1]:
            del table[key]


def _ranked(counter: Counter[str], spelling: dict[str, str], top: int | None) -> list:
    items = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(spelling[k], n) for k, n in (items[:top] if top is not None else items)]


@dataclass
class Aggregate:
    """A conversation summed up. Keys are case-folded; shown with the first spelling seen.

    ``pairs`` counts messages from a speaker to a listener, and to the speaker of the
    message replied to (a forum reply or a threaded chat message talks to its parent).
    Entities count the messages naming them, except TypeAgent's ``email`` message entity.
    """

    messages: int = 0
    speakers: Counter[str] = field(default_factory=Counter)
    pairs: Counter[tuple[str, str]] = field(default_factory=Counter)
    entities: Counter[str] = field(default_factory=Counter)
    entity_types: dict[str, list[str]] = field(default_factory=dict)
    topics: Counter[str] = field(default_factory=Counter)
    speaker_topics: dict[str, Counter[str]] = field(default_factory=dict)
    spelling: dict[str, str] = field(default_factory=dict)

    MAX_KEYS: ClassVar[int] = 50_000

    def _prune(self) -> None:
        """Drop keys seen once from tables grown past ``MAX_KEYS`` (lossy, like uniq -c of a sample)."""
        tables: list[Counter[Any]] = [self.entities, self.topics, self.pairs]
        for table in tables:
            _drop_singles(table, self.MAX_KEYS)
        for per in self.speaker_topics.values():
            _drop_singles(per, self.MAX_KEYS // 10)
        if len(self.spelling) > 2 * self.MAX_KEYS:
            live = set(self.entities) | set(self.topics) | set(self.speakers)
            live.update(k for pair in self.pairs for k in pair)
            live.update(k for per in self.speaker_topics.values() for k in per)
            self.spelling = {k: v for k, v in self.spelling.items() if k in live}
            self.entity_types = {k: v for k, v in self.entity_types.items() if k in self.entities}

    def _key(self, name: str) -> str:
        key = name.casefold()
        self.spelling.setdefault(key, name)
        return key

    def add(
        self,
        record: dict[str, Any],
        knowledge: KnowledgeResponse,
        conv: Conversation | None = None,
    ) -> None:
        """Count one message: its speaker and listeners, entities, topics."""

        def key_of(value: str) -> str:
            name = person(record, value, conv)
            return self._key(conv.canonical(name) if conv is not None else name)

        self.messages += 1
        speaker = fields.speaker(record)
        who = key_of(speaker) if speaker else None
        if who is not None:
            self.speakers[who] += 1
            heard = {key_of(listener) for listener in fields.listeners(record)}
            for a in knowledge.actions:  # a reply talks to the parent's speaker
                if a.verbs == ["reply"] and a.object_entity_name not in ("none", speaker):
                    heard.add(self._key(a.object_entity_name))
            heard.discard(who)  # replying to oneself is not talking to someone
            for listener in sorted(heard):
                self.pairs[(who, listener)] += 1
        for e in knowledge.entities:
            if "message" in e.type:  # TypeAgent's "email" entity on every mail
                continue
            key = self._key(e.name)
            self.entities[key] += 1
            types = self.entity_types.setdefault(key, [])
            types.extend(t for t in e.type if t not in types)
        for t in knowledge.topics:
            key = self._key(t)
            self.topics[key] += 1
            if who is not None:
                self.speaker_topics.setdefault(who, Counter())[key] += 1
        if self.messages % 10_000 == 0:
            self._prune()

    def to_dict(self, top: int | None = 20) -> dict[str, Any]:
        """Plain data for ``--format json``: ranked lists, most frequent first."""
        sp = self.spelling
        pairs = sorted(self.pairs.items(), key=lambda kv: (-kv[1], kv[0]))
        pairs = pairs[:top] if top is not None else pairs
        return {
            "messages": self.messages,
            "speakers": [{"name": n, "messages": c} for n, c in _ranked(self.speakers, sp, top)],
            "pairs": [{"speaker": sp[a], "listener": sp[b], "messages": c} for (a, b), c in pairs],
            "entities": [
                {"name": n, "type": self.entity_types[n.casefold()], "messages": c}
                for n, c in _ranked(self.entities, sp, top)
            ],
            "topics": [{"topic": n, "messages": c} for n, c in _ranked(self.topics, sp, top)],
            "speaker_topics": [
                {
                    "speaker": sp[s],
                    "topics": [
                        {"topic": n, "messages": c}
                        for n, c in _ranked(self.speaker_topics.get(s, Counter()), sp, 5)
                    ],
                }
                for s, _ in sorted(self.speakers.items(), key=lambda kv: (-kv[1], kv[0]))[
                    : top if top is not None else None
                ]
            ],
        }


def aggregate(
    items: Iterable[dict[str, Any] | ConversationMessage], *, metadata_only: bool = False
) -> Aggregate:
    """Who talks to whom, top entities and topics, per-speaker topics, for a conversation."""
    agg = Aggregate()
    if metadata_only:
        for record, k in extract_all(items, metadata_only=True):
            agg.add(record, k)
        return agg
    conv = Conversation()
    records = items if isinstance(items, list | tuple) else (as_record(x) for x in items)
    for record, analysis in replay(records, conv):
        agg.add(record, conv.extract_analysed(record, analysis), conv)
    return agg
