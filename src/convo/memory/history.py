"""A conversation history in a JSONL file, for agents: ``JsonlMessageStore`` and its async twin.

The file is the CLI's store format (one convo record per line), appended under the same
``flock`` with the same id dedup (``convo.store.Store``), so ``convo ingest --save``,
``convo query`` and a running agent can share one file.

Decisions (the seed's message module was not available, so the protocol follows issue 10):

- ``append`` returns True when the message was added, False when its id was already in the
  store (the CLI's dedup). ``append_many`` returns the number added. Subscribers hear only
  about added messages: one ``MessageEvent("added", message)`` each, called in the
  appending thread after the write, outside the in-process lock (so a callback may use the
  store). A callback that raises is logged (logger ``convo.message_store``) and the others
  still run: the message is stored either way.
- ``replace`` sends one ``MessageEvent("replaced", messages=...)``.
- A message without an ``id`` gets a fresh one (``m:<uuid hex>``): appending the same text
  twice is two turns. One without a ``timestamp`` is stamped with the current UTC second,
  one without a ``source_id`` gets ``<store file name>#<id>``.
  The caller's object is not modified; the stored copy is what events and reads return.
- Retention: ``max_messages=n`` is shorthand for ``retention=MaxCountRetention(n)``; passing
  both raises ``ValueError``. With a ``merge_fn(old, new) -> messages`` and/or a retention
  policy, an append reads the history, merges (default: old + new), applies the policy and
  rewrites the file atomically, all under the store lock. Without either, an append is a
  plain locked append (no rewrite). Only the new messages whose ids were not yet stored are
  announced, even if retention drops them at once.
- Rewrites (``replace``, retention) go through a temporary file renamed over the store,
  holding the store lock; ``Store.locked`` re-locks the new file for waiters. Lines that
  are not records are moved to ``<store>.torn`` with a warning, never dropped silently;
  reads skip them with a ``RuntimeWarning``. Duplicate ids in ``replace`` keep the first.
- ``coercer(payload) -> ConversationMessage`` turns what the caller appends into a message;
  the default accepts ``ConversationMessage``s and dicts in convo record form (either key
  spelling) and raises ``convo.errors.RecordError`` for anything else.
- Reads parse the whole file each time (no cache): the file may be changed by other
  processes at any moment. Appends with retention are O(history); keep histories modest.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
import uuid
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import orjson

from convo.core.errors import RecordError
from convo.core.io import atomic_writer
from convo.core.jsonl import dumps, iter_lines
from convo.core.record import ConversationMessage
from convo.core.timestamps import format_timestamp_utc
from convo.pipeline.store import Store

__all__ = [
    "AsyncJsonlMessageStore",
    "AsyncMessageStoreProtocol",
    "JsonlMessageStore",
    "MaxCountRetention",
    "MessageEvent",
    "MessageStoreProtocol",
    "RetentionPolicy",
    "default_coercer",
]

log = logging.getLogger("convo.message_store")

Messages = list[ConversationMessage]
MergeFn = Callable[[Messages, Messages], Sequence[ConversationMessage]]
Coercer = Callable[[Any], ConversationMessage]


@dataclass(frozen=True)
class MessageEvent:
    """What subscribers receive: ``added`` (one message) or ``replaced`` (the new history)."""

    event_type: str
    message: ConversationMessage | None = None
    messages: tuple[ConversationMessage, ...] = field(default=())


Callback = Callable[[MessageEvent], Any]


@runtime_checkable
class RetentionPolicy(Protocol):
    def apply(self, messages: Messages) -> Messages: ...


@dataclass(frozen=True)
class MaxCountRetention:
    """Keep the newest ``max_messages`` messages."""

    max_messages: int

    def __post_init__(self) -> None:
        if self.max_messages < 0:
            raise ValueError("max_messages must be 0 or more")

    def apply(self, messages: Messages) -> Messages:
        n = self.max_messages
        return messages[-n:] if n else []


@runtime_checkable
class MessageStoreProtocol(Protocol):
    def append(self, message: Any) -> bool: ...
    def append_many(self, messages: Iterable[Any]) -> int: ...
    def get_messages(self, limit: int | None = None) -> Messages: ...
    def replace(self, messages: Iterable[Any]) -> None: ...
    def subscribe(self, callback: Callback) -> Callback: ...
    def unsubscribe(self, callback: Callback) -> None: ...


@runtime_checkable
class AsyncMessageStoreProtocol(Protocol):
    async def append(self, message: Any) -> bool: ...
    async def append_many(self, messages: Iterable[Any]) -> int: ...
    async def get_messages(self, limit: int | None = None) -> Messages: ...
    async def replace(self, messages: Iterable[Any]) -> None: ...
    def subscribe(self, callback: Callback) -> Callback: ...
    def unsubscribe(self, callback: Callback) -> None: ...


def default_coercer(payload: Any) -> ConversationMessage:
    """Accept a ``ConversationMessage`` or a convo/TypeAgent record dict."""
    if isinstance(payload, ConversationMessage):
        return payload
    if isinstance(payload, dict) and ("textChunks" in payload or "text_chunks" in payload):
        try:
            return ConversationMessage.deserialize(payload)
        except ValueError as e:
            raise RecordError(
                f"not a valid record ({_first_error(e)})", hint="see `convo schema`"
            ) from None
    raise RecordError(
        f"cannot store a {type(payload).__name__} as a message",
        hint="pass a ConversationMessage or a record dict, or give the store a coercer",
    )


def _first_error(e: Exception) -> str:
    errors = getattr(e, "errors", None)
    if callable(errors):
        first = errors()[0]
        return f"{'.'.join(str(x) for x in first['loc'])}: {first['msg']}"
    return str(e).splitlines()[0]


class JsonlMessageStore:
    """A message history in a convo JSONL file; thread-safe and safe across processes."""

    def __init__(
        self,
        path: str | Path,
        *,
        max_messages: int | None = None,
        retention: RetentionPolicy | None = None,
        merge_fn: MergeFn | None = None,
        coercer: Coercer | None = None,
    ):
        if max_messages is not None and retention is not None:
            raise ValueError("give max_messages or retention, not both")
        if max_messages is not None:
            retention = MaxCountRetention(max_messages)
        self.store = Store(path)
        self.path = self.store.path
        self.retention = retention
        self.merge_fn = merge_fn
        self.coercer = coercer or default_coercer
        self._lock = threading.RLock()
        self._subscribers: list[Callback] = []

    # subscribers
    def subscribe(self, callback: Callback) -> Callback:
        """Call ``callback(event)`` after each change; returns it (usable as a decorator)."""
        with self._lock:
            self._subscribers.append(callback)
        return callback

    def unsubscribe(self, callback: Callback) -> None:
        """Stop calling ``callback``; unknown callbacks are ignored."""
        with self._lock:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

    def _notify(self, events: Iterable[MessageEvent]) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for event in events:
            for cb in subscribers:
                try:
                    cb(event)
                except Exception:
                    log.exception("message store subscriber %r failed", cb)

    # writing
    def append(self, message: Any) -> bool:
        """Store one message; False when its id is already in the store."""
        return self.append_many([message]) == 1

    def append_many(self, messages: Iterable[Any]) -> int:
        """Store messages in order; returns how many were new."""
        added = self._append(messages)
        self._notify(MessageEvent("added", m) for m in added)
        return len(added)

    def replace(self, messages: Iterable[Any]) -> None:
        """Make the history exactly ``messages`` (atomic rewrite under the store lock)."""
        new = self._replace(messages)
        self._notify([MessageEvent("replaced", messages=tuple(new))])

    def _prepare(self, messages: Iterable[Any]) -> Messages:
        now = format_timestamp_utc(datetime.now(UTC))
        out = []
        for payload in messages:
            msg = self.coercer(payload)
            changes: dict[str, Any] = {}
            if not msg.id:
                changes["id"] = f"m:{uuid.uuid4().hex}"
            if not msg.timestamp:
                changes["timestamp"] = now
            if not msg.source_id:
                changes["source_id"] = f"{self.path.name}#{changes.get('id') or msg.id}"
            out.append(_copy(replace(msg, **changes) if changes else msg))
        return out

    def _append(self, messages: Iterable[Any]) -> Messages:
        new = self._prepare(messages)
        if not new:
            return []
        with self._lock:
            if self.retention is None and self.merge_fn is None:
                return self._plain_append(new)
            with self.store.locked():
                old = self._read()
                known = {m.id for m in old}
                added = [m for m in _unique(new) if m.id not in known]
                merged = list(self.merge_fn(old, added)) if self.merge_fn else [*old, *added]
                if self.retention is not None:
                    merged = list(self.retention.apply(merged))
                self._write(_unique(merged))
                return added

    def _plain_append(self, new: Messages) -> Messages:
        added: set[str] = set()
        result = self.store.append(
            ((m.id or "", dumps(m.serialize())) for m in new), on_added=added.add
        )
        for note in result.notes:
            warnings.warn(note, RuntimeWarning, stacklevel=4)
        out = []
        for m in new:
            if m.id in added:
                added.discard(m.id)  # a repeated id within the batch is added once
                out.append(m)
        return out

    def _replace(self, messages: Iterable[Any]) -> Messages:
        new = _unique(self._prepare(messages))
        with self._lock, self.store.locked():
            self._read()  # moves unreadable lines aside before they are overwritten
            self._write(new)
        return new

    def _write(self, messages: Messages) -> None:
        with atomic_writer(self.path) as out:
            for m in messages:
                out.write(dumps(m.serialize()))

    # reading
    def get_messages(self, limit: int | None = None) -> Messages:
        """The newest ``limit`` messages (all when None), oldest first."""
        if limit is not None and limit <= 0:
            return []
        with self._lock:
            msgs = self._read(keep=limit, move_bad=False)
        return msgs

    def __len__(self) -> int:
        return len(self.get_messages())

    def _read(self, keep: int | None = None, *, move_bad: bool = True) -> Messages:
        if not self.path.exists():
            return []
        out: deque[ConversationMessage] = deque(maxlen=keep)
        bad: list[bytes] = []
        with open(self.path, "rb") as f:
            for line in iter_lines(f):
                msg = _parse(line.raw)
                if msg is None:
                    bad.append(line.raw)
                    warnings.warn(
                        f"{self.path}:{line.number}: not a record, skipped",
                        RuntimeWarning,
                        stacklevel=3,
                    )
                else:
                    out.append(msg)
        if bad and move_bad:
            with open(f"{self.path}.torn", "ab") as torn:
                torn.write(b"".join(b + b"\n" for b in bad))
            warnings.warn(
                f"{self.path}: {len(bad)} unreadable lines moved to {self.path}.torn",
                RuntimeWarning,
                stacklevel=3,
            )
        return list(out)


def _unique(messages: Iterable[ConversationMessage]) -> Messages:
    seen: set[str | None] = set()
    out = []
    for m in messages:
        if m.id in seen:
            continue
        seen.add(m.id)
        out.append(m)
    return out


def _parse(raw: bytes) -> ConversationMessage | None:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(value, dict):
        return None
    try:
        return ConversationMessage.deserialize(value)
    except ValueError:
        return None


def _copy(msg: ConversationMessage) -> ConversationMessage:
    return ConversationMessage.deserialize(msg.serialize())


class AsyncJsonlMessageStore:
    """The async twin: the same file rules; file work runs in a thread (``asyncio.to_thread``).

    Subscribers are called in the event loop; coroutine callbacks are awaited.
    """

    def __init__(self, path: str | Path, **kwargs: Any):
        self.sync = JsonlMessageStore(path, **kwargs)
        self.path = self.sync.path
        self._subscribers: list[Callback] = []

    def subscribe(self, callback: Callback) -> Callback:
        self._subscribers.append(callback)
        return callback

    def unsubscribe(self, callback: Callback) -> None:
        if callback in self._subscribers:
            self._subscribers.remove(callback)

    async def _notify(self, events: Iterable[MessageEvent]) -> None:
        subscribers = list(self._subscribers)
        for event in events:
            for cb in subscribers:
                try:
                    result = cb(event)
                    if inspect.isawaitable(result):
                        await result
                except Exception:
                    log.exception("message store subscriber %r failed", cb)

    async def append(self, message: Any) -> bool:
        return await self.append_many([message]) == 1

    async def append_many(self, messages: Iterable[Any]) -> int:
        items = list(messages)
        added = await asyncio.to_thread(self.sync._append, items)
        await self._notify(MessageEvent("added", m) for m in added)
        return len(added)

    async def get_messages(self, limit: int | None = None) -> Messages:
        return await asyncio.to_thread(self.sync.get_messages, limit)

    async def replace(self, messages: Iterable[Any]) -> None:
        items = list(messages)
        new = await asyncio.to_thread(self.sync._replace, items)
        await self._notify([MessageEvent("replaced", messages=tuple(new))])
