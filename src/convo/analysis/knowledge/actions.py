"""The actions and entities a message's content adds to its metadata knowledge.

``ask`` actions for the questions a speaker asked listeners, a ``reply`` action to the
parent's speaker, and the mentions, addresses and URLs of the text as entities (the
decisions are in ``extract``'s docstring).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from convo.analysis.knowledge.body_analysis import Analysis
from convo.analysis.knowledge.dicts import Plain, action
from convo.core.names import words


class Parents(Protocol):
    """What ``reply_actions`` asks of a conversation (``extract.Conversation``)."""

    def parent_speaker(self, reply_to: str) -> str | None: ...


def content_entities(a: Analysis) -> list[Plain]:
    """Mentions (person), addresses (email), URLs (url) and the entities the text
    names (``entities.find``: their own type) in that order."""
    out = [{"name": m, "type": ["person"], "facets": None} for m in a.mentions]
    out += [{"name": x, "type": ["email"], "facets": None} for x in a.emails]
    out += [{"name": u, "type": ["url"], "facets": None} for u in a.urls]
    out += [{"name": name, "type": [kind], "facets": None} for name, kind in a.entities]
    return out


def _named_in(name: str, question: str) -> bool:
    tokens = words(name)
    return bool(tokens) and len(tokens[0]) > 1 and tokens[0] in words(question)


def ask_actions(
    listeners: list[str], speaker: str, asked_questions: list[str], canon: Callable[[str], str]
) -> list[Plain]:
    """``speaker`` (named by ``canon`` already) asked ``listeners`` (named as people)."""
    if not listeners:
        return []
    asked: dict[str, list[str]] = {}
    for q in asked_questions:
        targets = [x for x in listeners if _named_in(x, q)] or listeners
        for t in targets:
            asked.setdefault(t, []).append(q)
    return [
        action(
            ["ask"], speaker, canon(target), params=[{"name": "question", "value": q} for q in qs]
        )
        for target, qs in asked.items()
    ]


def reply_actions(
    record: dict[str, Any], who: str, conv: Parents | None, canon: Callable[[str], str]
) -> list[Plain]:
    """``who`` (named by ``canon`` already) replied to the parent's speaker (``none``
    when the parent is not here)."""
    reply_to = record.get("replyTo", record.get("reply_to"))
    if not isinstance(reply_to, str) or not reply_to:
        return []
    parent = (conv.parent_speaker(reply_to) if conv is not None else None) or "none"
    params = [{"name": "replyTo", "value": reply_to}]
    return [action(["reply"], who, canon(parent), params=params)]
