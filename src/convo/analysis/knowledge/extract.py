"""Knowledge of messages in TypeAgent's ``KnowledgeResponse`` shape, local and deterministic.

``extract(message)`` gives one message's knowledge read alone; ``Conversation`` extracts
with statistics and names of the whole conversation (two passes: ``observe`` every
message, then ``extract`` each); ``extract_all(records)`` does both passes over any
iterable: the first pass analyses each message once and writes it with its analysis to
a spool file (in memory up to ``SPOOL_MEMORY`` bytes, then on disk), the second reads
the spool back, so a pipe is read once and the text is never held in memory.
``summary.aggregate(records)`` sums a conversation up the same way: who talks to whom, top
entities and topics, per-speaker topics. Per-message results with ``extract`` alone
differ from ``extract_all`` only in key phrases (single-document statistics), entity
spellings and unresolved reply targets.

``metadata_only=True`` returns exactly what TypeAgent 0.5.0's
``ConversationMessage.get_knowledge()`` gives for the record (``typeagent_knowledge``), so
it equals what TypeAgent computes after loading convo's JSONL. The full knowledge starts
from TypeAgent's metadata knowledge too, and for mail records (format ``mbox``, ``eml``,
``maildir`` or any format of the email family) from what TypeAgent's
``EmailMessage.get_knowledge()`` gives instead (sent/received actions, the subject, address
entities; see ``knowledge_email``).

Content knowledge added on top (decisions where the spec is silent):
- Entities: ``@mentions`` (person; ``@here``, ``@everyone``, ``@channel`` and ``@all``
  name nobody and are left out), addresses in the text (``email``), URLs (``url``).
  A speaker or listener named by a chat role (``user``, ``assistant``, ``system``,
  ``tool``) is a ``role``, not a ``person`` (``metadata_only`` stays TypeAgent's).
  Names are merged case-insensitively: within a message one entity per name (types
  and facets united); across a conversation each name takes one spelling, preferring
  metadata names (speakers, listeners) over mentions over other text; an all-lower-case
  spelling from the text yields to a capitalised one of the same kind; then the first
  seen. Unique lower-case URLs are not remembered, which keeps memory small.
- Memory: the conversation state holds the vocabulary, names and the ids that are
  replied to; ``summary.Aggregate`` is bounded (Misra-Gries tables; see its docstring
  for what is exact and what is approximate). ``Conversation.merge`` adds the state of
  the input that follows, exactly, so ``ranges`` runs both passes on several cores.
- Topics: the subject without ``Re:``/``Fwd:`` prefixes (it replaces TypeAgent's raw
  subject topic, so ``Re: X`` and ``X`` count as one), the tags, hashtags, then key
  phrases (``knowledge_keyphrases``: RAKE over the conversation). Deduplicated
  case-insensitively, first spelling kept.
- ``ask`` actions: for each listener asked a question (a ``?`` sentence in the body),
  speaker → listener, the questions as ``question`` params. A question that names
  listeners (a word of their name) goes to those only, else to every listener.
- ``reply`` actions: a message with ``replyTo`` → the parent's speaker when the parent is
  in the same input (else ``none``), with the parent id as the ``replyTo`` param.
- ``ask``/``reply`` need a speaker, as all of TypeAgent's metadata actions do.
- For mail, people are named as TypeAgent names them: the display name, else the address.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

from convo.analysis.knowledge.actions import ask_actions, content_entities, reply_actions
from convo.analysis.knowledge.batched import analyse_all
from convo.analysis.knowledge.body_analysis import Analysis, analyse
from convo.analysis.knowledge.dicts import Plain, action, merge_entities, response
from convo.analysis.knowledge.email import mail_parts, person_name
from convo.analysis.knowledge.keyphrases import PhraseStats, rank
from convo.analysis.knowledge.metadata import (
    is_email,
    metadata_knowledge,
    metadata_plain,
    typeagent_knowledge,
)
from convo.analysis.knowledge.spool import two_passes
from convo.analysis.knowledge.tagtopics import dedupe as _dedupe
from convo.analysis.knowledge.tagtopics import first_topics, ranked_topics, topic_tags
from convo.analysis.knowledge.text import clean_subject
from convo.core import fields
from convo.core.knowledge_schema import KnowledgeResponse
from convo.core.names import words

if TYPE_CHECKING:  # the model (pydantic: 17 MB) is imported only when one is given
    from convo.core.record import ConversationMessage

__all__ = [
    "Conversation",
    "extract",
    "extract_all",
    "metadata_knowledge",
]

SPOOL_MEMORY = 8 << 20  # bytes kept in memory before extract_all spools to disk
_CACHE_MAX = 1 << 16  # entries of a cache (bounded memory)
_DISPLAYS_MAX = 1 << 14  # mail people named by their display (as email.parseaddr's cache)
_META, _MENTION, _TEXT = 0, 1, 2  # spelling priority of a name
_LOWER_TEXT = 2 * _TEXT + 1  # the rank of a lower-case spelling from the text


def as_record(item: dict[str, Any] | ConversationMessage) -> dict[str, Any]:
    """A record dict from a parsed JSONL dict or a ``ConversationMessage``."""
    if isinstance(item, dict):
        return item
    from convo.core.record import ConversationMessage

    if isinstance(item, ConversationMessage):
        return item.serialize()
    raise TypeError(f"expected a record dict or ConversationMessage, not {type(item).__name__}")


def person(record: dict[str, Any], value: str, conv: Conversation | None = None) -> str:
    """How the knowledge names the speaker or listener ``value`` of ``record``."""
    return person_of(is_email(record), value, conv)


def person_of(mail: bool, value: str, conv: Conversation | None) -> str:
    """``person`` of a value in a mail record (``mail``) or in another."""
    if not mail:
        return value
    if conv is not None:
        return conv.mailperson(value)
    return person_name(value)


def _meta_names(
    speaker: str | None, listeners: list[str], mail: bool, conv: Conversation | None = None
) -> list[str]:
    """The speaker and listeners, as ``person`` names them."""
    names = [speaker, *listeners] if speaker else listeners
    if not mail:
        return names
    name = conv.mailperson if conv is not None else person_name
    return [name(x) for x in names]


def name_words(name: str) -> list[str]:
    """The words of a person's name that could pass for a topic word (two letters or more)."""
    return [w for w in words(name) if len(w) > 1]


