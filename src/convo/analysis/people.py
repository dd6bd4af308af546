"""``convo people``: the distinct names in the messages, and which look like one person.

An identity is one exact speaker or listener string. For each: messages spoken and
heard, first and last time, formats, and the person it belongs to in a people file
(``convo.core.people``). With a people file each person is counted once too
(``census``): a message is one of its messages when the speaker is any of its names,
and heard once however many of its names are among the listeners. Likely merges, for a people file to settle: the same address
(``Alice <a@x.org>`` and ``a@x.org``), the same display name, and a name whose words
occur in another (``Alice`` in ``Alice Smith``, by the ``-s`` name rule).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from convo.core import fields
from convo.core.names import NameQuery, split_name, words
from convo.core.people import People

UNDATED = "1970-01-02"  # times before this are the epoch sentinel or offsets
MIN_CONTAINED = 3  # shorter names ("Al", "Jo") contained in others are not suggested


@dataclass
class Identity:
    name: str
    spoke: int = 0
    heard: int = 0
    first: str | None = None
    last: str | None = None
    formats: set[str] = field(default_factory=set)
    person: str | None = None

    def seen(self, ts: str, fmt: str | None) -> None:
        if fmt:
            self.formats.add(fmt)
        if ts < UNDATED:
            return  # undated, or a transcript's offset from an unknown start
        self.first = ts if self.first is None or ts < self.first else self.first
        self.last = ts if self.last is None or ts > self.last else self.last

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "person": self.person, "messages": self.spoke,
            "heard": self.heard, "first": self.first, "last": self.last,
            "formats": sorted(self.formats),
        }  # fmt: skip


@dataclass
class Merge:
    names: list[str]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"names": self.names, "reason": self.reason}


def _ranked(found: Iterable[Identity]) -> list[Identity]:
    return sorted(found, key=lambda i: (-i.spoke, -i.heard, i.name.casefold()))


def identities(records: Iterable[dict[str, Any]], people: People | None = None) -> list[Identity]:
    """Every speaker and listener name, most messages first."""
    return census(records, people)[0]


def census(
    records: Iterable[dict[str, Any]], people: People | None = None
) -> tuple[list[Identity], list[Identity]]:
    """Every speaker and listener name, and every person of ``people`` met (its
    ``name`` and ``person`` the person's name, each message counted once), most
    messages first."""
    found: dict[str, Identity] = {}
    persons: dict[str, Identity] = {}

    def get(name: str) -> Identity:
        ident = found.get(name)
        if ident is None:
            ident = found[name] = Identity(name)
            if people is not None:
                p = people.person_of(name)
                ident.person = p.name if p is not None else None
        return ident

    def person(name: str | None) -> Identity | None:
        if name is None:
            return None
        p = persons.get(name)
        if p is None:
            p = persons[name] = Identity(name, person=name)
        return p

    for r in records:
        ts, fmt = fields.timestamp(r), fields.string(r, "format")
        speaker = fields.speaker(r)
        if speaker:
            ident = get(speaker)
            ident.spoke += 1
            ident.seen(ts, fmt)
            if (p := person(ident.person)) is not None:
                p.spoke += 1
                p.seen(ts, fmt)
        heard: set[str] = set()
        for name in dict.fromkeys(fields.listeners(r)):
            ident = get(name)
            ident.heard += 1
            ident.seen(ts, fmt)
            if ident.person is not None and ident.person not in heard:
                heard.add(ident.person)
                p = person(ident.person)
                assert p is not None
                p.heard += 1
                p.seen(ts, fmt)
    return _ranked(found.values()), _ranked(persons.values())


def merges(idents: list[Identity]) -> list[Merge]:
    """Names that look like one person and are not one person of the people file yet."""
    out: list[Merge] = []
    taken: set[frozenset[str]] = set()
    person = {i.name: i.person for i in idents}

    def suggest(names: list[str], reason: str) -> None:
        persons = {person[n] for n in names}
        key = frozenset(names)
        if len(names) > 1 and key not in taken and not (len(persons) == 1 and None not in persons):
            taken.add(key)
            out.append(Merge(names, reason))

    for reason, part in (("same address", 1), ("same display name", 0)):
        groups: dict[str, list[str]] = defaultdict(list)
        for i in idents:
            value = split_name(i.name)[part].casefold()
            if value:
                groups[value].append(i.name)
        for names in groups.values():
            suggest(names, reason)
    for short, longer in _contained(idents):
        suggest([short, longer], f"{short!r} is part of {longer!r}")
    return out


def _contained(idents: list[Identity]) -> Iterable[tuple[str, str]]:
    by_word: dict[str, list[str]] = defaultdict(list)
    names = {i.name for i in idents}
    for i in idents:
        if split_name(i.name)[0] in names and split_name(i.name)[1]:
            continue  # "Alice <a@x>" beside "Alice": the display-name merge covers it
        for w in set(words(i.name)):
            by_word[w].append(i.name)
    for i in idents:
        q = NameQuery(i.name)
        if len(q.folded) < MIN_CONTAINED or not q.tokens:
            continue
        for other in by_word.get(q.tokens[0], ()):
            if other != i.name and q.folded != other.casefold() and q.matches(other):
                yield i.name, other
