"""The record's pydantic model: the validation of ``core.record``'s classes, built on first use.

``ConversationMessage`` and ``ConversationMessageMeta`` are plain dataclasses, so that
importing the record does not import pydantic (an ingest validates none of its records
with it: docs/startup.md). Their constructors, ``parse_record`` and a pydantic model
that holds a record as a field validate through the schema made here: the pydantic
dataclasses below declare the fields' aliases (``textChunks``, ``listeners``,
``replyTo``) and the config, pydantic builds their core schema, and the schema is
pointed at the plain classes, so validation makes the plain classes' instances.
``tests/core/test_record_model.py`` holds the fields equal to the plain classes'.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import AliasChoices, ConfigDict, Field, TypeAdapter
from pydantic.dataclasses import dataclass
from pydantic_core import ArgsKwargs, SchemaValidator

from convo.core import record
from convo.core.fields import ROLES

_CONFIG = ConfigDict(populate_by_name=True, extra="ignore")


@dataclass(config=_CONFIG)
class ConversationMessageMeta:
    speaker: str | None = None
    recipients: list[str] = Field(
        default_factory=list,
        serialization_alias="listeners",
        validation_alias=AliasChoices("recipients", "listeners"),
    )


@dataclass(config=_CONFIG)
class ConversationMessage:
    text_chunks: list[str] = Field(
        serialization_alias="textChunks",
        validation_alias=AliasChoices("text_chunks", "textChunks"),
    )
    metadata: ConversationMessageMeta = Field(default_factory=record.empty_meta)  # type: ignore[assignment]
    tags: list[str] = Field(default_factory=list)
    timestamp: str | None = None
    source_id: str | None = None
    id: str | None = None
    format: str | None = None
    thread: str | None = None
    reply_to: str | None = Field(
        default=None,
        serialization_alias="replyTo",
        validation_alias=AliasChoices("reply_to", "replyTo"),
    )
    role: str | None = None
    subject: str | None = None
    extra: dict[str, Any] | None = None


#: The declarations above, and the plain class each one validates into.
PLAIN: dict[type, type] = {
    ConversationMessage: record.ConversationMessage,
    ConversationMessageMeta: record.ConversationMessageMeta,
}

_PLAIN_CLASSES = frozenset(PLAIN.values())
_BY_CLASS: dict[type, SchemaValidator] = {}  # each constructed class's validator


def _pointed(value: Any) -> Any:
    """A core schema with the declared classes replaced by the plain ones (a copy)."""
    if isinstance(value, dict):
        return {
            k: PLAIN.get(v, v) if k == "cls" or k == "default_factory" else _pointed(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_pointed(v) for v in value]
    return value


def core_schema(cls: type) -> Any:
    """The core schema of a plain record class (``record.ConversationMessage`` or its
    metadata), its docstring kept for the JSON Schema's description."""
    return _built(cls.__name__)[0]


def validator(cls: type) -> SchemaValidator:
    """The validator of a plain record class (the one its constructor uses)."""
    return _built(cls.__name__)[1]


@functools.cache
def _built(name: str) -> tuple[Any, SchemaValidator]:
    declared: Any = next(k for k, v in PLAIN.items() if v.__name__ == name)
    declared.__doc__ = PLAIN[declared].__doc__
    schema = _pointed(declared.__pydantic_core_schema__)
    return schema, SchemaValidator(schema)


def validate_init(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """A constructor's validation: the arguments checked and set on ``instance`` (what a
    pydantic dataclass's ``__init__`` does); a pydantic ``ValidationError`` if wrong."""
    cls = type(instance)
    checker = _BY_CLASS.get(cls)
    if checker is None:  # a subclass validates as the record class it extends
        base = next(c for c in cls.__mro__ if c in _PLAIN_CLASSES)
        checker = _BY_CLASS[cls] = validator(base)
    checker.validate_python(ArgsKwargs(args, kwargs), self_instance=instance)


#: A record dict (either key spelling) as a ``record.ConversationMessage``, or a pydantic
#: ``ValidationError``: the validator's own method, no Python call around it.
validate = validator(record.ConversationMessage).validate_python


def json_schema() -> dict[str, Any]:
    """JSON Schema of the record as written (serialization aliases), from the pydantic model."""
    schema = TypeAdapter(record.ConversationMessage).json_schema(
        mode="serialization", by_alias=True
    )
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "ConversationMessage"
    schema["description"] = (
        "A convo record: TypeAgent's ConversationMessage plus id, format and provenance keys. "
        "timestamp is YYYY-MM-DDTHH:MM:SSZ (UTC); 1970-01-01T00:00:00Z means unknown."
    )
    schema["required"] = sorted(
        {"textChunks", "metadata", "tags", "timestamp", "source_id", "id", "format"}
    )
    props = schema["properties"]
    props["timestamp"] = {
        "type": "string",
        "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$",
        "description": "UTC, whole seconds; the epoch means unknown",
    }
    props["textChunks"]["minItems"] = 1
    props["id"] = {
        "type": "string",
        "description": "stable across re-ingests; the source's own id or h:<hash>",
    }
    props["format"] = {"type": "string", "description": "the importer that produced the record"}
    props["role"] = {"enum": [*ROLES, None], "default": None}
    schema["$defs"]["ConversationMessageMeta"]["required"] = ["speaker", "listeners"]
    return schema