def _own_name_words(record: dict[str, Any], a: Analysis) -> set[str]:
    """``name_words`` of a message read alone: its speaker, listeners and mentions."""
    found: set[str] = set()
    names = _meta_names(fields.speaker(record), fields.listeners(record), is_email(record))
    for name in (*names, *a.mentions):
        found.update(name_words(name))
    return found


_LISTENERS, _CANDIDATES = itemgetter(1), attrgetter("candidates")  # C loops of a batch


class Conversation:
    """Conversation-wide state for extraction: phrase statistics, name spellings, parents.

    Memory grows with the vocabulary, the distinct names and the number of distinct
    ``replyTo`` targets, never with the text itself.
    """

    def __init__(self) -> None:
        self.stats = PhraseStats()
        self._names: dict[str, tuple[int, str]] = {}
        self.wanted: set[str] = set()  # ids replied to (their parents are looked for)
        self._parents: dict[str, tuple[dict[str, Any], str]] = {}
        self._aliases: dict[str, str] = {}
        self.name_words: set[str] = set()  # words of people's names: not topics
        # Caches (not state): the canonical form of a name as written, and the names
        # already learnt from metadata (the best rank: learning one again changes nothing).
        self._canon: dict[str, str] = {}
        self._meta_seen: set[str] = set()
        # And a mail speaker or listener whose alias is learnt: its name (the display).
        self._displays: dict[str, str] = {}

    def __getstate__(self) -> dict[str, Any]:
        # A worker fills its own caches.
        return dict(self.__dict__, _canon={}, _meta_seen=set(), _displays={})

    def mailperson(self, value: str) -> str:
        """A mail person's name: the display name, else one seen with this address, else it."""
        display, address = mail_parts(value)
        if display:
            return display
        return self._aliases.get(address.casefold(), address or value)

    def parent_speaker(self, reply_to: str) -> str | None:
        found = self._parents.get(reply_to)
        return person(found[0], found[1], self) if found else None

    def _learn_aliases(self, speaker: str | None, listeners: list[str]) -> None:
        displays = self._displays
        for value in ([speaker] if speaker else []) + listeners:
            display, address = mail_parts(value)
            if display and address:
                self._aliases.setdefault(address.casefold(), display)
                # Learnt: learning it again changes nothing, and ``mailperson`` names
                # it by its display whatever the aliases.
                if len(displays) >= _DISPLAYS_MAX:
                    displays.clear()
                displays[value] = display

    def _mail_names(self, speaker: str | None, listeners: list[str]) -> list[str]:
        """``_learn_aliases``, then the people's names (``_meta_names`` of mail)."""
        displays = self._displays
        names = [displays.get(x) for x in ([speaker, *listeners] if speaker else listeners)]
        if None not in names:  # all learnt already
            return names  # type: ignore[return-value]
        self._learn_aliases(speaker, listeners)
        return _meta_names(speaker, listeners, True, self)

    def canonical(self, name: str) -> str:
        found = self._canon.get(name)
        if found is None:
            have = self._names.get(name.casefold()) if name != "none" else None
            found = have[1] if have else name
            if len(self._canon) >= _CACHE_MAX:
                self._canon.clear()
            self._canon[name] = found
        return found

    def _name(self, name: str, priority: int) -> None:
        if priority == _META:
            if name in self._meta_seen:
                return
            if len(self._meta_seen) >= _CACHE_MAX:
                self._meta_seen.clear()
            self._meta_seen.add(name)
        key = name.casefold()
        # Rank: the priority, and a lower-case spelling (not from metadata) yields to a
        # capitalised one of the same priority. The best rank wins, the first among
        # equals: the same in any order of merging, so ranges merge exactly.
        rank = 2 * priority + (priority != _META and key == name)
        if rank == _LOWER_TEXT:
            return  # it can never win, and is its own canonical form: keep memory small
        have = self._names.get(key)
        if have is None or rank < have[0]:
            self._names[key] = (rank, name)
            if self._canon:
                self._canon.clear()
            if priority != _TEXT:
                self.name_words.update(name_words(name))

    def merge(self, other: Conversation) -> None:
        """Add what ``observe`` learnt from the input that follows this one's."""
        self.stats.merge(other.stats)
        self._canon.clear()
        for key, (their_rank, name) in other._names.items():
            have = self._names.get(key)
            if have is None or their_rank < have[0]:
                self._names[key] = (their_rank, name)
        self.wanted |= other.wanted
        self.name_words |= other.name_words
        for rid, parent in other._parents.items():
            self._parents.setdefault(rid, parent)
        for address, display in other._aliases.items():
            self._aliases.setdefault(address, display)

    def unresolved(self) -> set[str]:
        """Ids replied to whose message was not seen yet (after a merge of ranges)."""
        return self.wanted - self._parents.keys()

    def note_parents(self, found: dict[str, tuple[dict[str, Any], str]]) -> None:
        for rid, parent in found.items():
            self._parents.setdefault(rid, parent)

    def note_speaker(self, rid: Any, fmt: Any, speaker: str) -> None:
        """``note_parent`` of a record of id ``rid`` and format ``fmt`` from ``speaker``."""
        if isinstance(rid, str) and rid in self.wanted:
            self._parents.setdefault(rid, ({"format": fmt}, speaker))

    def note_parent(self, record: dict[str, Any], speaker: str | None = None) -> None:
        rid = record.get("id")
        if not (isinstance(rid, str) and rid in self.wanted):
            return
        speaker = fields.speaker(record) if speaker is None else speaker
        if speaker:
            self._parents.setdefault(rid, ({"format": record.get("format")}, speaker))

    def observe(self, item: dict[str, Any] | ConversationMessage) -> None:
        """First pass: learn this message's words, names and reply target."""
        self.observe_record(as_record(item))

    def observe_record(self, record: dict[str, Any]) -> Analysis:
        """``observe`` for a record dict; returns its analysis (for the second pass)."""
        return self.observe_records([record])[0]

    def observe_records(
        self,
        records: list[dict[str, Any]],
        people: list[tuple[str | None, list[str]]] | None = None,
    ) -> list[Analysis]:
        """``observe_record`` of each in turn (``batched``, ``PhraseStats.observe_many``);
        ``people``: ``fields.people`` of each, when the caller has them."""
        if people is None:
            people = list(map(fields.people, records))
        analyses = analyse_all(records, list(map(_LISTENERS, people)))
        self._learn_all(records, people, analyses)
        self.stats.observe_many(list(map(_CANDIDATES, analyses)))
        return analyses

    def _learn_all(
        self,
        records: list[dict[str, Any]],
        people: list[tuple[str | None, list[str]]],
        analyses: list[Analysis],
    ) -> None:
        """What ``observe_records`` learns of each record but phrase statistics: its
        names and reply target (one loop, no call a record but the rare ones)."""
        wanted, seen = self.wanted, self._meta_seen
        for record, (speaker, listeners), a in zip(records, people, analyses, strict=True):
            if wanted:  # else no parent to note (most inputs reply to nothing)
                self.note_parent(record, speaker)
            reply_to = record.get("replyTo")
            if reply_to is None:
                reply_to = record.get("reply_to")
            if isinstance(reply_to, str) and reply_to:
                wanted.add(reply_to)
            if is_email(record):
                names = self._mail_names(speaker, listeners)
            else:
                names = [speaker, *listeners] if speaker else listeners
            if not seen.issuperset(names):  # learnt already: learning again changes nothing
                for name in names:
                    if name not in seen:
                        self._name(name, _META)
            if a.mentions or a.emails or a.urls or a.entities:  # ``a.names_things()``
                self._learn_content(a)

    def _learn_content(self, a: Analysis) -> None:
        """The names a message's text gives (``actions.content_entities``, in its order)."""
        for names, priority in ((a.mentions, _MENTION), (a.emails, _TEXT), (a.urls, _TEXT)):
            for name in names:
                self._name(name, priority)
        for name, _ in a.entities:
            self._name(name, _TEXT)

    def extract(
        self, item: dict[str, Any] | ConversationMessage, *, metadata_only: bool = False
    ) -> KnowledgeResponse:
        """Second pass: one message's knowledge."""
        return self.extract_analysed(as_record(item), None, metadata_only)

    def extract_analysed(
        self, record: dict[str, Any], analysis: Analysis | None, metadata_only: bool = False
    ) -> KnowledgeResponse:
        """Second pass for a record ``replay`` gave with its analysis."""
        self.note_parent(record)
        return _extract(record, self, metadata_only, analysis)

    def extract_plain(
        self, record: dict[str, Any], analysis: Analysis | None, actions: bool = True
    ) -> Plain:
        """``extract_analysed(...).to_dict()``, built as plain data (``plain``); without
        ``actions`` only the reply actions are made (all that ``summary`` counts)."""
        self.note_parent(record)
        return _extract_plain(record, self, analysis, actions)


