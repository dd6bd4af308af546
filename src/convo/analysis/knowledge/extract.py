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

import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from convo.analysis.knowledge.email import parseaddr, person_name
from convo.analysis.knowledge.keyphrases import PhraseStats, candidates, rank
from convo.analysis.knowledge.metadata import (
    is_email,
    metadata_knowledge,
    metadata_plain,
    typeagent_knowledge,
)
from convo.analysis.knowledge.plain import Plain, action, merge_entities, response
from convo.analysis.knowledge.text import body, clean_subject, questions, scan
from convo.core import fields
from convo.core.knowledge_schema import KnowledgeResponse
from convo.core.names import words
from convo.core.record import ConversationMessage

__all__ = [
    "Conversation",
    "extract",
    "extract_all",
    "metadata_knowledge",
]

BROADCAST = frozenset({"here", "everyone", "channel", "all"})  # @here: nobody in particular
SPOOL_MEMORY = 8 << 20  # bytes kept in memory before extract_all spools to disk
_CACHE_MAX = 1 << 16  # entries of a cache (bounded memory)
_META, _MENTION, _TEXT = 0, 1, 2  # spelling priority of a name
_LOWER_TEXT = 2 * _TEXT + 1  # the rank of a lower-case spelling from the text


def as_record(item: dict[str, Any] | ConversationMessage) -> dict[str, Any]:
    """A record dict from a parsed JSONL dict or a ``ConversationMessage``."""
    if isinstance(item, ConversationMessage):
        return item.serialize()
    if isinstance(item, dict):
        return item
    raise TypeError(f"expected a record dict or ConversationMessage, not {type(item).__name__}")


def person(record: dict[str, Any], value: str, conv: Conversation | None = None) -> str:
    if not is_email(record):
        return value
    if conv is not None:
        return conv.mailperson(value)
    return person_name(value)


def _text_chunks(record: dict[str, Any]) -> list[str]:
    chunks = record.get("textChunks", record.get("text_chunks"))
    return [c for c in chunks if isinstance(c, str)] if isinstance(chunks, list) else []


def message_body(record: dict[str, Any]) -> str:
    """The part of a message read for content knowledge (no quotes, signature, tool output)."""
    if record.get("role") == "tool":
        return ""
    return body(_text_chunks(record))


@dataclass(slots=True)
class Analysis:
    """What content extraction reads from a message body, computed once per message."""

    urls: list[str]
    emails: list[str]
    mentions: list[str]
    hashtags: list[str]
    questions: list[str]
    candidates: list[tuple[str, ...]]

    def dump(self) -> list[Any]:
        """Plain data for a spool line (orjson writes the candidate tuples as arrays)."""
        return [self.urls, self.emails, self.mentions, self.hashtags, self.questions,
                self.candidates]  # fmt: skip

    @classmethod
    def load(cls, data: list[Any]) -> Analysis:
        urls, emails, mentions, hashtags, asked, found = data
        return cls(urls, emails, mentions, hashtags, asked, list(map(tuple, found)))


def _analyse(record: dict[str, Any]) -> Analysis:
    text = message_body(record)
    if not text:
        return Analysis([], [], [], [], [], [])
    marked = scan(text)
    asked = questions(text) if fields.listeners(record) else []
    mentions = (
        [m for m in marked.mentions if m.casefold() not in BROADCAST] if marked.mentions else []
    )
    return Analysis(
        marked.urls, marked.emails, mentions, marked.hashtags, asked,
        candidates(marked.plain),
    )  # fmt: skip


def _content_entities(a: Analysis) -> list[Plain]:
    """Mentions (person), addresses (email) and URLs (url) of the text, in that order."""
    out = [{"name": m, "type": ["person"], "facets": None} for m in a.mentions]
    out += [{"name": x, "type": ["email"], "facets": None} for x in a.emails]
    out += [{"name": u, "type": ["url"], "facets": None} for u in a.urls]
    return out


def _meta_names(record: dict[str, Any], conv: Conversation | None = None) -> list[str]:
    """The speaker and listeners, as ``person`` names them."""
    speaker = fields.speaker(record)
    names = [speaker, *fields.listeners(record)] if speaker else fields.listeners(record)
    if not is_email(record):
        return names
    name = conv.mailperson if conv is not None else person_name
    return [name(x) for x in names]


def name_words(name: str) -> list[str]:
    """The words of a person's name that could pass for a topic word (two letters or more)."""
    return [w for w in words(name) if len(w) > 1]


