"""Keeping the index current: staleness, incremental update, rebuild, check and drop.

Staleness: the index remembers the store's device and inode, its mtime, how many bytes
it indexed (whole lines) and checksums of the first and last 64 KiB of those bytes.
- same inode, size and mtime: fresh (nothing read);
- same inode, bigger, both checksums unchanged: appended, so only the tail is indexed;
- anything else (another file renamed over the store, truncated, edited, or the same
  size with another mtime): rebuilt, into a temporary file renamed over the old index.
An edit in the middle of a store that also grew is not seen by this check;
``convo index --check`` compares every row with the store.

``sync`` assumes the caller holds the store lock (the store's append path, maintenance);
``refresh`` takes the lock itself. Neither raises for index trouble: a broken index file
is rebuilt, and when that is impossible the result says ``unavailable``.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from convo.index import schema
from convo.index.lock import store_lock
from convo.index.rows import end_of_whole_lines, iter_spans, row_of
from convo.index.writer import Writer

SUM_BYTES = 1 << 16
Track = Callable[[Iterable[Any]], Iterable[Any]]


@dataclass
class Status:
    """What the index knows of the store, without changing anything."""

    state: str  # fresh | append | rebuild | missing | unavailable
    reason: str = ""
    messages: int = 0

    @property
    def fresh(self) -> bool:
        return self.state == "fresh"


@dataclass
class SyncResult:
    action: str  # fresh | appended | rebuilt | unavailable
    added: int = 0
    reason: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def available(self) -> bool:
        return self.action != "unavailable"


def _sums(f: IO[bytes], end: int) -> tuple[str, str]:
    f.seek(0)
    head = f.read(min(SUM_BYTES, end))
    lo = max(0, end - SUM_BYTES)
    f.seek(lo)
    tail = f.read(end - lo)
    return hashlib.blake2b(head, digest_size=16).hexdigest(), hashlib.blake2b(
        tail, digest_size=16
    ).hexdigest()


def store_meta(f: IO[bytes], end: int) -> dict[str, object]:
    """The meta values describing ``f`` indexed up to ``end``."""
    st = os.fstat(f.fileno())
    head, tail = _sums(f, end)
    return {
        "store_dev": st.st_dev, "store_ino": st.st_ino, "store_mtime_ns": st.st_mtime_ns,
        "store_size": st.st_size, "indexed_bytes": end, "head_sum": head, "tail_sum": tail,
    }  # fmt: skip


def judge(meta: dict[str, str], f: IO[bytes]) -> tuple[str, str]:
    """(``fresh``/``append``/``rebuild``, why) for the open store ``f``."""
    st = os.fstat(f.fileno())
    if meta.get("schema_version") != schema.SCHEMA_VERSION:
        return "rebuild", "made by another version of convo"
    if (str(st.st_dev), str(st.st_ino)) != (meta.get("store_dev"), meta.get("store_ino")):
        return "rebuild", "the store was replaced"
    indexed = int(meta.get("indexed_bytes", "-1"))
    if st.st_size < indexed:
        return "rebuild", "the store was truncated"
    same_time = str(st.st_mtime_ns) == meta.get("store_mtime_ns")
    if st.st_size == int(meta.get("store_size", "-1")) and same_time:
        return ("fresh", "") if st.st_size == indexed else ("append", "a partial last line")
    if _sums(f, indexed) != (meta.get("head_sum"), meta.get("tail_sum")):
        return "rebuild", "the store was edited"
    if st.st_size == indexed and meta.get("store_size") == str(indexed):
        return "rebuild", "the store was rewritten in place"
    return "append", "the store grew" if st.st_size > indexed else "a partial last line was cut"


def _read_meta(ipath: Path) -> dict[str, str] | None:
    if not ipath.exists():
        return None
    conn = None
    try:
        # A journal left by a killed writer is rolled back by the first writable open.
        hot = Path(f"{ipath}-journal").exists()
        conn = schema.connect(ipath, readonly=not hot)
        return schema.read_meta(conn)
    except sqlite3.Error:
        return {}
    finally:
        schema.close_quietly(conn)


def status(store_path: str | os.PathLike[str]) -> Status:
    """Whether the index can answer for the store as it is now (read-only)."""
    ipath = schema.index_path(store_path)
    meta = _read_meta(ipath)
    if meta is None:
        return Status("missing", "no index")
    if not meta:
        return Status("rebuild", "the index file is unreadable")
    try:
        with open(store_path, "rb") as f:
            state, reason = judge(meta, f)
    except OSError as e:
        return Status("unavailable", f"cannot read the store ({e.strerror})")
    return Status(state, reason, int(meta.get("messages", "0")))


def index_lines(conn: sqlite3.Connection, f: IO[bytes], start: int, track: Track | None):
    """Index whole lines from ``start``; returns (added, bad lines, end)."""
    size = os.fstat(f.fileno()).st_size
    end = end_of_whole_lines(f, size, start)
    writer = Writer(conn, empty=start == 0)
    bad = 0
    spans: Iterable[tuple[int, int, bytes]] = _upto(iter_spans(f, start), end)
    if track is not None:
        spans = track(spans)
    add, loads, error = writer.add, orjson.loads, orjson.JSONDecodeError
    with _no_gc():
        for offset, length, raw in spans:
            try:
                record = loads(raw)
            except error:
                record = None
            if type(record) is dict:  # what rows.parse accepts, inlined: this runs per line
                add(offset, length, row_of(record))
            else:
                bad += 1
        writer.flush()
    return writer.added, bad, end


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """The cycle collector paused: a build makes millions of short-lived tuples and
    dicts, none in cycles, and each collection would walk the batches held so far."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _upto(spans: Iterator[tuple[int, int, bytes]], end: int) -> Iterator[tuple[int, int, bytes]]:
    for span in spans:
        if span[0] >= end:
            return
        yield span