def _same(name: str) -> str:
    return name


def _extract(
    record: dict[str, Any],
    conv: Conversation | None,
    metadata_only: bool,
    analysis: Analysis | None = None,
) -> KnowledgeResponse:
    if metadata_only:
        return typeagent_knowledge(record)
    return response(_extract_plain(record, conv, analysis))


def _extract_plain(
    record: dict[str, Any],
    conv: Conversation | None,
    analysis: Analysis | None,
    actions: bool = True,
) -> Plain:
    """One message's content knowledge (see the module docstring), as plain data; every
    name in an action as ``canon`` spells it (metadata knowledge has no inverse actions)."""
    mail = is_email(record)
    canon = conv.canonical if conv is not None else _same
    meta = metadata_plain(record, mail, canon, actions)
    a = analysis if analysis is not None else analyse(record)
    entities = meta["entities"]
    if a.names_things():
        entities += content_entities(a)
    found = meta["actions"]
    speaker = fields.speaker(record)
    if speaker:
        who = canon(person_of(mail, speaker, conv))
        if a.questions and actions:
            heard = [person_of(mail, x, conv) for x in fields.listeners(record)]
            found += ask_actions(heard, who, a.questions, canon)
        found += reply_actions(record, who, conv, canon)
        if a.said and actions:
            found += [
                action([verb], canon(person_of(mail, subject, conv)) if subject else who,
                       canon(obj), tense=tense)
                for subject, verb, tense, obj in a.said
            ]  # fmt: skip
    return {
        "entities": merge_entities(entities, canon),
        "actions": found,
        "inverse_actions": [],
        "topics": topics_of(record, a, conv),
    }


