"""Jianmu's coercers and normalisers over convo's record (its documentation is the reference).

- ``MessageCoercerProtocol.coerce(payload) -> ConversationMessage | None``.
- ``StrictMessageCoercer``: ``None`` → None; a message as is; a dict read as a message;
  anything else, or a dict that is not a message, raises ``InvalidMessage`` (a
  ``ValueError``, as Jianmu raises, and convo's ``RecordError``).
- ``LenientMessageCoercer``: the same, but what the strict one refuses becomes an
  assistant message holding ``str(payload)``.
- ``normalize_message(payload, *, fallback_role="user", coercer=None)``: with a coercer,
  its result; else ``None`` → None, a message as is, a dict read as a message (or
  ``InvalidMessage``), anything else its ``to_text`` stripped, as a ``fallback_role``
  message, or None when that text is empty. convo also reads objects with
  ``model_dump()``/``to_dict()`` (pydantic models, AgentScope's ``Msg``) as their dict.
- ``normalize_messages(payload, ...)``: None → []; a sequence (not str, bytes, dict or a
  message) item by item, else the one payload; the None results left out.

A dict is read as a message when it is a convo/TypeAgent record (``textChunks``) or a
message of any agent format convo imports (OpenAI, Anthropic, AgentScope, LangMem,
AutoGen, Jianmu), through the same code as ``convo ingest``. A dict that is a Jianmu
``Message`` as it stands (only ``Message`` fields, one of its roles, text or text blocks) is
read as Jianmu's ``Message(**payload)``: a fresh id when it has none, and ``to_dict`` gives
the dict back (a list of text blocks stays a list).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from convo.core.errors import RecordError
from convo.core.fields import ROLES
from convo.core.record import ConversationMessage, parse_record
from convo.importers.agents.blocks import RECORD_DEPTH, too_deep
from convo.importers.agents.reader import message_from_object
from convo.memory.messages import MESSAGE_FIELDS, message, to_text

__all__ = [
    "InvalidMessage",
    "LenientMessageCoercer",
    "MessageCoercerProtocol",
    "StrictMessageCoercer",
    "normalize_message",
    "normalize_messages",
]


class InvalidMessage(RecordError, ValueError):
    """A payload that is not a message (a ``ValueError``, as Jianmu's coercers raise)."""


@runtime_checkable
class MessageCoercerProtocol(Protocol):
    def coerce(self, payload: Any) -> ConversationMessage | None: ...


def from_dict(payload: dict[str, Any]) -> ConversationMessage:
    """A dict as a message (a record, or an agent-format message); else ``InvalidMessage``."""
    try:
        if too_deep(payload, RECORD_DEPTH):
            raise RecordError(f"nested more than {RECORD_DEPTH} levels deep")
        if "textChunks" in payload or "text_chunks" in payload:
            return parse_record(payload, where="message")
        if _jianmu_message(payload):
            rest = {k: v for k, v in payload.items() if k not in ("role", "content")}
            return message(payload["role"], payload["content"], **rest)
        return message_from_object(payload)
    except RecordError as e:
        raise InvalidMessage(
            f"Invalid message payload dict: {e.what}",
            hint=e.hint or "a message dict needs a role and content",
        ) from None


def _jianmu_message(payload: dict[str, Any]) -> bool:
    """A dict that is a Jianmu ``Message`` as it stands (only its fields, one of its roles,
    text or a list of text blocks): read as ``Message(**payload)``, so ``to_dict`` gives it
    back. Other block lists (tool calls, media) go through the format readers, which keep
    each block's structure."""
    content = payload.get("content")
    if isinstance(content, list):
        text_only = all(_text_block(item) for item in content)
    else:
        text_only = isinstance(content, str)
    return text_only and set(payload) <= set(MESSAGE_FIELDS) and payload.get("role") in ROLES


def _text_block(item: Any) -> bool:
    if isinstance(item, str):
        return True
    return (
        isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str)
    )


class StrictMessageCoercer:
    """Accept a message or a valid message dict; refuse everything else."""

    def coerce(self, payload: Any) -> ConversationMessage | None:
        if payload is None:
            return None
        if isinstance(payload, ConversationMessage):
            return payload
        if isinstance(payload, dict):
            return from_dict(payload)
        raise InvalidMessage(
            f"Invalid message payload type: {type(payload).__name__}",
            hint="pass a message or a message dict, or use LenientMessageCoercer",
        )


class LenientMessageCoercer:
    """Best effort, for migration and debugging: what is not a message becomes its text."""

    def coerce(self, payload: Any) -> ConversationMessage | None:
        try:
            return StrictMessageCoercer().coerce(payload)
        except InvalidMessage:
            return message("assistant", str(payload))


def _as_dict(payload: Any) -> dict[str, Any] | None:
    for method in ("model_dump", "to_dict"):
        fn = getattr(payload, method, None)
        if callable(fn):
            try:
                value = fn()
            except TypeError:
                continue
            if isinstance(value, dict):
                return value
    return None


def normalize_message(
    payload: Any,
    *,
    fallback_role: str = "user",
    coercer: MessageCoercerProtocol | None = None,
) -> ConversationMessage | None:
    """One payload as a message, or None when it is empty (see the module docstring)."""
    if coercer is not None:
        return coercer.coerce(payload)
    if payload is None:
        return None
    if isinstance(payload, ConversationMessage):
        return payload
    data = payload if isinstance(payload, dict) else _as_dict(payload)
    if data is not None:
        return from_dict(data)
    text = to_text(payload).strip()
    if not text:
        return None
    if fallback_role not in ROLES:
        raise InvalidMessage(
            f"fallback_role {fallback_role!r} is not a role", hint="one of " + ", ".join(ROLES)
        )
    return message(fallback_role, text)


def normalize_messages(
    payload: Sequence[Any] | Any | None,
    *,
    fallback_role: str = "user",
    coercer: MessageCoercerProtocol | None = None,
) -> list[ConversationMessage]:
    """One payload or a sequence of them as messages, empty ones left out."""
    if payload is None:
        return []
    single = isinstance(payload, str | bytes | dict | ConversationMessage)
    items = list(payload) if isinstance(payload, Sequence) and not single else [payload]
    out = []
    for item in items:
        msg = normalize_message(item, fallback_role=fallback_role, coercer=coercer)
        if msg is not None:
            out.append(msg)
    return out
