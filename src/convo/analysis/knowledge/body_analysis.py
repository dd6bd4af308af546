"""What content extraction reads from a message body, computed once per message.

``analyse(record)`` reads the body (``text.body``: no quotes, signature or tool
output), finds its URLs, addresses, mentions and hashtags (``text.scan``), its
questions when someone listens, and its key-phrase candidates
(``keyphrases.candidates``). The two passes of ``extract`` share it: the first
observes it and spools it (``Analysis.dump``), the second reads it back
(``Analysis.load``), so the text is read once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from convo.analysis.knowledge.entities import find, side_text
from convo.analysis.knowledge.keyphrases import candidates
from convo.analysis.knowledge.metadata import is_email
from convo.analysis.knowledge.said import said
from convo.analysis.knowledge.text import (
    body,
    clean_subject,
    may_be_marked,
    questions,
    scan,
    split_pieces,
)
from convo.core import fields

BROADCAST = frozenset({"here", "everyone", "channel", "all"})  # @here: nobody in particular


def _text_chunks(record: dict[str, Any]) -> list[Any]:
    """The text chunks as the record has them (``body`` skips what is not a string)."""
    chunks = record["textChunks"] if "textChunks" in record else record.get("text_chunks")
    return chunks if isinstance(chunks, list) else []


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
    candidates: list[str]  # keyphrases.candidates: each its words joined by a space
    entities: list[list[str]]  # entities.find: [name, type] of what the text names
    said: list[list[str]]  # said.said: [subject, verb, tense, object] the text states

    def dump(self) -> list[Any]:
        """Plain data for a spool line: the candidates alone when the other lists are
        empty (most messages)."""
        if (
            self.urls or self.emails or self.mentions or self.hashtags or self.questions
            or self.entities or self.said
        ):  # fmt: skip
            return [self.urls, self.emails, self.mentions, self.hashtags, self.questions,
                    self.candidates, self.entities, self.said]  # fmt: skip
        return [self.candidates]

    @classmethod
    def load(cls, data: list[Any]) -> Analysis:
        """The analysis ``dump`` gave ``data`` of."""
        if len(data) == 1:
            return cls([], [], [], [], [], data[0], [], [])
        return cls(*data)

    @staticmethod
    def dump_all(analyses: list[Analysis]) -> list[list[Any]]:
        """``[a.dump() for a in analyses]``, one loop without a call a message."""
        return [
            [a.candidates]
            if not (a.urls or a.emails or a.mentions or a.hashtags or a.questions
                    or a.entities or a.said)
            else [a.urls, a.emails, a.mentions, a.hashtags, a.questions, a.candidates,
                  a.entities, a.said]
            for a in analyses
        ]  # fmt: skip

    @classmethod
    def load_all(cls, data: list[list[Any]]) -> list[Analysis]:
        """``[Analysis.load(d) for d in data]``, one loop without a call a message."""
        return [cls([], [], [], [], [], d[0], [], []) if len(d) == 1 else cls(*d) for d in data]

    def names_things(self) -> bool:
        """Whether the text names something: a mention, address, URL or entity."""
        return bool(self.mentions or self.emails or self.urls or self.entities)


def with_side(record: dict[str, Any], a: Analysis) -> Analysis:
    """``a`` with what the record's tool calls, tool results and attachments name
    (``entities.side_text``): URLs, addresses and entities, never topics."""
    chunks = _text_chunks(record)
    tool = record.get("role") == "tool"
    if not tool:
        try:
            if not any(map(str.startswith, chunks, _BRACKET)):
                return a
        except TypeError:  # a chunk that is not a string
            pass
    side, files = side_text(chunks, everything=tool)
    if not side and not files:
        return a
    marked = scan(side)
    a.urls += [u for u in marked.urls if u not in a.urls]
    a.emails += [x for x in marked.emails if x not in a.emails]
    have = {name.casefold() for name, _ in a.entities}
    for found in (*find(marked.plain, quotes=False), *files):
        if found[0].casefold() not in have:
            have.add(found[0].casefold())
            a.entities.append(found)
    return a


_BRACKET = repeat("[")


def analyse(record: dict[str, Any], listeners: list[str] | None = None) -> Analysis:
    """What content extraction reads of a record (``listeners``: its listeners, when
    the caller has them already)."""
    return with_subject(record, with_side(record, analyse_body(record, listeners)))


def with_subject(record: dict[str, Any], a: Analysis) -> Analysis:
    """``a`` with the entities the record's subject names (an e-mail's or a forum
    topic's title, read with the text), after those of the text."""
    subject = record.get("subject")
    if not isinstance(subject, str) or not subject:
        return a
    named = _SUBJECTS.get(subject)
    if named is None:  # a thread's messages share their subject: found once
        if len(_SUBJECTS) >= _SUBJECTS_MAX:
            _SUBJECTS.clear()
        named = _SUBJECTS[subject] = find(clean_subject(subject))
    if named:
        have = {name.casefold() for name, _ in a.entities}
        for name, kind in named:
            if name.casefold() not in have:
                have.add(name.casefold())
                a.entities.append([name, kind])
    return a


