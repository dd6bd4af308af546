"""Whether the index matches the store, and bringing it up to date when it does not.

Staleness: the index remembers the store's device and inode, its mtime and ctime, how
many bytes it indexed (whole lines) and checksums of the first and last 64 KiB of those
bytes.
- same inode, size, mtime and ctime: fresh (nothing read; the one ``fstat`` a read makes);
- same inode, size and mtime, another ctime: rebuilt. A file edited in place keeping its
  size, its mtime put back (``touch -r``, ``os.utime``, a tool that keeps times), would
  otherwise be answered from the old rows; its ctime no user can set back. What else
  moves the ctime alone (``chmod``, a new hard link) costs one rebuild; convo's own
  writes record the ctime they leave (``Follower.commit`` after a rewrite's rename,
  ``restamp`` after a failed save is cut back);
- same inode, bigger, both checksums unchanged: appended, so only the tail is indexed;
- anything else (another file renamed over the store, truncated, edited, or the same
  size with another mtime): rebuilt, into a temporary file renamed over the old index.
An edit in the middle of a store that also grew is not seen by this check;
``convo index --check`` compares every row with the store.

Reads need only this module (and ``schema``): the writing side (``build``, with the
row extraction and the full-text tokenising helpers) is imported when the index is
stale, so a read of a fresh index starts quickly.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable

from convo.core.slotted import Slotted
from convo.index import schema

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import IO, Any

SUM_BYTES = 1 << 16
Track = Callable[[Iterable["Any"]], Iterable["Any"]]


class Status(Slotted):
    """What the index knows of the store, without changing anything."""

    __slots__ = ("messages", "reason", "state")
    state: str  # fresh | append | rebuild | missing | unavailable
    reason: str
    messages: int

    def __init__(self, state: str, reason: str = "", messages: int = 0) -> None:
        self.state = state
        self.reason = reason
        self.messages = messages

    @property
    def fresh(self) -> bool:
        return self.state == "fresh"


class SyncResult(Slotted):
    __slots__ = ("action", "added", "notes", "reason")
    action: str  # fresh | appended | rebuilt | unavailable
    added: int
    reason: str
    notes: list[str]

    def __init__(
        self, action: str, added: int = 0, reason: str = "", notes: list[str] | None = None
    ) -> None:
        self.action = action
        self.added = added
        self.reason = reason
        self.notes = [] if notes is None else notes

    @property
    def available(self) -> bool:
        return self.action != "unavailable"


def _sums(f: IO[bytes], end: int) -> tuple[str, str]:
    import hashlib  # (its OpenSSL half is slow to load; a fresh index needs no sums)

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
        "store_ctime_ns": st.st_ctime_ns, "store_size": st.st_size, "indexed_bytes": end,
        "head_sum": head, "tail_sum": tail,
    }  # fmt: skip


def freshness(meta: dict[str, str], f: IO[bytes]) -> tuple[str, str]:
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
        if meta.get("store_ctime_ns", str(st.st_ctime_ns)) != str(st.st_ctime_ns):
            # (an index made before the ctime was kept has none: it records one next time)
            return "rebuild", "the store was changed in place (its size and time kept)"
        return ("fresh", "") if st.st_size == indexed else ("append", "a partial last line")
    if _sums(f, indexed) != (meta.get("head_sum"), meta.get("tail_sum")):
        return "rebuild", "the store was edited"
    if st.st_size == indexed and meta.get("store_size") == str(indexed):
        return "rebuild", "the store was rewritten in place"
    return "append", "the store grew" if st.st_size > indexed else "a partial last line was cut"


def restamp(store_path: str | os.PathLike[str], before: os.stat_result) -> None:
    """After a failed save cut the store back to ``before`` (its bytes and its mtime: the
    caller holds the store lock): an index that matched the store as it was takes the
    ctime the cut left, so it stays fresh instead of being rebuilt. Never raises."""
    ipath = schema.index_file(store_path)
    if not os.path.exists(ipath):
        return
    conn = None
    try:
        now = os.stat(store_path)
        conn = schema.connect(ipath)
        meta = schema.read_meta(conn)
        was = (before.st_ino, before.st_size, before.st_mtime_ns, before.st_ctime_ns)
        known = ("store_ino", "store_size", "store_mtime_ns", "store_ctime_ns")
        if (
            tuple(meta.get(k) for k in known) == tuple(map(str, was))
            and (now.st_ino, now.st_size, now.st_mtime_ns) == was[:3]
        ):
            with conn:
                schema.write_meta(conn, {"store_ctime_ns": now.st_ctime_ns})
    except (OSError, sqlite3.Error):
        pass  # the next read rebuilds it: slower, never wrong
    finally:
        schema.close_quietly(conn)


def read_meta(ipath: str | os.PathLike[str]) -> dict[str, str] | None:
    """The index file's meta table; None without a file, {} when it cannot be read."""
    if not os.path.exists(ipath):
        return None
    conn = None
    try:
        # A journal left by a killed writer is rolled back by the first writable open.
        hot = os.path.exists(f"{os.fspath(ipath)}-journal")
        conn = schema.connect(ipath, readonly=not hot)
        return schema.read_meta(conn)
    except sqlite3.Error:
        return {}
    finally:
        schema.close_quietly(conn)


def status(store_path: str | os.PathLike[str]) -> Status:
    """Whether the index can answer for the store as it is now (read-only)."""
    meta = read_meta(schema.index_file(store_path))
    if meta is None:
        return Status("missing", "no index")
    if not meta:
        return Status("rebuild", "the index file is unreadable or damaged")
    try:
        with open(store_path, "rb") as f:
            state, reason = freshness(meta, f)
    except OSError as e:
        return Status("unavailable", f"cannot read the store ({e.strerror})")
    return Status(state, reason, int(meta.get("messages", "0")))


def refresh(
    store_path: str | os.PathLike[str],
    *,
    create: bool = True,
    wait: bool = False,
    track: Track | None = None,
    rebuild_all: bool = False,
) -> SyncResult:
    """``build.sync`` under the store lock; ``unavailable`` when a writer holds it
    (``wait=False``). Never raises for index trouble (see ``build.sync``);
    ``rebuild_all``: see ``build.sync``."""
    current = status(store_path)
    if current.fresh and not rebuild_all:
        return SyncResult("fresh")
    if current.state == "missing" and not create:
        return SyncResult("unavailable", reason="no index")
    from pathlib import Path

    from convo.index.build import sync
    from convo.index.lock import store_lock

    path = Path(store_path)

    undone: list[str] = []  # a killed save undone as the lock was taken (core.journal)
    with store_lock(path, wait=wait, on_recover=undone.append) as not_locked:
        if not_locked:
            return SyncResult("unavailable", reason=not_locked)
        result = sync(path, create=create, track=track, rebuild_all=rebuild_all)
    result.notes[:0] = undone
    return result
