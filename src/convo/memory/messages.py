"""Building messages by hand: ``to_text`` and the quick constructors.

``system()``, ``human()``, ``ai()`` and ``tool()`` return ``ConversationMessage``s with
``role`` set (system/user/assistant/tool) and the speaker = ``name`` or the role, the chat
importers' convention, so the exporters in ``convo.export`` turn them into any agent format.

Decisions (the seed module these follow was not available; the rules come from issue 10):

- ``to_text(content)``: ``str`` as is; ``bytes`` decoded as UTF-8 (undecodable bytes
  replaced); ``None`` is ``""``; a dict gives the first of its keys ``text``, ``content``,
  ``data``, ``value`` that is present (converted again), else its JSON; a list or tuple gives
  its items' texts, empty ones skipped, joined by newlines; anything else ``str(value)``.
- ``ai(..., tool_calls=[{"id", "name", "input"}])`` and ``tool(..., tool_call_id=...)`` keep
  the calls and results as content blocks in ``extra["blocks"]`` (Anthropic-like shape), with
  readable text chunks (``[tool_use NAME] {json}``), as the chat importers do.
- Times and ids are left empty: the store stamps them when a message is appended.
"""

from __future__ import annotations

from typing import Any

import orjson

from convo.core.record import ConversationMessage, ConversationMessageMeta

__all__ = ["ai", "human", "system", "to_text", "tool"]

_TEXT_KEYS = ("text", "content", "data", "value")


def to_text(content: Any) -> str:
    """Plain text of any message content (see the module docstring for the rules)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, bytes | bytearray | memoryview):
        return bytes(content).decode("utf-8", "replace")
    if isinstance(content, dict):
        for key in _TEXT_KEYS:
            if key in content:
                return to_text(content[key])
        return _json(content)
    if isinstance(content, list | tuple):
        return "\n".join(t for t in (to_text(c) for c in content) if t)
    return str(content)


def _json(value: Any) -> str:
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:
        return str(value)


def _message(
    role: str, content: Any, name: str | None, blocks: list[dict[str, Any]] | None = None, **kw: Any
) -> ConversationMessage:
    text = to_text(content)
    chunks = [text] if text or not blocks else []
    extra: dict[str, Any] = dict(kw.pop("extra", None) or {})
    if blocks:
        text_blocks = [{"type": "text", "text": text}] if text else []
        extra["blocks"] = text_blocks + blocks
        chunks += [_block_chunk(b) for b in blocks]
    if name:
        extra["name"] = name
    return ConversationMessage(
        text_chunks=chunks or [""],
        metadata=ConversationMessageMeta(speaker=name or role),
        role=role,
        extra=extra or None,
        **kw,
    )


def _block_chunk(block: dict[str, Any]) -> str:
    if block["type"] == "tool_use":
        return f"[tool_use {block['name']}] {_json(block['input'])}"
    return f"[tool_result {block['tool_use_id']}] {to_text(block['content'])}"


def system(content: Any, *, name: str | None = None, **kw: Any) -> ConversationMessage:
    """A system prompt."""
    return _message("system", content, name, **kw)


def human(content: Any, *, name: str | None = None, **kw: Any) -> ConversationMessage:
    """A user turn."""
    return _message("user", content, name, **kw)


def ai(
    content: Any = "",
    *,
    name: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    **kw: Any,
) -> ConversationMessage:
    """An assistant turn; ``tool_calls`` are ``{"id", "name", "input"}`` dicts."""
    blocks = [
        {"type": "tool_use", "id": c["id"], "name": c["name"], "input": c.get("input") or {}}
        for c in tool_calls or []
    ]
    return _message("assistant", content, name, blocks or None, **kw)


def tool(
    content: Any,
    *,
    tool_call_id: str,
    name: str | None = None,
    is_error: bool = False,
    **kw: Any,
) -> ConversationMessage:
    """A tool result for the call ``tool_call_id``; ``name`` is the tool's name."""
    block = {
        "type": "tool_result",
        "tool_use_id": tool_call_id,
        "content": to_text(content),
        "is_error": is_error,
    }
    msg = _message("tool", "", name, [block], **kw)
    msg.text_chunks = [to_text(content)]
    return msg
