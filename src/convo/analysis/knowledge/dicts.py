"""Knowledge as plain data: the dicts of ``KnowledgeResponse.to_dict()``, built directly.

Content extraction (``extract``) builds each message's knowledge as the plain dict that
``--format jsonl`` writes and ``summary.Aggregate`` counts, so a message costs no
dataclass objects that would be turned into dicts again (measured: building the objects
and their dicts was about half of a knowledge run). ``response(plain)`` makes the
``KnowledgeResponse`` the library API returns from it; ``response(p).to_dict() == p``.

Shapes (``core/knowledge_schema.py``): an entity is ``{"name", "type": [...], "facets":
[{"name", "value"}] | None}``; an action is ``{"verbs", "verbTense", "subjectEntityName",
"objectEntityName", "indirectObjectEntityName", "params": [str | {"name", "value"}] |
None, "subjectEntityFacet": {"name", "value"} | None}``; knowledge is ``{"entities",
"actions", "inverse_actions", "topics"}``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from convo.core.fields import ROLES
from convo.core.knowledge_schema import (
    Action,
    ActionParam,
    ConcreteEntity,
    Facet,
    KnowledgeResponse,
)

Plain = dict[str, Any]


def action(
    verbs: list[str],
    subject: str,
    obj: str,
    indirect: str = "none",
    params: list | None = None,
    tense: str = "past",
) -> Plain:
    """An action (past tense unless ``tense`` says otherwise)."""
    return {
        "verbs": verbs,
        "verbTense": tense,
        "subjectEntityName": subject,
        "objectEntityName": obj,
        "indirectObjectEntityName": indirect,
        "params": params,
        "subjectEntityFacet": None,
    }


def _same(name: str) -> str:
    return name


def say(
    speaker: str | None,
    recipients: list[str],
    canon: Callable[[str], str] = _same,
    actions: bool = True,
) -> tuple[list[Plain], list[Plain]]:
    """(entities, actions) of TypeAgent's ``ConversationMessageMeta.get_knowledge()``;
    ``canon`` names the people of the actions (entities keep the names written), and
    without ``actions`` none are made.

    A deliberate copy of that rule (``core/record.py``) on plain data: it runs for every
    message, and building its objects to turn them into dicts cost more than the rule.
    tests/analysis/test_knowledge_shortcuts.py checks that both give the same knowledge.
    """
    if not speaker:
        return [], []
    entities = [{"name": speaker, "type": ["person"], "facets": None}]
    entities += [{"name": r, "type": ["person"], "facets": None} for r in recipients]
    if not actions:
        return entities, []
    who = canon(speaker)
    if recipients:
        return entities, [action(["say"], who, canon(r)) for r in recipients]
    return entities, [action(["say", "speak"], who, "none")]


def merge_entities(entities: Iterable[Plain], canon: Callable[[str], str]) -> list[Plain]:
    """One entity per case-folded canonical name (``canon``), types and facets united in
    order; a person named by a chat role (``user``, ``assistant``, ...) is a ``role``.
    The entities are this extraction's own, made for it: merged in place."""
    merged: dict[str, Plain] = {}
    for e in entities:
        name = canon(e["name"])
        key = name.casefold()
        have = merged.get(key)
        if have is None:
            e["name"] = name
            merged[key] = e
            continue
        types = have["type"]
        types.extend(t for t in e["type"] if t not in types)
        if e["facets"]:
            facets = have["facets"] = have["facets"] or []
            facets.extend(f for f in e["facets"] if f not in facets)
    for key, e in merged.items():
        if key in ROLES and "person" in e["type"]:
            e["type"] = ["role" if t == "person" else t for t in e["type"]]
    return list(merged.values())


def _facet(f: Plain | None) -> Facet | None:
    return None if f is None else Facet(name=f["name"], value=f["value"])


def response(plain: Plain) -> KnowledgeResponse:
    """The ``KnowledgeResponse`` of plain knowledge (its ``to_dict()`` is ``plain``)."""
    return KnowledgeResponse(
        entities=[
            ConcreteEntity(
                name=e["name"],
                type=list(e["type"]),
                facets=None if e["facets"] is None else [_facet(f) for f in e["facets"]],  # type: ignore[misc]
            )
            for e in plain["entities"]
        ],
        actions=[_action(a) for a in plain["actions"]],
        inverse_actions=[_action(a) for a in plain["inverse_actions"]],
        topics=list(plain["topics"]),
    )


def _action(a: Plain) -> Action:
    params = a["params"]
    return Action(
        verbs=list(a["verbs"]),
        verb_tense=a["verbTense"],
        subject_entity_name=a["subjectEntityName"],
        object_entity_name=a["objectEntityName"],
        indirect_object_entity_name=a["indirectObjectEntityName"],
        params=None
        if params is None
        else [
            p if isinstance(p, str) else ActionParam(name=p["name"], value=p["value"])
            for p in params
        ],
        subject_entity_facet=_facet(a["subjectEntityFacet"]),
    )