_SUBJECTS: dict[str, list[list[str]]] = {}  # a subject -> the entities it names
_SUBJECTS_MAX = 4096


# What chat importers write before a chunk's text to say what it is ("[thinking]",
# "[memory]", "[photo]", "[system event]"): not words of the text.
_MARKER = re.compile(r"^\[[a-z][a-z_ ]{0,30}\]", re.M)


def analyse_body(record: dict[str, Any], listeners: list[str] | None) -> Analysis:
    text = message_body(record)
    if text.startswith("[") or "\n[" in text:
        text = _MARKER.sub("", text)
    if not text:
        return Analysis([], [], [], [], [], [], [], [])
    heard = fields.listeners(record) if listeners is None else listeners
    asked = questions(text) if heard else []
    if not may_be_marked(text):  # most messages: what ``scan`` finds is the text alone
        pieces = split_pieces(text)
        named = find(text, True, pieces)
        return Analysis(
            [], [], [], [], asked, candidates(text, pieces), named,
            said_of(record, text, named, heard, []),
        )  # fmt: skip
    marked = scan(text)
    mentions = (
        [m for m in marked.mentions if m.casefold() not in BROADCAST] if marked.mentions else []
    )
    pieces = split_pieces(marked.plain)
    named = find(marked.plain, True, pieces)
    return Analysis(
        marked.urls, marked.emails, mentions, marked.hashtags, asked,
        candidates(marked.plain, pieces), named,
        said_of(record, marked.plain, named, heard, mentions),
    )  # fmt: skip


def said_of(
    record: dict[str, Any], text: str, named: list[list[str]], heard: list[str],
    mentions: list[str],
) -> list[list[str]]:  # fmt: skip
    """``said.said`` of the text, with the record's people (none without entities)."""
    if not named:
        return []
    speaker = fields.speaker(record)
    return said(text, named, [*([speaker] if speaker else []), *heard, *mentions])


def people_only(
    record: dict[str, Any],
    a: Analysis,
    listeners: list[str],
    asks: bool = True,
    mail: bool | None = None,
) -> bool:
    """Whether the message's entities and actions come from its people alone: no
    mention, address or URL in the text, no question to a listener (when ``asks``: a
    summary counts no ``ask`` action), no reply target, not mail (``lines`` and
    ``summary`` take a shorter path for such a message; ``mail``: ``is_email(record)``
    when the caller has it)."""
    if a.names_things() or (asks and a.questions and listeners):
        return False
    reply_to = record.get("replyTo", record.get("reply_to"))
    if isinstance(reply_to, str) and reply_to:
        return False
    return not (is_email(record) if mail is None else mail)


_ROLES = frozenset(fields.ROLES)


def distinct_people(keys: list[str]) -> bool:
    """Whether a message's people (their keys, case-folded canonical names) are distinct
    and none is named by a chat role: then, with ``people_only``, its entities are one
    ``person`` each and its actions its ``say`` actions."""
    unique = set(keys)
    return len(unique) == len(keys) and _ROLES.isdisjoint(unique)
