"""TypeAgent's metadata knowledge of a record: ``ConversationMessage.get_knowledge()`` for
any record, ``EmailMessage.get_knowledge()`` for mail records (see ``email``).

A record is mail when its format is ``mbox``, ``eml``, ``maildir`` (and their spellings)
or any registered format of the email family, so a third-party mail importer counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from convo.analysis.knowledge.dicts import Plain, say
from convo.analysis.knowledge.email import email_knowledge, email_plain
from convo.core import fields
from convo.core.knowledge_schema import KnowledgeResponse

if TYPE_CHECKING:  # the model (pydantic: 17 MB) is imported only when it is needed
    from convo.core.record import ConversationMessage

EMAIL_FORMATS = frozenset({"mbox", "mboxo", "mboxrd", "eml", "maildir", "email", "imap"})


def _record(item: dict[str, Any] | ConversationMessage) -> dict[str, Any]:
    return item if isinstance(item, dict) else item.serialize()


_EMAIL_FORMAT: dict[str, bool] = {}  # format name -> of the email family (few names)
_EMAIL_NAMES: frozenset[str] | None = None  # the registry's email formats, once read


def email_format_names() -> frozenset[str]:
    """The names of the registered formats of the email family (the registry is loaded
    once, on the first call)."""
    global _EMAIL_NAMES
    if _EMAIL_NAMES is None:
        try:
            from convo.importers.registry import registry

            names = frozenset(n for n, f in registry.families().items() if f == "email")
        except Exception:  # a broken third-party importer: the built-in names only
            names = frozenset()
        _EMAIL_NAMES = names
    return _EMAIL_NAMES


def use_email_format_names(names: frozenset[str]) -> None:
    """Take ``email_format_names()`` from the caller (a worker process: loading every
    importer there would cost more memory than its work)."""
    global _EMAIL_NAMES
    if names != _EMAIL_NAMES:
        _EMAIL_NAMES = names
        _EMAIL_FORMAT.clear()


def _format_is_email(fmt: str) -> bool:
    return fmt.lower() in EMAIL_FORMATS or fmt in email_format_names()


def is_email(record: dict[str, Any]) -> bool:
    fmt = record.get("format")
    if not isinstance(fmt, str):
        return False
    known = _EMAIL_FORMAT.get(fmt)
    if known is None:
        known = _EMAIL_FORMAT[fmt] = _format_is_email(fmt)
        if len(_EMAIL_FORMAT) > 256:  # format names from untrusted records: stay small
            _EMAIL_FORMAT.clear()
    return known


@dataclass(slots=True)
class _Meta:
    """What ``ConversationMessageMeta.get_knowledge`` reads of its message."""

    speaker: str | None
    recipients: list[str]


def typeagent_knowledge(item: dict[str, Any] | ConversationMessage) -> KnowledgeResponse:
    """Exactly TypeAgent's ``ConversationMessage.get_knowledge()`` for the record."""
    record = _record(item)
    # TypeAgent's rule itself, run on the accessor values (already clean strings) without
    # building and validating a pydantic ConversationMessageMeta (a tenth of the run).
    from convo.core.record import ConversationMessageMeta

    meta = _Meta(fields.speaker(record), fields.listeners(record))
    return ConversationMessageMeta.get_knowledge(meta)  # type: ignore[arg-type]


def metadata_knowledge(item: dict[str, Any] | ConversationMessage) -> KnowledgeResponse:
    """TypeAgent's metadata knowledge for a message (email messages as TypeAgent's emails)."""
    record = _record(item)
    if is_email(record):
        return email_knowledge(record)
    return typeagent_knowledge(record)


def metadata_plain(
    record: dict[str, Any],
    mail: bool,
    canon: Callable[[str], str] | None = None,
    actions: bool = True,
) -> Plain:
    """The metadata knowledge content knowledge starts from, as plain data (``mail``: the
    record ``is_email``): ``metadata_knowledge(record).to_dict()`` but for mail people; ``canon`` names the people of the actions, and without
    ``actions`` none are made; mail people are read as persons (``email.email_plain``
    with ``persons``: convo's content knowledge, not TypeAgent's ``metadata_knowledge``)."""
    if mail:
        return email_plain(record, canon or _same, actions, persons=True)
    entities, found = say(fields.speaker(record), fields.listeners(record), canon or _same, actions)
    return {"entities": entities, "actions": found, "inverse_actions": [], "topics": []}


def _same(name: str) -> str:
    return name
