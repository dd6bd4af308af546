"""Jianmu's message store over a convo JSONL file: ``JsonlMessageStore`` and its async twin.

The store follows Jianmu's ``StateMessageStore`` (its documentation is the reference for
names, defaults and errors); the state is a convo store file (one record a line), appended
under the CLI store's ``flock`` with its id dedup (``convo.store.Store``), so
``convo ingest --save``, ``convo query`` and a running agent can share one file.

- ``JsonlMessageStore(path, max_messages=None, *, key="messages", namespace=None,
  coercer=None, retention=None, merge_fn=None)``. The default coercer is
  ``StrictMessageCoercer`` (a message, or a dict read as a message; ``None`` is skipped).
  ``retention`` with ``max_messages`` or with ``merge_fn`` raises ``ValueError``; an async
  ``merge_fn`` raises ``TypeError``; ``max_messages`` truncates after ``merge_fn``.
- ``key``/``namespace``: one file holds several histories. The default history
  (``key="messages"``, no namespace) is every record without a history mark, so the CLI's
  records are in it. Any other history ``NAMESPACE/KEY`` marks its records with
  ``extra["history"]`` and prefixes their stored ids with ``NAMESPACE/KEY#`` (removed on
  reading), so two histories never see, or deduplicate against, each other's messages.
- Every stored message passes ``convo.core.record.check_message``, the rule ``convo
  validate`` applies: its time is normalised to UTC "Z"; empty ``textChunks`` raise
  ``RecordError``. A message without ``id`` gets ``m:<uuid hex>``, without ``timestamp``
  the current UTC second, without ``source_id`` ``<file name>#<id>``. The caller's object
  is not modified; the stored copy is what events and reads return.
- ``append``/``append_many`` send one ``MessageEvent("added", message)`` per message that
  was new (convo returns True / the count; an id already stored is not added again).
  ``replace(messages, signal=True)`` rewrites the history; with ``signal`` the messages it
  brings that were not there before are announced as added. Callbacks run in the caller's
  thread after the write, outside the lock; one that raises is logged (logger
  ``convo.message_store``) and the others still run.
- Rewrites (``replace``, ``merge_fn``/retention) go through a temporary file renamed over
  the store under the store lock, keeping other histories' lines; lines that are not
  records are moved to ``<store>.torn`` with a warning, never dropped silently; reads skip
  them with a ``RuntimeWarning``. Reads parse the file each time (other processes may
  write it at any moment); appends with a merge are O(file).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
import uuid
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import orjson

from convo.core.atomic import atomic_writer
from convo.core.errors import RecordError
from convo.core.io import open_binary
from convo.core.jsonl import dumps, iter_lines
from convo.core.plural import counted
from convo.core.record import ConversationMessage, check_message, parse_record
from convo.core.timestamps import format_timestamp_utc
from convo.memory.coercion import MessageCoercerProtocol, StrictMessageCoercer, normalize_messages
from convo.store import Store

__all__ = [
    "AsyncJsonlMessageStore",
    "AsyncMessageStoreProtocol",
    "JsonlMessageStore",
    "MaxCountRetention",
    "MergeFnProtocol",
    "MessageEvent",
    "MessageStoreProtocol",
    "RetentionPolicyProtocol",
]

log = logging.getLogger("convo.message_store")

Messages = list[ConversationMessage]
DEFAULT_KEY = "messages"


@dataclass(frozen=True)
class MessageEvent:
    """A lifecycle event of a message in the store; ``event_type`` is ``"added"``."""

    event_type: Literal["added"]
    message: ConversationMessage

    def __post_init__(self) -> None:
        if self.event_type != "added":
            raise ValueError(f"unknown event_type {self.event_type!r} (only 'added')")


Callback = Callable[[MessageEvent], Any]


@runtime_checkable
class RetentionPolicyProtocol(Protocol):
    def apply(self, existing: Messages, incoming: Messages) -> Messages: ...


@runtime_checkable
class MergeFnProtocol(Protocol):
    def __call__(self, existing: Messages, incoming: Messages) -> Messages: ...


class MaxCountRetention:
    """Keep only the newest ``max_messages`` (None or 0 or less: keep all)."""

    def __init__(self, max_messages: int | None = 50):
        self.max_messages = max_messages

    def apply(self, existing: Messages, incoming: Messages) -> Messages:
        """Append ``incoming`` and truncate to the newest entries."""
        return _tail([*existing, *incoming], self.max_messages)


@runtime_checkable
class MessageStoreProtocol(Protocol):
    def append(self, message: Any) -> Any: ...
    def append_many(self, messages: Sequence[Any]) -> Any: ...
    def get_messages(self, limit: int | None = None) -> Messages: ...
    def subscribe(self, callback: Callback) -> Callback: ...
    def unsubscribe(self, callback: Callback) -> None: ...


@runtime_checkable
class AsyncMessageStoreProtocol(Protocol):
    async def append(self, message: Any) -> Any: ...
    async def append_many(self, messages: Sequence[Any]) -> Any: ...
    async def get_messages(self, limit: int | None = None) -> Messages: ...
    def subscribe(self, callback: Callback) -> Callback: ...
    def unsubscribe(self, callback: Callback) -> None: ...


def _tail(messages: Messages, limit: int | None) -> Messages:
    if limit and limit > 0 and len(messages) > limit:
        return messages[-limit:]
    return messages


class _Subscribers:
    """Registered callbacks, under a lock; ``unsubscribe`` of an unknown one is a no-op."""

    def __init__(self) -> None:
        self.callbacks: list[Callback] = []
        self.lock = threading.Lock()

    def subscribe(self, callback: Callback) -> Callback:
        with self.lock:
            self.callbacks.append(callback)
        return callback

    def unsubscribe(self, callback: Callback) -> None:
        with self.lock:
            try:
                self.callbacks.remove(callback)
            except ValueError:
                return

    def snapshot(self) -> list[Callback]:
        with self.lock:
            return list(self.callbacks)


class JsonlMessageStore:
    """A message history in a convo JSONL file; thread-safe and safe across processes."""

    def __init__(
        self,
        path: str | Path,
        max_messages: int | None = None,
        *,
        key: str = DEFAULT_KEY,
        namespace: str | None = None,
        coercer: MessageCoercerProtocol | None = None,
        retention: RetentionPolicyProtocol | None = None,
        merge_fn: MergeFnProtocol | None = None,
    ):
        if retention is not None and max_messages is not None:
            raise ValueError(
                "Do not pass both 'retention' and 'max_messages'. Configure retention in one place."
            )
        if retention is not None and merge_fn is not None:
            raise ValueError(
                "Do not pass both 'retention' and 'merge_fn'. Configure merge strategy in one place."
            )
        if merge_fn is not None and inspect.iscoroutinefunction(merge_fn):
            raise TypeError(
                "merge_fn must be a sync function. For async I/O, implement an async store backend."
            )
        if not isinstance(key, str) or not key:
            raise ValueError("key must be a non-empty string")
        self.store = Store(path)
        self.path = self.store.path
        self.key = key
        self.namespace = namespace
        self.history = f"{namespace}/{key}" if namespace is not None else key
        self.coercer: MessageCoercerProtocol = coercer or StrictMessageCoercer()
        self.merge_fn: MergeFnProtocol | None = retention.apply if retention else merge_fn
        self.max_messages = None if retention is not None else max_messages
        self._lock = threading.RLock()
        self._subscribers = _Subscribers()

    # subscribers
    def subscribe(self, callback: Callback) -> Callback:
        """Call ``callback(event)`` for each added message; returns it (the unsubscribe token)."""
        return self._subscribers.subscribe(callback)

    def unsubscribe(self, callback: Callback) -> None:
        """Stop calling ``callback``; an unknown callback is ignored."""
        self._subscribers.unsubscribe(callback)

    def notify(self, added: Messages) -> None:
        """Tell the subscribers about ``added`` (one event a message, in order)."""
        callbacks = self._subscribers.snapshot()
        for msg in added:
            event = MessageEvent("added", msg)
            for cb in callbacks:
                try:
                    cb(event)
                except Exception:
                    log.exception("message store subscriber %r failed", cb)

    # writing
    def append(self, message: Any) -> bool:
        """Append one message through the coercer; False when its id is already stored."""
        return self.append_many([message]) == 1

    def append_many(self, messages: Sequence[Any]) -> int:
        """Append messages in order and announce each new one; returns how many were new."""
        added = self.write_appended(list(messages))
        self.notify(added)
        return len(added)

    def replace(self, messages: Sequence[Any], *, signal: bool = True) -> None:
        """Make the history exactly ``messages``; ``signal`` announces the ones that are new."""
        added = self.write_replaced(list(messages))
        if signal:
            self.notify(added)

    def coerce_all(self, payloads: Sequence[Any]) -> Messages:
        """The coercer's messages for ``payloads`` (``None`` results skipped)."""
        out = []
        for payload in payloads:
            msg = self.coercer.coerce(payload)
            if msg is not None:
                out.append(msg)
        return out

    def prepare(self, messages: Messages) -> Messages:
        """Stored copies: id, time and source_id filled in, checked as ``validate`` does."""
        now = format_timestamp_utc(datetime.now(UTC))
        out = []
        for msg in messages:
            data = msg.serialize() | {"id": msg.id, "timestamp": msg.timestamp}
            copy = ConversationMessage.deserialize(data)
            copy.id = copy.id or f"m:{uuid.uuid4().hex}"
            copy.timestamp = copy.timestamp or now
            copy.source_id = copy.source_id or f"{self.path.name}#{copy.id}"
            out.append(check_message(copy, where=str(self.path)))
        return out

    def write_appended(self, payloads: Sequence[Any]) -> Messages:
        """Store the payloads (no events); returns the messages that were new."""
        new = self.prepare(self.coerce_all(payloads))
        if not new:
            return []
        with self._lock:
            if self.merge_fn is None and self.max_messages is None:
                return self._plain_append(new)
            with self.store.locked():
                old = self._read()
                known = {m.id for m in old}
                added = [m for m in _unique(new) if m.id not in known]
                merged = list(self.merge_fn(old, added)) if self.merge_fn else [*old, *added]
                self._rewrite(_unique(self.prepare(_tail(merged, self.max_messages))))
                return added

    def write_replaced(self, payloads: Sequence[Any]) -> Messages:
        """Rewrite the history (no events); returns the messages it did not hold before."""
        new = _unique(self.prepare(self.coerce_all(payloads)))
        with self._lock, self.store.locked():
            known = {m.id for m in self._read()}
            self._rewrite(new)
        return [m for m in new if m.id not in known]

    def _plain_append(self, new: Messages) -> Messages:
        added: set[str] = set()
        items = []
        for m in new:
            rec = self._stored(m)
            items.append((rec["id"], dumps(rec)))
        result = self.store.append(items, on_added=added.add)
        for note in result.notes:
            warnings.warn(note, RuntimeWarning, stacklevel=4)
        out = []
        for m, (rid, _) in zip(new, items, strict=True):
            if rid in added:
                added.discard(rid)  # a repeated id within the batch is added once
                out.append(m)
        return out

    def _stored(self, msg: ConversationMessage) -> dict[str, Any]:
        """The record written for ``msg``: marked with its history unless the default."""
        rec = msg.serialize()
        if self.history != DEFAULT_KEY:
            rec["id"] = f"{self.history}#{rec['id']}"
            rec["extra"] = {**(rec.get("extra") or {}), "history": self.history}
        return rec

    def _rewrite(self, messages: Messages) -> None:
        """Replace this history's lines by ``messages``; other histories' lines are kept."""
        others, bad = self._scan(lambda rec, raw: None if self._mine(rec) else raw)
        self._move_bad(bad)
        with atomic_writer(self.store.real, guarded=False) as out:  # the store itself
            for raw in others:
                out.write(raw + b"\n")
            for m in messages:
                out.write(dumps(self._stored(m)))

    # reading
    def get_messages(self, limit: int | None = None) -> Messages:
        """The stored messages, oldest first; ``limit`` > 0 keeps the newest that many."""
        with self._lock:
            return _tail(self._read(move_bad=False), limit)

    def read_input(
        self, raw: Any, *, fallback_role: str = "user", limit: int | None = None
    ) -> Messages:
        """Normalise one raw payload into messages (a list through the store's coercer)."""
        if isinstance(raw, list):
            messages = self.coerce_all(raw)
        else:
            messages = normalize_messages(raw, fallback_role=fallback_role)
        return _tail(messages, limit)

    def __len__(self) -> int:
        return len(self.get_messages())

    def _mine(self, rec: dict[str, Any]) -> bool:
        extra = rec.get("extra")
        mark = extra.get("history") if isinstance(extra, dict) else None
        return (mark or DEFAULT_KEY) == self.history

    def _message(self, rec: dict[str, Any], raw: bytes) -> ConversationMessage | None:
        if not self._mine(rec):
            return None
        if self.history != DEFAULT_KEY:
            rec = dict(rec, extra={k: v for k, v in rec["extra"].items() if k != "history"})
            prefix = f"{self.history}#"
            if isinstance(rec.get("id"), str) and rec["id"].startswith(prefix):
                rec["id"] = rec["id"][len(prefix) :]
        return parse_record(rec, str(self.path))

    def _read(self, *, move_bad: bool = True) -> Messages:
        messages, bad = self._scan(self._message)
        if move_bad:
            self._move_bad(bad)
        return messages

    def _scan(self, pick: Callable[[dict[str, Any], bytes], Any]) -> tuple[list[Any], list[bytes]]:
        """``pick(record, raw)`` of every line (None results left out), and the bad lines."""
        if not self.path.exists():
            return [], []
        out: list[Any] = []
        bad: list[bytes] = []
        with open_binary(self.path) as f:
            for line in iter_lines(f):
                try:
                    value = orjson.loads(line.raw)
                    if not isinstance(value, dict):
                        raise RecordError("not a record")
                    picked = pick(value, line.raw)
                except (orjson.JSONDecodeError, RecordError):
                    bad.append(line.raw)
                    warnings.warn(
                        f"{self.path}:{line.number}: not a record, skipped",
                        RuntimeWarning,
                        stacklevel=4,
                    )
                    continue
                if picked is not None:
                    out.append(picked)
        return out, bad

    def _move_bad(self, bad: list[bytes]) -> None:
        if not bad:
            return
        with open(f"{self.store.real}.torn", "ab") as torn:
            torn.write(b"".join(b + b"\n" for b in bad))
        warnings.warn(
            f"{self.path}: {counted(len(bad), 'unreadable line')} moved to {self.path}.torn",
            RuntimeWarning,
            stacklevel=4,
        )