def _own_name_words(record: dict[str, Any], a: Analysis) -> set[str]:
    """``name_words`` of a message read alone: its speaker, listeners and mentions."""
    found: set[str] = set()
    for name in (*_meta_names(record), *a.mentions):
        found.update(name_words(name))
    return found


def _named_in(name: str, question: str) -> bool:
    tokens = words(name)
    return bool(tokens) and len(tokens[0]) > 1 and tokens[0] in words(question)


def _ask_actions(
    record: dict[str, Any], speaker: str, asked_questions: list[str], conv: Conversation | None
) -> list[Plain]:
    listeners = [person(record, x, conv) for x in fields.listeners(record)]
    if not listeners:
        return []
    asked: dict[str, list[str]] = {}
    for q in asked_questions:
        targets = [x for x in listeners if _named_in(x, q)] or listeners
        for t in targets:
            asked.setdefault(t, []).append(q)
    return [
        action(["ask"], speaker, target, params=[{"name": "question", "value": q} for q in qs])
        for target, qs in asked.items()
    ]


def _reply_actions(record: dict[str, Any], who: str, conv: Conversation | None) -> list[Plain]:
    """``who`` replied to the parent's speaker (``none`` when the parent is not here)."""
    reply_to = record.get("replyTo", record.get("reply_to"))
    if not isinstance(reply_to, str) or not reply_to:
        return []
    parent = (conv.parent_speaker(reply_to) if conv is not None else None) or "none"
    return [action(["reply"], who, parent, params=[{"name": "replyTo", "value": reply_to}])]


def _dedupe(items: Iterable[str]) -> list[str]:
    seen: dict[str, str] = {}
    for item in items:
        item = " ".join(item.split())
        if item:
            seen.setdefault(item.casefold(), item)
    return list(seen.values())


