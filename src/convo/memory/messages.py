"""Jianmu's message helpers over convo's record: ``to_text``, ``to_dict`` and the constructors.

convo's message is ``ConversationMessage`` with ``role`` set; Jianmu's ``Message`` fields
map onto it as the Jianmu importer reads them: ``id`` → ``id``, ``role`` → ``role``,
``content`` → the text chunks and ``extra["blocks"]``, ``name`` → the speaker and
``extra["name"]``, ``tool`` → ``extra["tool"]``, ``tool_call_id`` → the ``tool_result``
block, ``tool_calls`` → ``tool_use`` blocks, ``metadata`` → ``extra["metadata"]`` (its
``timestamp`` → ``timestamp``).

- ``to_text(value)`` follows Jianmu's ``Message.to_text`` exactly: a message gives its
  text; ``None`` is ``""``; ``str`` as is; ``bytes`` decoded as UTF-8 (bad bytes replaced);
  a dict gives the first of ``text``, ``content``, ``data``, ``value`` whose value is a
  string, else ``str(dict)``; a list gives its items' texts, empty ones skipped, joined by
  newlines; anything else ``str(value)``.
- ``system(content, **kw)``, ``human(...)``, ``ai(...)``, ``tool(content, name=None, **kw)``
  build a Jianmu message dict (``kw`` are ``Message`` fields: ``id``, ``name``, ``tool``,
  ``tool_call_id``, ``tool_calls``, ``metadata``; convo's own ``timestamp``, ``tags``,
  ``thread``, ``reply_to``, ``subject``, ``source_id`` are set on the record) and read it
  with the Jianmu importer, so the record is the one ``convo ingest`` would make. ``id``
  defaults to a fresh uuid (hex), as Jianmu gives every message a stable id. ``tool_calls``
  items are ``{"id", "name", "input"}`` (or OpenAI's ``{"id", "function": {...}}``).
- ``to_dict(message)`` is Jianmu's ``Message.to_dict()``: ``id``, ``role``, ``content``
  always, ``name``, ``tool``, ``tool_call_id``, ``tool_calls``, ``metadata`` when set. A
  message read from Jianmu (or built here) gives its source dict back unchanged, but for
  a time the record has and the source did not hold (``timestamp=`` here, or the one the
  message store gives): it is added as ``metadata.timestamp``, where the importer reads it.
"""

from __future__ import annotations

import uuid
from typing import Any

from convo.core import fields
from convo.core.errors import RecordError
from convo.core.plural import plural
from convo.core.record import ConversationMessage
from convo.core.timestamps import EPOCH_STR
from convo.importers.agents.blocks import jianmu_to_text
from convo.importers.agents.reader import message_from_object

__all__ = ["MESSAGE_FIELDS", "ai", "human", "system", "to_dict", "to_text", "tool"]

#: Jianmu ``Message`` fields, in its ``to_dict`` order
MESSAGE_FIELDS = ("id", "role", "content", "name", "tool", "tool_call_id", "tool_calls", "metadata")
_RECORD_FIELDS = ("timestamp", "tags", "thread", "reply_to", "subject", "source_id")


def to_text(content: Any = None) -> str:
    """Plain text of a message or of any content (Jianmu's rules; see the module docstring)."""
    if isinstance(content, ConversationMessage):
        content = to_dict(content)["content"]  # Jianmu's to_text reads the message's content
    if isinstance(content, list):
        return "\n".join(p for p in (to_text(item) for item in content) if p)
    return jianmu_to_text(content)


def message(role: str, content: Any, **kw: Any) -> ConversationMessage:
    """A message from Jianmu ``Message`` fields (and convo record fields), via the importer."""
    record_kw = {k: kw.pop(k) for k in _RECORD_FIELDS if k in kw}
    unknown = set(kw) - set(MESSAGE_FIELDS)
    if unknown:
        raise TypeError(
            f"unknown Message {plural(len(unknown), 'field')}: {', '.join(sorted(unknown))}"
        )
    payload: dict[str, Any] = {"id": kw.pop("id", None) or uuid.uuid4().hex, "role": role}
    payload["content"] = content
    payload.update((k, v) for k, v in kw.items() if v)
    msg = message_from_object(payload, fmt="jianmu")
    msg.id = payload["id"]  # the caller's own id, not prefixed as a file's short ids are
    for key, value in record_kw.items():
        setattr(msg, key, value)
    return msg


