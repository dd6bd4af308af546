"""A conversation summed up: who talks to whom, top entities and topics, per-speaker topics.

Memory is bounded whatever the input: every table is a Misra-Gries summary
(``convo.analysis.frequent.Frequent``) of at most ``2 * CAPACITY`` keys, and names are
kept only for keys some table holds (or a batch still to count: see below). What is
exact and what is approximate:

- ``messages`` is exact, always.
- While a table never held more than ``2 * CAPACITY`` distinct keys, its counts are
  exact (every realistic conversation: people, pairs, entities and topics in the tens
  of thousands). Beyond that a count may be low by at most the table's ``error``, which
  is at most ``n / (CAPACITY + 1)`` for ``n`` the table's total (for topics: the number
  of (message, topic) pairs); keys above that bound are never lost. ``to_dict`` says
  ``"approximate": true`` when any table is past that point.
- ``speaker_count`` (the header's "N speakers") is the number of distinct speakers,
  exact while the speakers table is exact and otherwise the number still held.
- Per-speaker topics are one table of (speaker, topic) pairs, so a speaker's top five
  are exact under the same condition and within the same bound otherwise.

Counting is batched: a message's keys wait in lists (``_Pending``) and each table counts
``BATCH`` messages' keys at once (``Frequent.update``: the same counts and reductions
as one ``add`` per key, in C loops); whatever reads the tables counts the waiting keys
first (``flush``).

``merge(other)`` adds another aggregate (of the input that follows this one's): the
counts equal one pass over both inputs while the tables are exact, and stay within the
bound otherwise; a spelling is the first one seen, as in one pass.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from convo.analysis.frequent import Frequent
from convo.analysis.knowledge.actions import reply_actions
from convo.analysis.knowledge.body_analysis import Analysis, distinct_people, people_only
from convo.analysis.knowledge.dicts import Plain
from convo.analysis.knowledge.email import email_fields
from convo.analysis.knowledge.extract import (
    Conversation,
    as_record,
    person_of,
    plain_all,
    replay,
    topics_of,
)
from convo.analysis.knowledge.mailpeople import MESSAGE, mail_person, unmerged
from convo.analysis.knowledge.metadata import is_email
from convo.core import fields

if TYPE_CHECKING:
    from convo.core.record import ConversationMessage

CAPACITY = 20_000  # keys kept per table after a reduction (twice that before one)
_CACHE_MAX = 1 << 14  # people the cache holds (bounded memory)
SPEAKER_TOPICS = 5  # topics shown per speaker
BATCH = 64  # messages whose keys wait before the tables count them (512: 4 MB more at a
# worker's peak, for 0.2% fewer instructions)
_PERSON = ["person"]
V = TypeVar("V")


def _ranked(table: Frequent[Any], top: int | None) -> list[tuple[Any, int]]:
    items = sorted(table.items(), key=lambda kv: (-kv[1], kv[0]))
    return items[:top] if top is not None else items


def _kept(d: dict[str, V], keep: Container[str]) -> dict[str, V]:
    """``{k: v for k, v in d.items() if k in keep}``, in C loops."""
    flags = list(map(keep.__contains__, d))
    return dict(zip(compress(d, flags), compress(d.values(), flags), strict=True))


def _folded(name: str) -> str:
    """The key of a name: case-folded, and the name itself when it is so already (one
    string for the key, its spelling and the tables' keys)."""
    key = name.casefold()
    return name if key == name else key


class _NameKeys(dict[str, str]):
    """A name -> its key (``_folded``), the name its spelling when the key had none: a
    hit is a C subscript, no Python call. At most ``_CACHE_MAX`` kept."""

    __slots__ = ("spelling",)

    def __init__(self, spelling: dict[str, str]):
        super().__init__()
        self.spelling = spelling

    def __missing__(self, name: str) -> str:
        key = _folded(name)
        if key not in self.spelling:
            self.spelling[key] = name
        _bounded(self)[name] = key
        return key


class _PersonKeys(dict[str, str]):
    """A speaker or listener value -> the key of its person (``extract.person_of``) as
    ``conv`` spells it (``names``: its key), in mail records or in others (``mail``)."""

    __slots__ = ("conv", "mail", "names")

    def __init__(self, names: _NameKeys, mail: bool):
        super().__init__()
        self.names = names
        self.mail = mail
        self.conv: Conversation | None = None

    def __missing__(self, value: str) -> str:
        conv = self.conv
        name = person_of(self.mail, value, conv)
        key = self.names[conv.canonical(name) if conv is not None else name]
        _bounded(self)[value] = key
        return key


class _Address:
    """The entities of an address value in mail: their keys, and (key, name, types) of
    each until the first message that counts them has set their spellings and types
    (then empty; a prune makes the caches anew)."""

    __slots__ = ("entities", "keys")

    def __init__(self, entities: tuple[Plain, ...]):
        self.entities = tuple((_folded(e["name"]), e["name"], e["type"]) for e in entities)
        self.keys = [key for key, _, _ in self.entities]


class _Keys:
    """Caches (not state) of an ``Aggregate`` with the spellings ``spelling``, for one
    conversation (``conv``): the key of a name (``names``), of a speaker or listener
    value in other records (``chat``) and in mail (``mail``), the key, name and types
    of each entity of an address value in mail (``addresses``), and the keys typed
    ``person`` already (``persons``). Messages repeat a few thousand people, and one
    key object per person keeps the pair tuples small. Made anew when a key's spelling
    may have been pruned (it must be set again); emptied when the conversation changes.
    No cache refers to the aggregate: dropping one frees it at once, without a cycle
    for the garbage collector."""

    __slots__ = ("addresses", "chat", "conv", "mail", "message", "names", "persons")

    def __init__(self, spelling: dict[str, str]) -> None:
        self.conv: Conversation | None = None
        self.names = _NameKeys(spelling)
        self.chat = _PersonKeys(self.names, False)
        self.mail = _PersonKeys(self.names, True)
        self.addresses: dict[str, _Address] = {}
        self.persons: set[str] = set()
        self.message = ""  # the key of the message entity of mail (``message_key``)

    def use(self, conv: Conversation | None) -> None:
        """Caches for ``conv`` (emptied when it is another conversation)."""
        if conv is not self.conv:
            for cache in (self.chat, self.mail, self.names, self.addresses, self.persons):
                cache.clear()
            self.conv = self.chat.conv = self.mail.conv = conv
            self.message = ""

    def message_key(self) -> str:
        """The key of TypeAgent's message entity in mail, as ``conv`` spells it."""
        if not self.message:
            name = self.conv.canonical(MESSAGE) if self.conv is not None else MESSAGE
            self.message = name.casefold()
        return self.message


class _Pending:
    """Keys of an ``Aggregate``'s tables not counted yet, in the order they came."""

    __slots__ = ("entities", "pairs", "speaker_topics", "speakers", "topics")

    def __init__(self) -> None:
        self.speakers: list[str] = []
        self.pairs: list[tuple[str, str]] = []
        self.entities: list[str] = []
        self.topics: list[str] = []
        self.speaker_topics: list[tuple[str, str]] = []

    def lists(self) -> list[list[Any]]:
        """The lists, in the order of ``Aggregate._tables``."""
        return [self.speakers, self.pairs, self.entities, self.topics, self.speaker_topics]


def _bounded(cache: dict[str, Any]) -> dict[str, Any]:
    if len(cache) >= _CACHE_MAX:
        cache.clear()
    return cache


def _table() -> Frequent[Any]:
    return Frequent(Aggregate.CAPACITY)


@dataclass
class Aggregate:
    """A conversation summed up. Keys are case-folded; shown with the first spelling seen.

    ``pairs`` counts messages from a speaker to a listener, and to the speaker of the
    message replied to (a forum reply or a threaded chat message talks to its parent).
    Entities count the messages naming them, except TypeAgent's ``email`` message entity.
    """

    messages: int = 0
    speakers: Frequent[str] = field(default_factory=_table)
    pairs: Frequent[tuple[str, str]] = field(default_factory=_table)
    entities: Frequent[str] = field(default_factory=_table)
    entity_types: dict[str, list[str]] = field(default_factory=dict)
    topics: Frequent[str] = field(default_factory=_table)
    speaker_topics: Frequent[tuple[str, str]] = field(default_factory=_table)
    spelling: dict[str, str] = field(default_factory=dict)
    _prune_at: int = field(default=0, repr=False)
    _cache: _Keys = field(init=False, repr=False, compare=False)
    _pending: _Pending = field(default_factory=_Pending, repr=False, compare=False)
    _flush_at: int = field(default=BATCH, repr=False, compare=False)

    CAPACITY: ClassVar[int] = CAPACITY

    def __post_init__(self) -> None:
        self._prune_at = 2 * self.CAPACITY
        self._cache = _Keys(self.spelling)

    def __getstate__(self) -> dict[str, Any]:
        self.flush()  # nothing waits in ``_pending``
        state = dict(self.__dict__)
        del state["_cache"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._cache = _Keys(self.spelling)

    def _tables(self) -> list[Frequent[Any]]:
        return [self.speakers, self.pairs, self.entities, self.topics, self.speaker_topics]

    def flush(self) -> None:
        """Count the keys waiting (``_Pending``); then forget spellings no table holds,
        when they have grown (``_prune``)."""
        for table, keys in zip(self._tables(), self._pending.lists(), strict=True):
            if keys:
                table.update(keys)
                keys.clear()
        self._flush_at = self.messages + BATCH
        if len(self.spelling) > self._prune_at:
            self._prune()

    @property
    def exact(self) -> bool:
        self.flush()
        return all(t.exact for t in self._tables())

    def _prune(self) -> None:
        """Forget spellings and types of keys no table holds any more."""
        live = set(self.entities.counts) | set(self.topics.counts) | set(self.speakers.counts)
        live.update(chain.from_iterable(self.pairs.counts))
        live.update(chain.from_iterable(self.speaker_topics.counts))
        self.spelling = _kept(self.spelling, live)
        self.entity_types = _kept(self.entity_types, self.entities.counts)
        self._cache = _Keys(self.spelling)  # a pruned key must have its spelling set again
        # Pruning again before the names have doubled would make adding quadratic.
        self._prune_at = max(2 * self.CAPACITY, 2 * len(self.spelling))

    def compact(self) -> None:
        """Forget the spellings of keys no table holds (before the aggregate is saved)."""
        self.flush()
        self._prune()

    def _key(self, name: str) -> str:
        """The key of a name (case-folded); the name is its spelling if it had none."""
        return self._cache.names[name]

    def _people(self, mail: bool, conv: Conversation | None) -> _PersonKeys:
        """Speaker and listener values -> their keys: their persons as ``conv`` spells
        them (``mail``: in mail records)."""
        cache = self._cache
        cache.use(conv)
        return cache.mail if mail else cache.chat

    def add(
        self,
        record: dict[str, Any],
        knowledge: Plain,
        conv: Conversation | None = None,
    ) -> None:
        """Count one message: its speaker and listeners, entities, topics (``knowledge``
        as plain data: ``KnowledgeResponse.to_dict()``)."""

        self.messages += 1
        speaker = fields.speaker(record)
        keys = self._people(is_email(record), conv)
        who = keys[speaker] if speaker else None
        if who is not None:
            self._pending.speakers.append(who)
            heard = set(map(keys.__getitem__, fields.listeners(record)))
            for a in knowledge["actions"]:  # a reply talks to the parent's speaker
                obj = a["objectEntityName"]
                if a["verbs"] == ["reply"] and obj not in ("none", speaker):
                    heard.add(self._key(obj))
            heard.discard(who)  # replying to oneself is not talking to someone
            self._pending.pairs += zip(repeat(who), sorted(heard))
        self._add_entities(knowledge["entities"])
        self._add_topics(who, knowledge["topics"])

    def add_analysed(self, record: dict[str, Any], a: Analysis, conv: Conversation) -> None:
        """``add(record, conv.extract_plain(record, a, False), conv)``. A chat message
        whose knowledge is its people's (``analysed.people_only``; a question to a
        listener makes only an ``ask``, which a summary does not count), distinct and
        none named by a role, is counted without building that knowledge: its entities
        are its people, as ``person``, and it has no reply; so is a mail message whose
        text adds nothing, from its addresses' entities (``mailpeople``)."""
        speaker, listeners = fields.people(record)
        if speaker and is_email(record):
            if not a.names_things() and self._add_mail(record, a, conv, speaker, listeners):
                return
        elif speaker and people_only(record, a, listeners, asks=False):
            keys = self._people(False, conv)
            who = keys[speaker]
            heard = list(map(keys.__getitem__, listeners))
            people = [who, *heard]
            if distinct_people(people):
                conv.note_parent(record)
                self.messages += 1
                pending = self._pending
                pending.speakers.append(who)
                pending.pairs += zip(repeat(who), sorted(heard))
                pending.entities += people  # their spellings are set: they are people's
                persons = self._cache.persons
                if not persons.issuperset(people):
                    for key in people:
                        self._type(key, _PERSON)
                    persons.update(people)
                self._add_topics(who, topics_of(record, a, conv))
                return
        self.add(record, conv.extract_plain(record, a, False), conv)

    def _address(self, value: str, conv: Conversation) -> _Address:
        """The entities of an address value in mail."""
        found = self._cache.addresses.get(value)
        if found is None:
            found = _Address(mail_person(value, conv.canonical).entities)
            _bounded(self._cache.addresses)[value] = found
        return found

    def _add_mail(
        self,
        record: dict[str, Any],
        a: Analysis,
        conv: Conversation,
        speaker: str,
        listeners: list[str],
    ) -> bool:
        """``add`` of a mail message whose text names nothing (no mention, address or
        URL; a summary counts no ``ask``) from its addresses' entities; False, and
        nothing counted, when they would merge. Keys are taken in ``add``'s order, so a
        key's first spelling is the same."""
        conv.note_parent(record)  # first, as ``extract_plain`` does: a message may reply to itself
        keys = self._people(True, conv)
        who = keys[speaker]
        heard = set(map(keys.__getitem__, listeners))
        if record.get("replyTo", record.get("reply_to")):
            name = conv.canonical(conv.mailperson(speaker))
            for act in reply_actions(record, name, conv, conv.canonical):
                parent = act["objectEntityName"]
                if parent not in ("none", speaker):  # a reply talks to the parent's speaker
                    heard.add(self._key(parent))
        sender, to, cc, bcc = email_fields(record)
        found = [self._address(v, conv) for v in (sender, *to, *cc, *bcc)]
        named = [key for address in found for key in address.keys]
        if not unmerged([*named, self._cache.message_key()]):
            return False
        self.messages += 1
        pending = self._pending
        pending.speakers.append(who)
        heard.discard(who)  # replying to oneself is not talking to someone
        pending.pairs += zip(repeat(who), sorted(heard))
        pending.entities += named
        spelling = self.spelling
        for address in found:
            if address.entities:  # ``_key(name)`` and the types, once a cached address
                for key, name, kinds in address.entities:
                    if key not in spelling:
                        spelling[key] = name
                    self._type(key, kinds)
                address.entities = ()
        self._add_topics(who, topics_of(record, a, conv))
        return True

    def _add_topics(self, who: str | None, topics: list[str]) -> None:
        """Count a message's topics: the last of its counts (then a batch may be done)."""
        # ``_key`` of each, inline: most topics are new (subjects, long phrases), and a
        # cache of them would be a Python call and a store per topic, for few hits.
        keys = []
        spelling = self.spelling
        for name in topics:
            key = name.casefold()
            if key == name:
                key = name  # one string for the key and its spelling (``_folded``)
            if key not in spelling:
                spelling[key] = name
            keys.append(key)
        pending = self._pending
        pending.topics += keys
        if who is not None:
            pending.speaker_topics += zip(repeat(who), keys)
        if self.messages >= self._flush_at:
            self.flush()

    def _add_entities(self, entities: list[Plain]) -> None:
        for e in entities:
            kinds = e["type"]
            if "message" in kinds:  # TypeAgent's "email" entity on every mail
                continue
            self._add_entity(self._key(e["name"]), kinds)

    def _add_entity(self, key: str, kinds: list[str]) -> None:
        self._pending.entities.append(key)
        self._type(key, kinds)

    def _type(self, key: str, kinds: list[str]) -> None:
        types = self.entity_types.setdefault(key, [])
        if types != kinds:
            types.extend(t for t in kinds if t not in types)

    def merge(self, other: Aggregate) -> None:
        """Add the aggregate of the input that follows this one's (see the module docstring)."""
        self.flush()
        other.flush()
        self.messages += other.messages
        for mine, theirs in zip(self._tables(), other._tables(), strict=True):
            mine.merge(theirs)
        for k, v in other.spelling.items():
            self.spelling.setdefault(k, v)
        for k, types in other.entity_types.items():
            have = self.entity_types.setdefault(k, [])
            have.extend(t for t in types if t not in have)
        self.flush()  # nothing waits: it prunes when the spellings have grown

    def _per_speaker(self, shown: set[str]) -> dict[str, list[tuple[str, int]]]:
        per: dict[str, list[tuple[str, int]]] = {}
        for (s, t), n in self.speaker_topics.items():
            if s in shown:
                per.setdefault(s, []).append((t, n))
        return {s: sorted(ts, key=lambda kv: (-kv[1], kv[0]))[:SPEAKER_TOPICS]
                for s, ts in per.items()}  # fmt: skip

    def to_dict(self, top: int | None = 20) -> dict[str, Any]:
        """Plain data for ``--format json``: ranked lists, most frequent first."""
        self.flush()
        sp = self.spelling
        speakers = _ranked(self.speakers, top)
        per = self._per_speaker({s for s, _ in speakers})
        return {
            "messages": self.messages,
            "speaker_count": len(self.speakers),
            "approximate": not self.exact,
            "speakers": [{"name": sp[n], "messages": c} for n, c in speakers],
            "pairs": [
                {"speaker": sp[a], "listener": sp[b], "messages": c}
                for (a, b), c in _ranked(self.pairs, top)
            ],
            "entities": [
                {"name": sp[n], "type": self.entity_types.get(n, []), "messages": c}
                for n, c in _ranked(self.entities, top)
            ],
            "topics": [{"topic": sp[n], "messages": c} for n, c in _ranked(self.topics, top)],
            "speaker_topics": [
                {
                    "speaker": sp[s],
                    "topics": [{"topic": sp[t], "messages": c} for t, c in per.get(s, [])],
                }
                for s, _ in speakers
            ],
        }


def aggregate(
    items: Iterable[dict[str, Any] | ConversationMessage], *, metadata_only: bool = False
) -> Aggregate:
    """Who talks to whom, top entities and topics, per-speaker topics, for a conversation."""
    agg = Aggregate()
    if metadata_only:
        for record, k in plain_all(items, metadata_only=True):
            agg.add(record, k)
        return agg
    conv = Conversation()
    records = items if isinstance(items, list | tuple) else (as_record(x) for x in items)
    for record, analysis in replay(records, conv, keep_text=False):
        agg.add_analysed(record, analysis, conv)
    return agg
