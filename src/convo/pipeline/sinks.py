"""Where ``convo ingest`` writes: a file (atomically), standard output, or the store.

Each sink consumes the whole message stream, so the ingest's counts are final when it
returns. A file is replaced only when everything was written (a device or FIFO is written
into, see ``convo.core.atomic.atomic_writer``); the store appends all or nothing.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from typing import BinaryIO

from convo.core.atomic import atomic_writer
from convo.core.io import COPY_BYTES
from convo.core.record import ConversationMessage
from convo.store import AppendResult, Store
from convo.store.lines import ReadyBlock, ReadyLine, jsonl_line


def to_file(messages: Iterable[ConversationMessage | ReadyLine | ReadyBlock], path: str) -> None:
    """Write JSONL to ``path`` atomically (nothing is replaced on an error or Ctrl-C)."""
    with atomic_writer(path) as out:
        for msg in messages:
            out.write(jsonl_line(msg))


def to_stdout(
    messages: Iterable[ConversationMessage | ReadyLine | ReadyBlock], out: BinaryIO, *, strict: bool
) -> None:
    """Write JSONL to ``out``; with ``strict`` nothing is written before the input is clean."""
    if strict:
        with tempfile.TemporaryFile(prefix=".convo-spool-") as spool:
            for msg in messages:
                spool.write(jsonl_line(msg))
            spool.seek(0)
            for chunk in iter(lambda: spool.read(COPY_BYTES), b""):
                out.write(chunk)
    else:
        for msg in messages:
            out.write(jsonl_line(msg))
    out.flush()


def to_store(
    messages: Iterable[ConversationMessage | ReadyLine | ReadyBlock],
    store: Store,
    *,
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> AppendResult:
    """Append the new messages to ``store``, all or none (see ``Store.append_messages``)."""
    return store.append_messages(messages, wait=wait, on_wait=on_wait)
