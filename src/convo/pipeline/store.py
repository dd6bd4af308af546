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
import hashlib
import os
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from convo.core.jsonl import iter_lines

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
        if self.path.is_dir():
            from convo.core.errors import InputError

            raise InputError(
                "the store is a directory", where=str(self.path), hint="--store names a JSONL file"
            )

    def exists(self) -> bool:
        return self.path.exists()

    def ids(self) -> IdSet:
        """Every id in the store (one streaming pass), as a compact set."""
        if not self.path.exists():
            return IdSet()
        with open(self.path, "rb") as f:
            return _ids_of(f)

    @contextlib.contextmanager
    def locked(self) -> Iterator[int]:
        """An exclusive lock on the store, yielding an O_APPEND descriptor."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX)
            # A rewrite (JsonlMessageStore.replace) renames a new file over the path while
            # holding the lock; whoever waited on the old file must lock the new one.
            if _same_file(fd, self.path):
                break
            os.close(fd)
        try:
            yield fd
        finally:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def append(
        self, items: Iterable[tuple[str, bytes]], on_added: Callable[[str], None] | None = None
    ) -> AppendResult:
        """Append ``(id, line)`` pairs whose id is not in the store yet.

        ``line`` is one JSONL line including its newline. The whole call holds the lock,
        so two concurrent ingests never interleave and never both add the same id.
        ``on_added(id)`` is called for each id that is new.
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
                if not seen.add(rid):
                    result.duplicates += 1
                    continue
                buf.append(line)
                size += len(line)
                result.added += 1
                if on_added is not None:
                    on_added(rid)
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


class IdSet:
    """A set of ids kept as 64-bit hashes in one open-addressing array.

    About 16 bytes an id instead of ~150 for a set of str, so dedup against a store of
    millions of messages stays within a few tens of MB. Two different ids collide with
    probability ~n²/2⁶⁵ (about 3 in a million for ten million ids); a collision would make
    the second id count as a duplicate.
    """

    def __init__(self, capacity: int = 1 << 12):
        self._table = array("Q", bytes(8 * capacity))
        self._mask = capacity - 1
        self._n = 0

    def __len__(self) -> int:
        return self._n

    @staticmethod
    def _key(rid: str) -> int:
        digest = hashlib.blake2b(rid.encode("utf-8", "surrogatepass"), digest_size=8).digest()
        return int.from_bytes(digest, "little") or 1  # 0 marks an empty slot

    def __contains__(self, rid: str) -> bool:
        key = self._key(rid)
        table, mask = self._table, self._mask
        i = key & mask
        while True:
            slot = table[i]
            if slot == key:
                return True
            if slot == 0:
                return False
            i = (i + 1) & mask

    def add(self, rid: str) -> bool:
        """Add ``rid``; True when it was not there yet."""
        if (self._n + 1) * 3 > len(self._table) * 2:
            self._grow()
        return self._insert(self._key(rid))

    def _insert(self, key: int) -> bool:
        table, mask = self._table, self._mask
        i = key & mask
        while True:
            slot = table[i]
            if slot == key:
                return False
            if slot == 0:
                table[i] = key
                self._n += 1
                return True
            i = (i + 1) & mask

    def _grow(self) -> None:
        old = self._table
        self._table = array("Q", bytes(16 * len(old)))
        self._mask = len(self._table) - 1
        self._n = 0
        for key in old:
            if key:
                self._insert(key)


def _ids_of(stream) -> IdSet:
    ids = IdSet()
    for line in iter_lines(stream):
        rid = record_id(line.raw)
        if rid is not None:
            ids.add(rid)
    return ids


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    own = os.fstat(fd)
    return (own.st_dev, own.st_ino) == (st.st_dev, st.st_ino)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
    os.fsync(fd)
