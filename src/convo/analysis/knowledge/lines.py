"""The ``convo knowledge -f jsonl`` line of a message, from JSON pieces of its people.

``knowledge_line(record, conv.extract_plain(record, analysis))`` builds a dict per
entity and per action and then serialises them all; a conversation names a few
thousand people on every message, so for the common message ``Lines`` joins cached
JSON pieces instead: each person's name as JSON, and the fixed parts of an entity and
a ``say`` action around them. The common message is a chat message (not mail) with a
speaker, whose speaker and listeners are distinct people once named canonically and
case-folded, none named by a chat role, with no mentions, addresses or URLs, no
reply target and no question to a listener: its entities are its people (``person``)
and its actions its ``say`` actions. Any other message takes ``knowledge_line``.
The bytes are the same either way (tests/analysis/test_knowledge_lines.py).
"""

from __future__ import annotations

from typing import Any

import orjson

from convo.analysis.knowledge.analysed import Analysis, distinct_people, people_only
from convo.analysis.knowledge.extract import Conversation, topics_of
from convo.analysis.knowledge.plain import Plain
from convo.core import fields

_NAMES_MAX = 1 << 14  # people whose JSON name is kept (bounded memory)

_ENTITY = b'{"name":%b,"type":["person"],"facets":null}'
_SAY = (
    b'{"verbs":["say"],"verbTense":"past","subjectEntityName":%b,"objectEntityName":%b,'
    b'"indirectObjectEntityName":"none","params":null,"subjectEntityFacet":null}'
)
_SPEAK = (
    b'{"verbs":["say","speak"],"verbTense":"past","subjectEntityName":%b,'
    b'"objectEntityName":"none","indirectObjectEntityName":"none","params":null,'
    b'"subjectEntityFacet":null}'
)
_LINE = (
    b'{"id":%b,"source_id":%b,"knowledge":{"entities":[%b],"actions":[%b],'
    b'"inverse_actions":[],"topics":%b}}\n'
)


def knowledge_line(record: dict[str, Any], k: Plain) -> bytes:
    """One line of ``convo knowledge -f jsonl``: the record's ids and its knowledge (as
    plain data, ``KnowledgeResponse.to_dict()``)."""
    line = {
        "id": fields.record_id(record),
        "source_id": fields.string(record, "source_id"),
        "knowledge": k,
    }
    return orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE)


class Lines:
    """The lines of the messages of ``conv``'s second pass (see the module docstring)."""

    def __init__(self, conv: Conversation):
        self.conv = conv
        self._json: dict[str, tuple[bytes, str]] = {}  # name -> its canonical name's
        # JSON and case-folded key

    def _person(self, name: str) -> tuple[bytes, str]:
        found = self._json.get(name)
        if found is None:
            canonical = self.conv.canonical(name)
            found = (orjson.dumps(canonical), canonical.casefold())
            if len(self._json) >= _NAMES_MAX:
                self._json.clear()
            self._json[name] = found
        return found

    def line(self, record: dict[str, Any], a: Analysis) -> bytes:
        """``knowledge_line(record, conv.extract_plain(record, a))``."""
        conv = self.conv
        speaker = fields.speaker(record)
        listeners = fields.listeners(record)
        if not speaker or not people_only(record, a, listeners):
            return knowledge_line(record, conv.extract_plain(record, a))
        people = [self._person(speaker), *map(self._person, listeners)]
        if not distinct_people([key for _, key in people]):
            return knowledge_line(record, conv.extract_plain(record, a))
        conv.note_parent(record)
        who = people[0][0]
        if listeners:
            actions = b",".join([_SAY % (who, name) for name, _ in people[1:]])
        else:
            actions = _SPEAK % who
        return _LINE % (
            orjson.dumps(fields.record_id(record)),
            orjson.dumps(fields.string(record, "source_id")),
            b",".join([_ENTITY % name for name, _ in people]),
            actions,
            orjson.dumps(topics_of(record, a, conv)),
        )