def _finish(conn: sqlite3.Connection, f: IO[bytes], end: int, added: int, bad: int) -> None:
    meta = schema.read_meta(conn)
    values = store_meta(f, end)
    values["messages"] = int(meta.get("messages", "0")) + added
    values["bad_lines"] = int(meta.get("bad_lines", "0")) + bad
    schema.write_meta(conn, values)


def rebuild(store_path: Path, f: IO[bytes], track: Track | None = None) -> int:
    """Build a new index from scratch, renamed over the old one; returns its messages."""
    ipath = schema.index_path(store_path)
    tmp = ipath.with_name(f"{ipath.name}.tmp-{os.getpid()}")
    for old in ipath.parent.glob(f"{ipath.name}.tmp-*"):
        with contextlib.suppress(OSError):
            old.unlink()  # left by a killed build (builds run under the store lock)
    conn = schema.connect(tmp)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA cache_size = -262144")  # 256 MiB: bulk inserts out of key order
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.execute("BEGIN")
        schema.create(conn)
        added, bad, end = index_lines(conn, f, 0, track)
        for statement in schema.INDEXES.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')")  # one b-tree
        _finish(conn, f, end, added, bad)
        conn.execute("COMMIT")
        conn.close()
        _fsync(tmp)
        _read_meta(ipath)  # roll back a hot journal of the old file, so none is left
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{ipath}-journal")  # never let an old journal apply to the new file
        os.replace(tmp, ipath)
    except BaseException:
        schema.close_quietly(conn)
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return added


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def append(store_path: Path, f: IO[bytes], meta: dict[str, str], track: Track | None) -> int:
    """Index the lines appended since the last update, in one transaction."""
    conn = schema.connect(schema.index_path(store_path))
    try:
        conn.execute("BEGIN IMMEDIATE")
        added, bad, end = index_lines(conn, f, int(meta["indexed_bytes"]), track)
        _finish(conn, f, end, added, bad)
        conn.execute("COMMIT")
    finally:
        schema.close_quietly(conn)
    return added


def sync(
    store_path: str | os.PathLike[str], *, create: bool = True, track: Track | None = None
) -> SyncResult:
    """Bring the index up to date with the store. The caller holds the store lock."""
    path = Path(store_path)
    ipath = schema.index_path(path)
    try:
        meta = _read_meta(ipath)
        if meta is None and not create:
            return SyncResult("unavailable", reason="no index")
        with open(path, "rb") as f:
            state, reason = judge(meta, f) if meta else ("rebuild", "no index")
            if state == "fresh":
                return SyncResult("fresh")
            if state == "append" and meta:
                return SyncResult("appended", append(path, f, meta, track), reason)
            return SyncResult("rebuilt", rebuild(path, f, track), reason)
    except FileNotFoundError:
        return SyncResult("unavailable", reason="no store")
    except (OSError, sqlite3.Error) as e:
        return SyncResult("unavailable", reason=f"cannot update the index ({e})")


def refresh(
    store_path: str | os.PathLike[str],
    *,
    create: bool = True,
    wait: bool = False,
    track: Track | None = None,
) -> SyncResult:
    """``sync`` under the store lock; ``unavailable`` when a writer holds it (``wait=False``)."""
    path = Path(store_path)
    current = status(path)
    if current.fresh:
        return SyncResult("fresh")
    if current.state == "missing" and not create:
        return SyncResult("unavailable", reason="no index")
    with store_lock(path, wait=wait) as locked:
        if not locked:
            why = "no store" if not path.exists() else "the store is being written"
            return SyncResult("unavailable", reason=why)
        return sync(path, create=create, track=track)


def drop(store_path: str | os.PathLike[str]) -> bool:
    """Delete the index; True when there was one."""
    ipath = schema.index_path(store_path)
    found = ipath.exists()
    for p in (ipath, Path(f"{ipath}-journal")):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
    return found