class Conversation:
    """Conversation-wide state for extraction: phrase statistics, name spellings, parents.

    Memory grows with the vocabulary, the distinct names and the number of distinct
    ``replyTo`` targets, never with the text itself.
    """

    def __init__(self) -> None:
        self.stats = PhraseStats()
        self._names: dict[str, tuple[int, str]] = {}
        self._wanted: set[str] = set()
        self._parents: dict[str, tuple[dict[str, Any], str]] = {}
        self._aliases: dict[str, str] = {}
        self.name_words: set[str] = set()  # words of people's names: not topics
        # Caches (not state): the canonical form of a name as written, and the names
        # already learnt from metadata (the best rank: learning one again changes nothing).
        self._canon: dict[str, str] = {}
        self._meta_seen: set[str] = set()

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__, _canon={}, _meta_seen=set())  # a worker fills its own

    def mailperson(self, value: str) -> str:
        """A mail person's name: the display name, else one seen with this address, else it."""
        display, address = parseaddr(value)
        if display:
            return display
        return self._aliases.get(address.casefold(), address or value)

    def parent_speaker(self, reply_to: str) -> str | None:
        found = self._parents.get(reply_to)
        return person(found[0], found[1], self) if found else None

    def _learn_aliases(self, record: dict[str, Any]) -> None:
        speaker = fields.speaker(record)
        for value in ([speaker] if speaker else []) + fields.listeners(record):
            display, address = parseaddr(value)
            if display and address:
                self._aliases.setdefault(address.casefold(), display)

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
        self._wanted |= other._wanted
        self.name_words |= other.name_words
        for rid, parent in other._parents.items():
            self._parents.setdefault(rid, parent)
        for address, display in other._aliases.items():
            self._aliases.setdefault(address, display)

    def unresolved(self) -> set[str]:
        """Ids replied to whose message was not seen yet (after a merge of ranges)."""
        return self._wanted - self._parents.keys()

    def note_parents(self, found: dict[str, tuple[dict[str, Any], str]]) -> None:
        for rid, parent in found.items():
            self._parents.setdefault(rid, parent)

    def _note_parent(self, record: dict[str, Any]) -> None:
        rid = record.get("id")
        speaker = fields.speaker(record)
        if isinstance(rid, str) and speaker and rid in self._wanted:
            self._parents.setdefault(rid, ({"format": record.get("format")}, speaker))

    def observe(self, item: dict[str, Any] | ConversationMessage) -> None:
        """First pass: learn this message's words, names and reply target."""
        self.observe_record(as_record(item))

    def observe_record(self, record: dict[str, Any]) -> Analysis:
        """``observe`` for a record dict; returns its analysis (for the second pass)."""
        self._note_parent(record)
        reply_to = record.get("replyTo", record.get("reply_to"))
        if isinstance(reply_to, str) and reply_to:
            self._wanted.add(reply_to)
        if is_email(record):
            self._learn_aliases(record)
        analysis = _analyse(record)
        self.stats.observe_candidates(analysis.candidates)
        for name in _meta_names(record, self):
            self._name(name, _META)
        for names, priority in (
            (analysis.mentions, _MENTION), (analysis.emails, _TEXT), (analysis.urls, _TEXT),
        ):  # fmt: skip
            for name in names:  # _content_entities, in its order
                self._name(name, priority)
        return analysis

    def extract(
        self, item: dict[str, Any] | ConversationMessage, *, metadata_only: bool = False
    ) -> KnowledgeResponse:
        """Second pass: one message's knowledge."""
        return self.extract_analysed(as_record(item), None, metadata_only)

    def extract_analysed(
        self, record: dict[str, Any], analysis: Analysis | None, metadata_only: bool = False
    ) -> KnowledgeResponse:
        """Second pass for a record ``replay`` gave with its analysis."""
        self._note_parent(record)
        return _extract(record, self, metadata_only, analysis)

    def extract_plain(self, record: dict[str, Any], analysis: Analysis | None) -> Plain:
        """``extract_analysed(...).to_dict()``, built as plain data (``plain``)."""
        self._note_parent(record)
        return _extract_plain(record, self, analysis)


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
    record: dict[str, Any], conv: Conversation | None, analysis: Analysis | None
) -> Plain:
    """One message's content knowledge (see the module docstring), as plain data."""
    meta = metadata_plain(record, is_email(record))
    canon = conv.canonical if conv is not None else _same
    a = analysis if analysis is not None else _analyse(record)
    entities = meta["entities"]
    if a.mentions or a.emails or a.urls:
        entities += _content_entities(a)
    subject = record.get("subject")
    tags = record.get("tags")
    topics = [clean_subject(subject)] if isinstance(subject, str) else []
    topics += [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
    topics += a.hashtags
    stats = conv.stats if conv is not None else None
    names = conv.name_words if conv is not None else _own_name_words(record, a)
    topics += rank(a.candidates, stats, exclude=topics, names=names)
    actions = meta["actions"]
    speaker = fields.speaker(record)
    if speaker:
        who = person(record, speaker, conv)
        if a.questions:
            actions += _ask_actions(record, who, a.questions, conv)
        actions += _reply_actions(record, who, conv)
    for act in actions:  # metadata knowledge has no inverse actions
        act["subjectEntityName"] = canon(act["subjectEntityName"])
        act["objectEntityName"] = canon(act["objectEntityName"])
        act["indirectObjectEntityName"] = canon(act["indirectObjectEntityName"])
    return {
        "entities": merge_entities(entities, canon),
        "actions": actions,
        "inverse_actions": [],
        "topics": _dedupe(topics),
    }


def extract(
    item: dict[str, Any] | ConversationMessage, *, metadata_only: bool = False
) -> KnowledgeResponse:
    """One message's knowledge, read alone (key phrases from its own statistics)."""
    return _extract(as_record(item), None, metadata_only)


def without_text(record: dict[str, Any]) -> dict[str, Any]:
    """The record as the second pass needs it: its text is in the analysis already."""
    if "textChunks" not in record and "text_chunks" not in record:
        return record
    return {k: v for k, v in record.items() if k not in ("textChunks", "text_chunks")}


def replay(
    records: Iterable[dict[str, Any]], conv: Conversation, *, keep_text: bool = True
) -> Iterator[tuple[dict[str, Any], Analysis]]:
    """Observe every record, then yield each with its analysis again (via a spool file
    unless the records are already a list), so nothing is computed twice. With
    ``keep_text=False`` spooled records come back without their text chunks (the
    analysis holds what was read), which halves the spool."""
    if isinstance(records, list | tuple):
        analyses = [conv.observe_record(as_record(r)) for r in records]
        yield from zip((as_record(r) for r in records), analyses, strict=True)
        return
    import orjson

    with tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY) as spool:
        for r in records:
            analysis = conv.observe_record(r)
            spool.write(orjson.dumps([r if keep_text else without_text(r), analysis.dump()]))
            spool.write(b"\n")
        spool.seek(0)
        for line in spool:
            r, data = orjson.loads(line)
            yield r, Analysis.load(data)


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
