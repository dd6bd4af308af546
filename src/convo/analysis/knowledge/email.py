"""TypeAgent's email metadata knowledge (emails/email_message.py, ``EmailMessageMeta``), exactly.

For a mail record convo has ``speaker`` = From and ``listeners`` = To + Cc. TypeAgent's
``EmailMessageMeta`` keeps To, Cc and Bcc apart and makes ``sent``/``received`` actions
for the To recipients only. Decision: when the record's ``extra`` has ``to`` (and
optionally ``cc``/``bcc``) lists, they are used as TypeAgent's fields; otherwise every
listener counts as a To recipient. Note that TypeAgent puts the ``received`` actions in
``actions`` (its ``inverse_actions`` stays empty); this module does the same.

``email_knowledge`` is TypeAgent's rule exactly. convo's content knowledge
(``email_plain(..., persons=True)``, what ``convo knowledge`` writes) reads a person once:
- a value with no address in it (no ``@``, no ``<``: a people file's name such as
  ``Alice Smith``, or a local user ``root``) names a person, where ``parseaddr`` would
  make ``Alice`` an address (``mail_parts``);
- each To recipient gets one ``sent`` and one ``received`` action between the two
  persons (the display name, else the address), not one per pair of their names
  (TypeAgent's display x address product listed each relation up to four times).
"""

from __future__ import annotations

from collections.abc import Callable
from email.utils import parseaddr as _parseaddr
from functools import lru_cache
from typing import Any

from convo.analysis.knowledge.dicts import Plain, action, response
from convo.core import fields
from convo.core.knowledge_schema import KnowledgeResponse


@lru_cache(maxsize=1 << 14)
def parseaddr(value: str) -> tuple[str, str]:
    """``email.utils.parseaddr``, cached: a conversation repeats a few thousand addresses
    on every message, and the standard parser was a third of the knowledge run time."""
    return _parseaddr(value)


@lru_cache(maxsize=1 << 14)
def mail_parts(value: str) -> tuple[str, str]:
    """(display name, address) of a mail person as convo's knowledge reads it:
    ``parseaddr``'s, except that a value with no address in it is all display name."""
    display, address = _parseaddr(value)
    if not display and "@" not in value and "<" not in value and value.strip():
        return value.strip(), ""
    return display, address


def _strings(value: Any) -> list[str] | None:
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    if isinstance(value, str) and value:
        return [value]
    return None


def email_fields(record: dict[str, Any]) -> tuple[str, list[str], list[str], list[str]]:
    """(sender, To, Cc, Bcc) of a mail record, as TypeAgent's EmailMessageMeta has them."""
    sender = fields.speaker(record) or ""
    listeners = fields.listeners(record)
    extra = fields.extra(record)
    to = _strings(extra.get("to"))
    if to is None:
        return sender, listeners, [], _strings(extra.get("bcc")) or []
    return sender, to, _strings(extra.get("cc")) or [], _strings(extra.get("bcc")) or []


def person_name(address: str) -> str:
    """The person behind ``Name <addr>`` (``mail_parts``): the display name, else the address."""
    display, addr = mail_parts(address)
    return display or addr or address


def _address_entities(value: str, split: Callable[[str], tuple[str, str]]) -> list[Plain]:
    entities: list[Plain] = []
    display, address = split(value)
    if display:
        facets = [{"name": "email_address", "value": address}] if address else None
        entities.append({"name": display, "type": ["person"], "facets": facets})
    if address:
        entities.append({"name": address, "type": ["email_address", "alias"], "facets": None})
    return entities


def _same(name: str) -> str:
    return name


def _actions(
    sender: str, recipient: str, canon: Callable[[str], str], persons: bool
) -> list[Plain]:
    """The ``sent`` actions of a sender to one To recipient, then its ``received`` ones:
    each of the sender's names (display, address) with each of the recipient's, or with
    ``persons`` the one between the two persons."""
    if persons:
        mine, theirs = [canon(person_name(sender))], [canon(person_name(recipient))]
    else:
        mine = [canon(s) for s in parseaddr(sender) if s]
        theirs = [canon(r) for r in parseaddr(recipient) if r]
    message = canon("email")
    out = [action(["sent"], s, message, r) for s in mine for r in theirs]
    out += [action(["received"], r, message, s) for r in theirs for s in mine]
    return out


def email_plain(
    record: dict[str, Any],
    canon: Callable[[str], str] = _same,
    actions: bool = True,
    persons: bool = False,
) -> Plain:
    """What TypeAgent's ``EmailMessage.get_knowledge()`` returns for this mail record,
    as plain data (``plain.response`` makes the ``KnowledgeResponse``). ``canon`` names
    the people of the actions (their entities keep the names written); without
    ``actions`` the list is left empty; with ``persons``, convo's reading of a person
    (the module docstring)."""
    sender, to, cc, bcc = email_fields(record)
    split = mail_parts if persons else parseaddr
    entities: list[Plain] = []
    if sender:
        entities.extend(_address_entities(sender, split))
    for value in (*to, *cc, *bcc):
        entities.extend(_address_entities(value, split))
    entities.append({"name": "email", "type": ["message"], "facets": None})
    found: list[Plain] = []
    if actions and sender and to:
        for recipient in to:
            found.extend(_actions(sender, recipient, canon, persons))
    subject = record.get("subject")
    topics = [subject] if isinstance(subject, str) and subject else []
    return {"entities": entities, "actions": found, "inverse_actions": [], "topics": topics}


def email_knowledge(record: dict[str, Any]) -> KnowledgeResponse:
    """What TypeAgent's ``EmailMessage.get_knowledge()`` returns for this mail record."""
    return response(email_plain(record))
