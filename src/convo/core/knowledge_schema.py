"""TypeAgent's ``KnowledgeResponse`` shape (knowpro/knowledge_schema.py), serialised the same way.

Plain dataclasses: ``to_dict()`` gives exactly what TypeAgent's pydantic serializer
writes with ``by_alias=True`` (camelCase action fields, ``None`` for absent optionals).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class _NameValue:
    """A name and a value: TypeAgent's ``Facet`` and ``ActionParam`` have this one shape."""

    name: str
    value: Any

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value}


class Facet(_NameValue):
    """A property of an entity (``Facet`` in TypeAgent)."""


@dataclass
class ConcreteEntity:
    name: str
    type: list[str]
    facets: list[Facet] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": list(self.type),
            "facets": [f.to_dict() for f in self.facets] if self.facets is not None else None,
        }


class ActionParam(_NameValue):
    """A named parameter of an action (``ActionParam`` in TypeAgent)."""


@dataclass
class Action:
    verbs: list[str]
    verb_tense: str = "past"
    subject_entity_name: str = "none"
    object_entity_name: str = "none"
    indirect_object_entity_name: str = "none"
    params: list[str | ActionParam] | None = None
    subject_entity_facet: Facet | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "verbs": list(self.verbs),
            "verbTense": self.verb_tense,
            "subjectEntityName": self.subject_entity_name,
            "objectEntityName": self.object_entity_name,
            "indirectObjectEntityName": self.indirect_object_entity_name,
            "params": (
                [p if isinstance(p, str) else p.to_dict() for p in self.params]
                if self.params is not None
                else None
            ),
            "subjectEntityFacet": (
                self.subject_entity_facet.to_dict() if self.subject_entity_facet else None
            ),
        }


@dataclass
class KnowledgeResponse:
    entities: list[ConcreteEntity] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    inverse_actions: list[Action] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "entities": [e.to_dict() for e in self.entities],
            "actions": [a.to_dict() for a in self.actions],
            "inverse_actions": [a.to_dict() for a in self.inverse_actions],
            "topics": list(self.topics),
        }