def topics_of(record: dict[str, Any], a: Analysis, conv: Conversation | None) -> list[str]:
    """A message's topics: its subject, tags, hashtags, then key phrases, deduplicated."""
    subject = record.get("subject")
    tags = record.get("tags")
    if conv is None or not conv.stats.docs:
        topics = [clean_subject(subject)] if isinstance(subject, str) else []
        if tags:
            topics += topic_tags(tags)
        topics += a.hashtags
        names = conv.name_words if conv is not None else _own_name_words(record, a)
        stats = conv.stats if conv is not None else None
        topics += rank(a.candidates, stats, exclude=topics, names=names)
        return _dedupe(topics)
    seen = first_topics(subject, tags, a.hashtags)
    return ranked_topics(seen, a.candidates, conv.stats, conv.name_words)


def extract(
    item: dict[str, Any] | ConversationMessage, *, metadata_only: bool = False
) -> KnowledgeResponse:
    """One message's knowledge, read alone (key phrases from its own statistics)."""
    return _extract(as_record(item), None, metadata_only)


def replay(
    records: Iterable[dict[str, Any]], conv: Conversation, *, keep_text: bool = True
) -> Iterator[tuple[dict[str, Any], Analysis]]:
    """Observe every record, then yield each with its analysis again (via a spool file
    unless the records are already a list), so nothing is computed twice. With
    ``keep_text=False`` spooled records come back without their text chunks (the
    analysis holds what was read), which halves the spool."""
    for batch, analyses in replay_batches(records, conv, keep_text=keep_text):
        yield from zip(batch, analyses, strict=True)


