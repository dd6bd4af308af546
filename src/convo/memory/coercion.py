"""Normalise whatever an agent framework hands you into ``ConversationMessage``s.

``normalize_message`` accepts a ``ConversationMessage``, a convo/TypeAgent record dict,
a message dict of any agent format the chat importers read (OpenAI, Anthropic,
AgentScope, LangMem, AutoGen, Jianmu), an object with ``model_dump()``/``to_dict()``
(pydantic models, AgentScope's ``Msg``), or plain text. What is not a message goes to the
coercer:

- no coercer (default) or ``StrictMessageCoercer``: raise ``RecordError``;
- ``LenientMessageCoercer``: wrap it as a text message (``to_text`` of it) with
  ``fallback_role``.

``to_text`` and the constructors ``system()``, ``human()``, ``ai()``, ``tool()`` live in
``convo.message`` and are re-exported here.

``normalize_messages`` does the same for a list; without a coercer it skips what is not a
message and reports each skip to ``on_skip(index, error)`` (default: a ``warnings`` warning),
so nothing is dropped silently.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any, Protocol, runtime_checkable

from convo.core.errors import RecordError
from convo.core.record import ConversationMessage, ConversationMessageMeta
from convo.memory.messages import ai, human, system, to_text, tool

__all__ = [
    "LenientMessageCoercer",
    "MessageCoercer",
    "StrictMessageCoercer",
    "ai",
    "human",
    "normalize_message",
    "normalize_messages",
    "system",
    "to_text",
    "tool",
]


@runtime_checkable
class MessageCoercer(Protocol):
    def __call__(self, payload: Any, *, fallback_role: str = "user") -> ConversationMessage: ...


class StrictMessageCoercer:
    """Refuse anything that is not a message."""

    def __call__(self, payload: Any, *, fallback_role: str = "user") -> ConversationMessage:
        raise RecordError(
            f"not a message ({type(payload).__name__})",
            hint="pass a message dict, a ConversationMessage, or use LenientMessageCoercer",
        )


class LenientMessageCoercer:
    """Wrap anything as a text message with ``fallback_role``."""

    def __call__(self, payload: Any, *, fallback_role: str = "user") -> ConversationMessage:
        if isinstance(payload, dict | list):
            import orjson

            try:
                text = to_text(payload) or orjson.dumps(payload).decode()
            except TypeError:
                text = str(payload)
        else:
            text = to_text(payload)
        return _make(fallback_role, text)


def _as_dict(payload: Any) -> dict[str, Any] | None:
    if isinstance(payload, dict):
        return payload
    for method in ("model_dump", "to_dict", "dict"):
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
    payload: Any, *, fallback_role: str = "user", coercer: MessageCoercer | None = None
) -> ConversationMessage:
    """One payload as a ``ConversationMessage`` (see the module docstring)."""
    if isinstance(payload, ConversationMessage):
        return payload
    if isinstance(payload, str | bytes | bytearray):
        return _make(fallback_role, to_text(payload))
    data = _as_dict(payload)
    try:
        if data is None:
            raise RecordError(f"not a message ({type(payload).__name__})")
        if "textChunks" in data or "text_chunks" in data:
            from convo.core.record import parse_record

            return parse_record(data, where="record")
        from convo.importers.agents.reader import message_from_object

        return message_from_object(data, fallback_role=fallback_role)
    except RecordError:
        if coercer is None:
            raise
        return coercer(payload, fallback_role=fallback_role)


def normalize_messages(
    payloads: Iterable[Any],
    *,
    fallback_role: str = "user",
    coercer: MessageCoercer | None = None,
    on_skip: Callable[[int, RecordError], None] | None = None,
) -> list[ConversationMessage]:
    """Many payloads; without a coercer, non-messages are skipped and reported to ``on_skip``."""
    out: list[ConversationMessage] = []
    for i, payload in enumerate(payloads):
        try:
            out.append(normalize_message(payload, fallback_role=fallback_role, coercer=coercer))
        except RecordError as e:
            if coercer is not None:
                raise
            if on_skip is not None:
                on_skip(i, e)
            else:
                warnings.warn(f"skipped item {i}: {e}", stacklevel=2)
    return out


def _make(role: str, text: str) -> ConversationMessage:
    return ConversationMessage([text], ConversationMessageMeta(speaker=role), role=role)
