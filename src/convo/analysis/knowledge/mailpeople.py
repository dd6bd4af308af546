"""What one address of a mail message adds to its knowledge: the shorter path for mail.

TypeAgent's email knowledge (``email.email_plain``) gives each address value
``Name <addr>`` of the sender, To, Cc and Bcc a ``person`` entity (the display name,
the address as its facet) and an ``email_address``/``alias`` entity, one ``email``
``message`` entity, and ``sent``/``received`` actions between the sender and each To
recipient, each named once as a person (``email.mail_parts``: a value without an
address is a person's name); ``extract`` then names them canonically and merges the entities
by case-folded name. A conversation repeats a few thousand addresses on every message,
so ``mail_person`` works out once what a value adds, and ``lines`` and ``summary``
join those pieces for the common mail message: when the content adds nothing
(``content_free``) and the message's entity keys are distinct with none a chat role
(``unmerged``), ``merge_entities`` would leave the entities as they are, in order.
tests/analysis/test_knowledge_lines.py holds both shorter paths to the plain rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from convo.analysis.knowledge.body_analysis import Analysis
from convo.analysis.knowledge.dicts import Plain
from convo.analysis.knowledge.email import mail_parts
from convo.core import fields

MESSAGE = "email"  # the name of TypeAgent's message entity on every mail
_ROLES = frozenset(fields.ROLES)


@dataclass(frozen=True, slots=True)
class MailPerson:
    """The entities of one address value (names canonical) and its names in actions."""

    entities: tuple[Plain, ...]  # as ``merge_entities`` leaves them when nothing merges
    keys: tuple[str, ...]  # their case-folded names
    names: tuple[str, ...]  # its name in ``sent``/``received`` actions (one: the person)


def mail_person(value: str, canon: Callable[[str], str]) -> MailPerson:
    """What ``value`` adds to a mail message's knowledge, names as ``canon`` gives them
    (``email._address_entities`` and ``email._actions`` with ``persons``, then
    ``merge_entities``)."""
    display, address = mail_parts(value)
    entities: list[Plain] = []
    if display:
        facets = [{"name": "email_address", "value": address}] if address else None
        entities.append({"name": canon(display), "type": ["person"], "facets": facets})
    if address:
        entities.append(
            {"name": canon(address), "type": ["email_address", "alias"], "facets": None}
        )
    keys = tuple(e["name"].casefold() for e in entities)
    return MailPerson(tuple(entities), keys, (canon(display or address or value),))


def content_free(a: Analysis, listeners: list[str]) -> bool:
    """The message's text adds no entity and no ``ask`` action: no mention, address or
    URL, no question to a listener."""
    return not (a.names_things() or (a.questions and listeners))


def unmerged(keys: list[str]) -> bool:
    """Entities of these keys (in a message, the message entity's among them) stay as
    they are when merged: distinct, and none a chat role (which would turn a person
    into a ``role``)."""
    return len(set(keys)) == len(keys) and _ROLES.isdisjoint(keys)