def replay_batches(
    records: Iterable[dict[str, Any]],
    conv: Conversation,
    *,
    keep_text: bool = True,
    own: bool = False,
) -> Iterator[tuple[list[dict[str, Any]], list[Analysis]]]:
    """``replay`` a batch at a time (the spool's): a list of records, their analyses
    (``own``: the records were parsed for this call, ``spool.two_passes`` may change them)."""
    if not isinstance(records, list | tuple):
        yield from two_passes(
            records, conv.observe_records, keep_text=keep_text, memory=SPOOL_MEMORY, own=own
        )
    elif batch := list(map(as_record, records)):
        yield batch, conv.observe_records(batch)


def extract_all(
    items: Iterable[dict[str, Any] | ConversationMessage],
    *,
    metadata_only: bool = False,
    keep_text: bool = True,
) -> Iterator[tuple[dict[str, Any], KnowledgeResponse]]:
    """Every message's knowledge with the whole conversation's statistics, in input order.

    ``keep_text=False``: the records yielded may lack their text chunks (cheaper)."""
    if metadata_only:
        for x in items:
            record = as_record(x)
            yield record, typeagent_knowledge(record)
        return
    for record, plain in plain_all(items, keep_text=keep_text):
        yield record, response(plain)


def plain_all(
    items: Iterable[dict[str, Any] | ConversationMessage],
    *,
    metadata_only: bool = False,
    keep_text: bool = True,
) -> Iterator[tuple[dict[str, Any], Plain]]:
    """``extract_all`` with each knowledge as plain data (``KnowledgeResponse.to_dict()``)."""
    if metadata_only:
        for x in items:
            record = as_record(x)
            yield record, typeagent_knowledge(record).to_dict()
        return
    conv = Conversation()
    records = items if isinstance(items, list | tuple) else (as_record(x) for x in items)
    for record, analysis in replay(records, conv, keep_text=keep_text):
        yield record, conv.extract_plain(record, analysis)
