"""The ``convo knowledge -f jsonl`` line of a message, from JSON pieces of its people.

``knowledge_line(record, conv.extract_plain(record, analysis))`` builds a dict per
entity and per action and then serialises them all; a conversation names a few
thousand people on every message, so for the common message ``Lines`` joins cached
JSON pieces instead: each person's name as JSON, and the fixed parts of an entity and
a ``say`` action around them. The common message is a chat message (not mail) with a
speaker, whose speaker and listeners are distinct people once named canonically and
case-folded, none named by a chat role, with no mentions, addresses or URLs, no
reply target and no question to a listener: its entities are its people (``person``)
and its actions its ``say`` actions. The common mail message (a speaker, no mentions,
addresses or URLs, no question to a listener; a reply is fine) joins the JSON of each
address's entities and names (``mailpeople``) and TypeAgent's ``sent``/``received``
actions between them, unless its entities would merge. Any other message takes
``knowledge_line``. The bytes are the same either way
(tests/analysis/test_knowledge_lines.py).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

import orjson

from convo.analysis.knowledge.actions import reply_actions
from convo.analysis.knowledge.body_analysis import Analysis
from convo.analysis.knowledge.dicts import Plain
from convo.analysis.knowledge.email import email_fields
from convo.analysis.knowledge.extract import Conversation, topics_of
from convo.analysis.knowledge.mailpeople import MESSAGE, content_free, mail_person, unmerged
from convo.analysis.knowledge.metadata import is_email
from convo.analysis.knowledge.tagtopics import first_topics, ranked_topics, tag_topics
from convo.core import fields

_CHAT_ITEM = 6  # the length of ``packed.pack``'s tuple of a chat message (mail's: 9)
_NAMES_MAX = 1 << 14  # people whose JSON name is kept (bounded memory)

_ENTITY = b'{"name":%b,"type":["person"],"facets":null}'
_SAY_HEAD = b'{"verbs":["say"],"verbTense":"past","subjectEntityName":'
_SAY_OBJECT = b',"objectEntityName":'
_SAY_TAIL = b',"indirectObjectEntityName":"none","params":null,"subjectEntityFacet":null}'
_SPEAK = (
    b'{"verbs":["say","speak"],"verbTense":"past","subjectEntityName":%b,'
    b'"objectEntityName":"none","indirectObjectEntityName":"none","params":null,'
    b'"subjectEntityFacet":null}'
)
_SENT = (
    b'{"verbs":["sent"],"verbTense":"past","subjectEntityName":%b,"objectEntityName":%b,'
    b'"indirectObjectEntityName":%b,"params":null,"subjectEntityFacet":null}'
)
_RECEIVED = (
    b'{"verbs":["received"],"verbTense":"past","subjectEntityName":%b,"objectEntityName":%b,'
    b'"indirectObjectEntityName":%b,"params":null,"subjectEntityFacet":null}'
)
_LINE = (
    b'{"id":%b,"source_id":%b,"knowledge":{"entities":[%b],"actions":[%b],'
    b'"inverse_actions":[],"topics":%b}}\n'
)
LINE_ID, LINE_SOURCE, LINE_ENTITIES, _ACTIONS, _TOPICS, _END = _LINE.split(b"%b")


def knowledge_line(record: dict[str, Any], k: Plain) -> bytes:
    """One line of ``convo knowledge -f jsonl``: the record's ids and its knowledge (as
    plain data, ``KnowledgeResponse.to_dict()``)."""
    line = {
        "id": fields.record_id(record),
        "source_id": fields.string(record, "source_id"),
        "knowledge": k,
    }
    return orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE)


class _People(dict[str, tuple[bytes, str, bytes, bytes]]):
    """A speaker or listener -> its canonical name's JSON, its key (case-folded), its
    ``person`` entity's JSON and the end of a ``say`` action to it (from the object's
    name on): a hit is a C subscript, no Python call. At most ``_NAMES_MAX`` kept."""

    __slots__ = ("canonical",)

    def __init__(self, canonical: Callable[[str], str]):
        super().__init__()
        self.canonical = canonical

    def __missing__(self, name: str) -> tuple[bytes, str, bytes, bytes]:
        canonical = self.canonical(name)
        value = orjson.dumps(canonical)
        found = (value, canonical.casefold(), _ENTITY % value, value + _SAY_TAIL)
        if len(self) >= _NAMES_MAX:
            self.clear()
        self[name] = found
        return found


_KEY, _PERSON, _TO = itemgetter(1), itemgetter(2), itemgetter(3)
_ROLES = frozenset(fields.ROLES)  # ``body_analysis.distinct_people``'s


class Lines:
    """The lines of the messages of ``conv``'s second pass (see the module docstring).

    A chat message's line is joined from each person's cached pieces (``_People``) by C
    joins, not formatted a piece at a time, and ``is_email`` is asked once: cachegrind
    over the chat messages of 5k records of benchmarks/bench_query.py's store (topics
    aside, five rounds), 43.0k -> 37.8k instructions a line."""

    def __init__(self, conv: Conversation):
        self.conv = conv
        self._people = _People(conv.canonical)
        self._mail: dict[str, tuple[list[bytes], tuple[str, ...], list[bytes]]] = {}
        # address value -> its entities' JSON, their keys and its action names' JSON
        self._message: tuple[bytes, bytes, str] | None = None  # the message entity's
        # JSON, its name's and its key

    def _address(self, value: str) -> tuple[list[bytes], tuple[str, ...], list[bytes]]:
        found = self._mail.get(value)
        if found is None:
            p = mail_person(value, self.conv.canonical)
            found = (list(map(orjson.dumps, p.entities)), p.keys, list(map(orjson.dumps, p.names)))
            if len(self._mail) >= _NAMES_MAX:
                self._mail.clear()
            self._mail[value] = found
        return found

    def line(self, record: dict[str, Any], a: Analysis) -> bytes:
        """``knowledge_line(record, conv.extract_plain(record, a))``."""
        conv = self.conv
        speaker, listeners = fields.people(record)
        mail = is_email(record)
        if speaker and mail and content_free(a, listeners):
            return self._mail_line(record, a, speaker) or knowledge_line(
                record, conv.extract_plain(record, a)
            )
        # ``people_only(record, a, listeners, mail=False)``, without its calls
        if (
            not speaker or mail or a.mentions or a.emails or a.urls or a.entities
            or (a.questions and listeners)
        ):  # fmt: skip
            return knowledge_line(record, conv.extract_plain(record, a))
        return self._chat_line(record, a, speaker, listeners) or knowledge_line(
            record, conv.extract_plain(record, a)
        )

    def _chat_line(
        self, record: dict[str, Any], a: Analysis, speaker: str, listeners: list[str]
    ) -> bytes | None:
        """The line of a chat message whose entities and actions are its people's (no
        reply target, distinct people), from their pieces; None for any other."""
        reply_to = record.get("replyTo")
        if reply_to is None:
            reply_to = record.get("reply_to")
        if isinstance(reply_to, str) and reply_to:
            return None
        known = self._people
        people = [known[speaker], *map(known.__getitem__, listeners)]
        keys = list(map(_KEY, people))  # ``distinct_people(keys)``, without the call
        unique = set(keys)
        if len(unique) != len(keys) or not _ROLES.isdisjoint(unique):
            return None
        conv = self.conv
        if conv.wanted:  # most inputs reply to nothing: no call a message
            conv.note_parent(record)
        who = people[0][0]
        if listeners:  # each ``_SAY_HEAD + who + _SAY_OBJECT + name + _SAY_TAIL``
            head = b"".join((_SAY_HEAD, who, _SAY_OBJECT))
            actions = head + (b"," + head).join(map(_TO, people[1:]))
        else:
            actions = _SPEAK % who
        return self._join(record, a, b",".join(map(_PERSON, people)), actions)

    def item_line(self, item: Any, dump: list[Any]) -> bytes:
        """The line of a spool item of ``packed.pack``: a record with its analysis dumped,
        or a chat message's tuple with its candidates."""
        if type(item) is tuple:
            if len(item) == _CHAT_ITEM:
                return self.packed_line(item, dump)
            return self.packed_mail_line(item, dump)
        return self.line(item, Analysis.load(dump))

    def packed_line(self, item: tuple[Any, ...], cands: list[str]) -> bytes:
        """The line of a chat message ``packed.pack`` took (``item``) with its key-phrase
        candidates: ``_chat_line``'s, its tests made in the first pass."""
        head, speaker, listeners, tags, rid, fmt = item
        conv = self.conv
        if conv.wanted:
            conv.note_speaker(rid, fmt, speaker)
        known = self._people
        who = known[speaker]
        if listeners:
            people = list(map(known.__getitem__, listeners))
            head_say = b"".join((_SAY_HEAD, who[0], _SAY_OBJECT))
            actions = head_say + (b"," + head_say).join(map(_TO, people))
            entities = b",".join((who[2], *map(_PERSON, people)))
        else:
            actions, entities = _SPEAK % who[0], who[2]
        topics = ranked_topics(tag_topics(tags), cands, conv.stats, conv.name_words)
        return b"".join((head, entities, _ACTIONS, actions, _TOPICS, orjson.dumps(topics), _END))

    def _join(self, record: dict[str, Any], a: Analysis, entities: bytes, actions: bytes) -> bytes:
        rid, sid = record.get("id"), record.get("source_id")  # ``fields.string`` of each
        return b"".join((  # ``_LINE``, joined: no format string read a line
            LINE_ID, orjson.dumps(rid if isinstance(rid, str) and rid else None),  # ``record_id``
            LINE_SOURCE, orjson.dumps(sid if isinstance(sid, str) and sid else None),
            LINE_ENTITIES, entities, _ACTIONS, actions,
            _TOPICS, orjson.dumps(topics_of(record, a, self.conv)), _END,
        ))  # fmt: skip

    def _message_entity(self) -> tuple[bytes, bytes, str]:
        """The message entity's JSON, its name's JSON and its key."""
        if self._message is None:
            name = self.conv.canonical(MESSAGE)
            entity = {"name": name, "type": ["message"], "facets": None}
            self._message = (orjson.dumps(entity), orjson.dumps(name), name.casefold())
        return self._message

    def _mail_pieces(
        self, people: list[tuple[list[bytes], tuple[str, ...], list[bytes]]], to: int
    ) -> tuple[list[bytes], list[bytes]]:
        """The entities' JSON of a mail message's addresses (``_address`` of each: the
        sender, its ``to`` To recipients, Cc and Bcc) and the message entity, and its
        ``sent`` and ``received`` actions."""
        message, email, _ = self._message_entity()
        entities = [e for es, _, _ in people for e in es]
        entities.append(message)
        actions: list[bytes] = []
        mine = people[0][2]
        for _, _, theirs in people[1 : 1 + to]:  # TypeAgent's actions, per To recipient
            actions += [_SENT % (s, email, r) for s in mine for r in theirs]
            actions += [_RECEIVED % (r, email, s) for r in theirs for s in mine]
        return entities, actions

    def packed_mail_line(self, item: tuple[Any, ...], cands: list[str]) -> bytes:
        """The line of a mail message ``packed.pack`` took (``item``) with its key-phrase
        candidates: ``_mail_line``'s, its tests made in the first pass."""
        head, speaker, values, to, subject, tags, hashtags, rid, fmt = item
        conv = self.conv
        if conv.wanted:
            conv.note_speaker(rid, fmt, speaker)
        entities, actions = self._mail_pieces(list(map(self._address, values)), to)
        seen = first_topics(subject, tags, hashtags)
        topics = ranked_topics(seen, cands, conv.stats, conv.name_words)
        return b"".join((
            head, b",".join(entities), _ACTIONS, b",".join(actions),
            _TOPICS, orjson.dumps(topics), _END,
        ))  # fmt: skip

    def _mail_line(self, record: dict[str, Any], a: Analysis, speaker: str) -> bytes | None:
        """The line of a mail message whose text adds nothing (``content_free``), from
        its addresses' pieces (``mailpeople``); None when its entities would merge."""
        conv = self.conv
        sender, to, cc, bcc = email_fields(record)
        people = [self._address(v) for v in (sender, *to, *cc, *bcc)]
        keys = [key for _, ks, _ in people for key in ks]
        keys.append(self._message_entity()[2])
        if not unmerged(keys):
            return None
        conv.note_parent(record)
        entities, actions = self._mail_pieces(people, len(to))
        if record.get("replyTo", record.get("reply_to")):
            who = conv.canonical(conv.mailperson(speaker))
            actions += map(orjson.dumps, reply_actions(record, who, conv, conv.canonical))
        return self._join(record, a, b",".join(entities), b",".join(actions))