def _unique(messages: Messages) -> Messages:
    seen: set[str | None] = set()
    out = []
    for m in messages:
        if m.id not in seen:
            seen.add(m.id)
            out.append(m)
    return out


class AsyncJsonlMessageStore:
    """The async twin (``AsyncMessageStoreProtocol``): the same file, the same rules.

    File work runs in a thread (``asyncio.to_thread``); subscribers are called in the event
    loop, and coroutine callbacks are awaited.
    """

    def __init__(self, path: str | Path, max_messages: int | None = None, **kwargs: Any):
        self.sync = JsonlMessageStore(path, max_messages, **kwargs)
        self.path = self.sync.path
        self._subscribers = _Subscribers()

    def subscribe(self, callback: Callback) -> Callback:
        return self._subscribers.subscribe(callback)

    def unsubscribe(self, callback: Callback) -> None:
        self._subscribers.unsubscribe(callback)

    async def _notify(self, added: Messages) -> None:
        callbacks = self._subscribers.snapshot()
        for msg in added:
            event = MessageEvent("added", msg)
            for cb in callbacks:
                try:
                    result = cb(event)
                    if inspect.isawaitable(result):
                        await result
                except Exception:
                    log.exception("message store subscriber %r failed", cb)

    async def append(self, message: Any) -> bool:
        return await self.append_many([message]) == 1

    async def append_many(self, messages: Sequence[Any]) -> int:
        added = await asyncio.to_thread(self.sync.write_appended, list(messages))
        await self._notify(added)
        return len(added)

    async def get_messages(self, limit: int | None = None) -> Messages:
        return await asyncio.to_thread(self.sync.get_messages, limit)

    async def replace(self, messages: Sequence[Any], *, signal: bool = True) -> None:
        added = await asyncio.to_thread(self.sync.write_replaced, list(messages))
        if signal:
            await self._notify(added)

    def read_input(
        self, raw: Any, *, fallback_role: str = "user", limit: int | None = None
    ) -> Messages:
        return self.sync.read_input(raw, fallback_role=fallback_role, limit=limit)
