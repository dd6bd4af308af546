"""Mem0's memories as its API returns them, saved to a file (``mem0``).

Shape (mem0ai/mem0 ``mem0/memory/main.py``: ``Memory.get_all`` / ``search`` return
``{"results": [MemoryItem.model_dump()...]}`` (a plain list before the v1.1 output
format), ``{"relations": [...]}`` beside them with a graph store; ``add`` returns the
``results`` as ``{"id", "memory", "event": "ADD" | "UPDATE" | "DELETE" | "NONE"}``;
``history(memory_id)`` the changes ``{"id", "memory_id", "old_memory", "new_memory",
"event", "created_at", "updated_at", "is_deleted", "actor_id", "role"}``): a memory
``{"id", "memory", "hash", "metadata", "score", "created_at", "updated_at"}`` with the
``user_id``, ``agent_id``, ``run_id``, ``actor_id`` and ``role`` it was stored under
(``created_at`` an ISO time with its offset, US/Pacific by default); the hosted
platform's adds ``categories``, ``expiration_date``...

Decisions (as ``langgraph-store`` reads LangMem's memories): a memory is said by no one
(speaker none), tagged ``memory`` and its event (``add``, ``update``, ``delete``) in
lower case; text = ``memory`` (a change: its ``new_memory``, else ``old_memory``);
thread = ``mem0:<user_id | agent_id | run_id>`` (the scope it was stored in), else the
file; id = ``mem0:<id>`` (uuids; a change ``mem0:history:<id>``); time = ``updated_at``,
else ``created_at``; the hash, score, metadata, categories, scope ids, ``memory_id`` and
``old_memory`` in ``extra``. ``relations`` (graph edges) are counted in a warning, not
read. An element that is no memory is rejected with its place.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.io import Source
from convo.core.plural import counted
from convo.core.record import ConversationMessage
from convo.core.timestamps import parse_any
from convo.importers.agents.samples import iter_samples, sample_values
from convo.importers.build import message
from convo.importers.context import ImportContext
from convo.importers.fields import Fields
from convo.importers.jsoninput import as_list, as_str, json_head
from convo.importers.registry import Format

NAME = "mem0"
_SCOPES = ("user_id", "agent_id", "run_id")
_USED = frozenset({"id", "memory", "new_memory", "created_at", "updated_at", "event"})


def is_memory(value: Any) -> bool:
    """A Mem0 memory (``id`` and ``memory`` with its ``hash`` or a scope id) or a change
    of its history (``memory_id``, ``event``)."""
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        return False
    if isinstance(value.get("memory"), str):
        return "hash" in value or "event" in value or any(k in value for k in _SCOPES)
    return isinstance(value.get("memory_id"), str) and "event" in value and "new_memory" in value


def _memories(value: Any) -> list[Any] | None:
    """The memories a sample holds: ``{"results": [...]}``, a list, or one."""
    if isinstance(value, dict) and isinstance(value.get("results"), list):
        return value["results"]
    if isinstance(value, list):
        return value
    return [value] if is_memory(value) else None


def sniff(source: Source) -> int:
    text = json_head(source)
    if not text.startswith(("[", "{")) or '"memory' not in text:
        return 0
    values = sample_values(text)
    found = [m for v in values[:20] for m in (_memories(v) or [])[:20]]
    return 85 if found and any(is_memory(m) for m in found) else 0


def read(source: Source, ctx: ImportContext) -> Iterator[ConversationMessage]:
    relations = 0
    for sample, loc in iter_samples(source, ctx):
        where = ctx.loc(loc) if loc != "doc" else source.name
        if isinstance(sample, dict) and "relations" in sample:
            relations += len(as_list(sample.get("relations")))
        memories = _memories(sample)
        if memories is None:
            ctx.reject(where, "not a Mem0 memory (id, memory)", sample)
            continue
        for k, item in enumerate(memories, 1):
            at = where if memories == [sample] else f"{where}#{k}"
            if is_memory(item):
                yield _record(item, at, source, ctx)
            else:
                ctx.reject(at, "not a Mem0 memory (id, memory)", item)
    if relations:
        ctx.warn(
            source.name, f"{counted(relations, 'graph relation')} not read (no text of their own)"
        )


def _record(
    item: dict[str, Any], where: str, source: Source, ctx: ImportContext
) -> ConversationMessage:
    change = "memory_id" in item and "memory" not in item
    scope = next((as_str(item[k]) for k in _SCOPES if as_str(item.get(k))), "")
    event = as_str(item.get("event")).lower()
    return message(
        _text(item, change),
        speaker=None,
        timestamp=_time(item, ctx),
        id=f"{NAME}:history:{item['id']}" if change else f"{NAME}:{item['id']}",
        source_id=where,
        format=NAME,
        thread=f"{NAME}:{scope}" if scope else ctx.thread_of(source.name),
        tags=["memory", *([event] if event and event != "none" else [])],
        extra=_extra(item),
    )


def _text(item: dict[str, Any], change: bool) -> str:
    """A memory's text; a change of the history: what the memory became, else what it was."""
    if change:
        return as_str(item.get("new_memory")) or as_str(item.get("old_memory"))
    return as_str(item["memory"])


def _time(item: dict[str, Any], ctx: ImportContext) -> str | None:
    try:
        return parse_any(item.get("updated_at") or item.get("created_at"), ctx.options.tz)
    except ValueError:
        return None


def _extra(item: dict[str, Any]) -> dict[str, Any] | None:
    """What a memory holds beside its text, time and id (``created_at`` when it was updated)."""
    extra = {k: v for k, v in item.items() if k not in _USED and v not in (None, "", [], {})}
    updated, created = item.get("updated_at"), item.get("created_at")
    if updated and created and updated != created:
        extra["created_at"] = created
    return extra or None


DESCRIPTION = "Mem0 memories (get_all / search / add results, history(memory_id)) saved as JSON"
EXAMPLE = (
    '{"results": [{"id": "892db2ae-06d9-49e5-8b3e-585ef9b85b8e", "memory": "Likes tea", '
    '"hash": "1a271c007316c94377175ee80e746a19", "metadata": null, "score": null, '
    '"created_at": "2024-07-26T10:29:36.630547-07:00", "updated_at": null, "user_id": "alex"}]}'
)
FIELDS = Fields(
    speaker="none (a memory)",
    listeners="none",
    time="`updated_at`, else `created_at`",
    zone="ISO times with their offset; naive ones in `--tz`",
    thread="`mem0:<user_id>` (else its `agent_id`, else its `run_id`), else the file",
    id="`mem0:<id>` (a change of the history: `mem0:history:<id>`)",
    scope="none: Mem0's ids are uuids",
    tags="`memory` and the event (`add`, `update`, `delete`)",
    extra="`hash`, `score`, `metadata`, `categories`, the scope ids (`user_id`, `agent_id`, "
    "`run_id`, `actor_id`, `role`), `memory_id`, `old_memory`, `is_deleted`, `created_at` "
    "(when it was updated)",
)

FORMATS = (
    Format(NAME, "chat", DESCRIPTION, ("*.json", "*.jsonl"), sniff, read, EXAMPLE, fields=FIELDS),
)