def system(content: str, **kwargs: Any) -> ConversationMessage:
    """A system-role message."""
    return message("system", content, **kwargs)


def human(content: str, **kwargs: Any) -> ConversationMessage:
    """A user-role message."""
    return message("user", content, **kwargs)


def ai(content: str = "", **kwargs: Any) -> ConversationMessage:
    """An assistant-role message; ``tool_calls`` are ``{"id", "name", "input"}`` dicts."""
    return message("assistant", content, **kwargs)


def tool(content: str, name: str | None = None, **kwargs: Any) -> ConversationMessage:
    """A tool-role message (a tool result; ``tool_call_id`` names the call it answers)."""
    return message("tool", content, name=name, **kwargs)


def to_dict(msg: ConversationMessage | dict[str, Any]) -> dict[str, Any]:
    """Jianmu's ``Message.to_dict()`` of a message or record (see the module docstring)."""
    rec = msg.serialize() if isinstance(msg, ConversationMessage) else msg
    if not isinstance(rec, dict):
        raise RecordError(f"not a message ({type(msg).__name__})", hint="pass a message")
    extra = fields.extra(rec)
    orig = fields.original(rec, "jianmu")
    if isinstance(orig, dict):
        return _with_time(dict(orig), fields.timestamp(rec))
    blocks = _blocks(rec, extra)
    results = [b for b in blocks if b["type"] == "tool_result"]
    calls = [b for b in blocks if b["type"] == "tool_use"]
    data: dict[str, Any] = {"id": fields.record_id(rec) or "", "role": fields.role(rec)}
    data["content"] = _content(blocks, results, data["role"])
    optional = _optional(rec, extra, results, calls)
    data.update((k, v) for k, v in optional.items() if v)
    return data


def _optional(
    rec: dict[str, Any],
    extra: dict[str, Any],
    results: list[dict[str, Any]],
    calls: list[dict[str, Any]],
) -> dict[str, Any]:
    """The optional ``Message`` fields (empty ones are left out by the caller)."""
    result = results[0] if results else {}
    return {
        "name": fields.agent_name(rec),
        "tool": fields.string(extra, "tool") or result.get("name"),
        "tool_call_id": result.get("tool_use_id"),
        "tool_calls": [_call(b) for b in calls],
        "metadata": _metadata(rec, extra),
    }


def _content(blocks: list[dict[str, Any]], results: list[dict[str, Any]], role: Any) -> Any:
    """A string when the message is only text (a tool's results included), else its
    blocks; another role's tool results (an Anthropic user turn) stay blocks, in order."""
    rest = [b for b in blocks if b["type"] not in ("tool_result", "tool_use")]
    if results and role != "tool":
        return [b for b in blocks if b["type"] != "tool_use"]
    if any(b["type"] != "text" for b in rest):
        return rest
    texts = [str(b.get("text", "")) for b in rest]
    return "\n".join(texts + [_result_text(b.get("content")) for b in results])


def _call(block: dict[str, Any]) -> dict[str, Any]:
    return {"id": block.get("id"), "name": block.get("name"), "input": block.get("input") or {}}


def _blocks(rec: dict[str, Any], extra: dict[str, Any]) -> list[dict[str, Any]]:
    value = extra.get("blocks")
    if isinstance(value, list):
        return [b for b in value if isinstance(b, dict) and isinstance(b.get("type"), str)]
    return [{"type": "text", "text": c} for c in fields.chunks(rec)]


def _result_text(content: Any) -> str:
    return content if isinstance(content, str) else to_text(content)


def _with_time(data: dict[str, Any], stamp: str) -> dict[str, Any]:
    """A source message given back, with the record's time in ``metadata.timestamp`` when
    the source had none there (a time set on the record, or by the message store)."""
    meta = data.get("metadata")
    if stamp == EPOCH_STR or (isinstance(meta, dict) and "timestamp" in meta):
        return data
    data["metadata"] = {**(meta if isinstance(meta, dict) else {}), "timestamp": stamp}
    return data


def _metadata(rec: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    meta = dict(extra["metadata"]) if isinstance(extra.get("metadata"), dict) else {}
    stamp = fields.timestamp(rec)
    if stamp != EPOCH_STR:
        meta.setdefault("timestamp", stamp)
    return meta
