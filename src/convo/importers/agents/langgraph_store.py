"""LangGraph store items: LangMem's memories as a user has them on disk
(``langgraph-store``).

LangMem (langchain-ai/langmem) has no file format of its own. What it writes lives in a
LangGraph ``BaseStore`` (``InMemoryStore``, ``PostgresStore``...), and what reaches a
file is one of:
- the store's items, as ``search_memory`` returns them (``langmem/knowledge/tools.py``:
  ``utils.dumps([m.dict() for m in memories])``, orjson of ``store.search(...)``) or as a
  user dumps ``store.search(namespace)``: ``[{"namespace": [...], "key", "value",
  "created_at", "updated_at", "score"?}]`` (``langgraph/store/base``: ``Item.dict()``,
  ``SearchItem`` adds ``score``). ``create_manage_memory_tool`` stores ``value =
  {"content": <text or object>}`` under a uuid key; ``create_memory_store_manager``
  stores ``{"kind": "<schema name>", "content": <the schema's model_dump>}`` (``Memory``:
  ``{"content": "..."}``);
- the messages its tools and managers take and return: LangChain messages (the
  ``langchain`` format reads ``messages_to_dict`` / ``dumpd`` output) or OpenAI-style
  dicts (``openai``). The ``langmem`` format reads the older LangMem service's threads
  (``{id, messages, metadata}``).
This module reads the first: a JSON array of items (streamed), JSONL (an item, or an
array, a line), ``{"items": [...]}`` or one item.

Decisions:
- A memory is not said by anyone: speaker none, no listeners, tag ``memory`` (and the
  ``kind``, ``Memory``); text = the value's ``content`` when it is text, a structured
  memory's ``content`` (``{"content": "..."}``: that text; any other object: its
  fields ``name: value`` a line), else the whole value as JSON.
- thread = ``langgraph-store:<namespace joined by />`` (``memories/user-1``); id =
  ``langgraph-store:<namespace>:<key>``: a key is unique only in its namespace (LangMem
  makes uuids; ``preferences``-style keys a user picks are common); time = ``updated_at``
  (``created_at`` in ``extra`` when it differs); ``score``, ``namespace``, ``key``,
  ``kind`` and a structured value in ``extra``.
- An item without ``namespace``/``key``/``value`` is rejected with its location.

Ids and their scope (docs/ids.md): ``langgraph-store:<namespace>:<key>``, the namespace
its scope, as the store's own primary key (``(namespace, key)``); two users' stores
with the same namespace and key are the same memory slot (LangMem namespaces carry the
user id: ``("memories", "{langgraph_user_id}")``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.record import ConversationMessage
from convo.core.timestamps import iso_ts
from convo.importers.agents.blocks import dumps
from convo.importers.agents.samples import iter_samples, messages_of, sample_values
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import has_key, json_head_with
from convo.importers.registry import Format

NAME = "langgraph-store"


def is_item(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("namespace"), list)
        and isinstance(obj.get("key"), str)
        and "value" in obj
    )


def sniff(source: Source) -> int:
    text = json_head_with(source, key="namespace")
    if not text or not (has_key(text, "key") and has_key(text, "value")):
        return 0
    if not (has_key(text, "created_at") or has_key(text, "updated_at")):
        return 0
    items = [x for v in sample_values(text) for x in _items(v)][:40]
    if items:
        return 90 if sum(map(is_item, items)) * 2 >= len(items) else 0
    return 80


def _items(value: Any) -> list[Any]:
    if isinstance(value, dict) and isinstance(value.get("items"), list):
        return value["items"]
    return messages_of(value)


def _text(value: Any) -> str:
    content = value.get("content") if isinstance(value, dict) else value
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        inner = content.get("content")
        if isinstance(inner, str) and len(content) == 1:
            return inner
        return "\n".join(
            f"{k}: {v if isinstance(v, str) else dumps(v)}" for k, v in content.items()
        )
    return dumps(value)


def _memory(obj: dict[str, Any], where: str) -> ConversationMessage:
    space = "/".join(str(p) for p in obj["namespace"])
    value = obj["value"]
    kind = value.get("kind") if isinstance(value, dict) else None
    updated = iso_ts(obj.get("updated_at")) or iso_ts(obj.get("created_at"))
    extra: dict[str, Any] = {
        "namespace": obj["namespace"],
        "key": obj["key"],
        "kind": kind if isinstance(kind, str) else None,
        "score": obj.get("score"),
        "created_at": obj.get("created_at") if obj.get("created_at") != obj.get("updated_at")
        else None,
        "value": value if not (isinstance(value, dict) and isinstance(value.get("content"), str))
        else None,
    }  # fmt: skip
    return message(
        _text(value),
        speaker=None,
        timestamp=updated,
        id=f"{NAME}:{space}:{obj['key']}",
        source_id=where,
        format=NAME,
        thread=f"{NAME}:{space}",
        tags=["memory", *([kind] if isinstance(kind, str) and kind else [])],
        extra=extra,
    )


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    for sample, loc in iter_samples(source, ctx):
        items = _items(sample) if not is_item(sample) else [sample]
        for k, obj in enumerate(items, 1):
            where = ctx.loc(f"{loc}.item-{k}" if len(items) > 1 else loc)
            if not is_item(obj):
                ctx.reject(where, "not a LangGraph store item (namespace, key, value)", obj)
                continue
            yield _memory(obj, where)


DESCRIPTION = "LangGraph store items: LangMem memories (search_memory results, store dumps)"
EXAMPLE = (
    '[{"namespace": ["memories", "user-1"], "key": "1f0c...", "value": {"content": '
    '"Prefers dark mode"}, "created_at": "2025-02-10T09:00:00+00:00", "updated_at": '
    '"2025-02-10T09:00:00+00:00", "score": 0.82}]'
)
FIELDS = Fields(
    speaker="none: a memory is not said by anyone",
    listeners="none",
    time="`updated_at` (else `created_at`)",
    zone="the offset the store writes (UTC); naive times are read in `--tz` (default UTC)",
    thread="`langgraph-store:<namespace>` (its parts joined by `/`)",
    id="`langgraph-store:<namespace>:<key>`",
    scope="the namespace (the store's key is `(namespace, key)`)",
    tags="`memory` and the memory's `kind` (`Memory`)",
    extra="`namespace`, `key`, `kind`, `score`, `created_at` (when it differs), `value` "
    "(a structured memory)",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
