"""Writing the index: the appended tail, or a rebuild into a new file; and drop.

``sync`` assumes the caller holds the store lock (the store's append path, maintenance);
``state.refresh`` takes the lock itself and calls it. Neither raises for index trouble:
a broken index file is rebuilt, and when that is impossible the result says
``unavailable``. What counts as fresh, appended or rebuilt is ``convo.index.state``'s.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

import orjson

from convo.index import schema
from convo.index.rows import end_of_whole_lines, iter_spans, row_of
from convo.index.state import SyncResult, Track, judge, read_meta, store_meta
from convo.index.writer import Writer


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
        read_meta(ipath)  # roll back a hot journal of the old file, so none is left
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
        meta = read_meta(ipath)
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


def drop(store_path: str | os.PathLike[str]) -> bool:
    """Delete the index; True when there was one."""
    ipath = schema.index_path(store_path)
    found = ipath.exists()
    for p in (ipath, Path(f"{ipath}-journal")):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
    return found
