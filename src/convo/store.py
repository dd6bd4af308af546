"""The store: one JSONL file that ``ingest --save`` appends to and read commands default to.

Where it lives: ``--store PATH``, else ``$CONVO_STORE``, else
``$XDG_DATA_HOME/convo/messages.jsonl`` (``~/.local/share/convo/messages.jsonl``).

Appends take an exclusive ``flock`` on the file, skip ids already present, write whole
lines and fsync each batch. A torn tail left by a killed writer is moved aside to
``<store>.torn`` (and reported) before the next append, so lines never interleave or split.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from .jsonl import iter_lines

BATCH_BYTES = 1 << 20


def default_store_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("CONVO_STORE")
    if env:
        return Path(env).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return Path(data_home) / "convo" / "messages.jsonl"


@dataclass
class AppendResult:
    added: int = 0
    duplicates: int = 0
    torn_bytes: int = 0  # bytes of a torn tail moved to <store>.torn
    notes: list[str] = field(default_factory=list)


def record_id(raw: bytes) -> str | None:
    """The ``id`` of a raw JSONL line, or None when the line is not a record."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if isinstance(value, dict):
        rid = value.get("id")
        return rid if isinstance(rid, str) else None
    return None


class Store:
    """The JSONL store file. Reading needs no lock; appending takes an exclusive one."""

    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = default_store_path(path)

    def exists(self) -> bool:
        return self.path.exists()

    def ids(self) -> set[str]:
        """Every id in the store (one streaming pass)."""
        if not self.path.exists():
            return set()
        with open(self.path, "rb") as f:
            return _ids_of(f)

    @contextlib.contextmanager
    def locked(self) -> Iterator[int]:
        """An exclusive lock on the store, yielding an O_APPEND descriptor."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield fd
        finally:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def append(self, items: Iterable[tuple[str, bytes]]) -> AppendResult:
        """Append ``(id, line)`` pairs whose id is not in the store yet.

        ``line`` is one JSONL line including its newline. The whole call holds the lock,
        so two concurrent ingests never interleave and never both add the same id.
        """
        result = AppendResult()
        with self.locked() as fd:
            result.torn_bytes = self._repair_tail(fd)
            if result.torn_bytes:
                result.notes.append(
                    f"{self.path}: a torn last line ({result.torn_bytes} bytes) from an interrupted "
                    f"write was moved to {self.path}.torn"
                )
            with open(self.path, "rb") as f:
                seen = _ids_of(f)
            buf: list[bytes] = []
            size = 0
            for rid, line in items:
                if rid in seen:
                    result.duplicates += 1
                    continue
                seen.add(rid)
                buf.append(line)
                size += len(line)
                result.added += 1
                if size >= BATCH_BYTES:
                    _write_all(fd, b"".join(buf))
                    buf.clear()
                    size = 0
            if buf:
                _write_all(fd, b"".join(buf))
        return result

    def _repair_tail(self, fd: int) -> int:
        end = os.lseek(fd, 0, os.SEEK_END)
        if end == 0:
            return 0
        if os.pread(fd, 1, end - 1) == b"\n":
            return 0
        # Find the last newline; everything after it is a partial record.
        pos = end
        chunk = 1 << 16
        cut = 0
        while pos > 0:
            start = max(0, pos - chunk)
            data = os.pread(fd, pos - start, start)
            i = data.rfind(b"\n")
            if i >= 0:
                cut = start + i + 1
                break
            pos = start
        tail = os.pread(fd, end - cut, cut)
        with open(f"{self.path}.torn", "ab") as torn:
            torn.write(tail + b"\n")
        os.ftruncate(fd, cut)
        os.fsync(fd)
        return len(tail)


def _ids_of(stream) -> set[str]:
    ids: set[str] = set()
    for line in iter_lines(stream):
        rid = record_id(line.raw)
        if rid is not None:
            ids.add(rid)
    return ids


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
    os.fsync(fd)
