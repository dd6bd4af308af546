"""Writing the index: the appended tail, or a rebuild into a new file; and drop.

``sync`` assumes the caller holds the store lock (the store's append path, maintenance);
``state.refresh`` takes the lock itself and calls it. Neither raises for index trouble:
a broken index file is rebuilt, and when that is impossible the result says
``unavailable``. What counts as fresh, appended or rebuilt is ``convo.index.state``'s.
Where a rebuild's time goes, per record: docs/store.md, "Build speed".
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from convo.core import collector
from convo.core.io import os_error
from convo.index import fts, schema
from convo.index.batch import Batch, Task, read_range
from convo.index.rows import end_of_whole_lines
from convo.index.state import SyncResult, Track, freshness, read_meta, store_meta
from convo.index.writer import Inserter

RANGE_BYTES = 4 << 20  # one worker task; the parent inserts one such batch at a time
PARALLEL_BYTES = 32 << 20  # less than this is read in this process


def index_lines(
    conn: sqlite3.Connection, path: str | os.PathLike[str], f: IO[bytes], start: int,
    track: Track | None, side: fts.SideFts | None = None, rebuild: bool = False,
):  # fmt: skip
    """Index the whole lines of the open store ``f`` (at ``path``) from ``start``; returns
    (added, bad lines, end). Ranges are parsed on every core when there is enough to read
    (``batch.read_range`` in ``core.pool`` workers), inserted here in store order; the
    full-text rows go to ``side`` when there is one. ``rebuild``: a new index, whose
    tokens the caller adds to ``fts_terms`` at the end (``schema.fill_terms``)."""
    from convo.core.pool import cpu_count, ordered_map

    st = os.fstat(f.fileno())
    end = end_of_whole_lines(f, st.st_size, start)
    inserter = Inserter(conn, empty=start == 0, side=side, rebuild=rebuild)
    tasks = [
        Task(os.fspath(path), st.st_dev, st.st_ino, lo, hi)
        for lo, hi in itertools.pairwise(_cuts(f.fileno(), start, end))
    ]
    jobs = cpu_count() if end - start >= PARALLEL_BYTES else 1
    with collector.paused():
        # Fresh worker interpreters (``preload``): they read their tasks from a pipe and
        # end when it closes, so a build killed with -9 leaves no worker behind.
        batches: Iterable[Batch] = ordered_map(
            read_range, tasks, jobs, preload=("convo.index.batch",)
        )
        if track is None:
            for batch in batches:
                inserter.add(batch)
        else:
            for _ in track(_each_record(batches, inserter)):
                pass
    inserter.finish()
    return inserter.added, inserter.bad, end


def _each_record(batches: Iterable[Batch], inserter: Inserter) -> Iterator[None]:
    """One item per record indexed (what a progress counter counts)."""
    for batch in batches:
        inserter.add(batch)
        yield from itertools.repeat(None, batch.count)


def _cuts(fd: int, start: int, end: int, step: int = RANGE_BYTES) -> list[int]:
    """``start``, line starts about ``step`` bytes apart, and ``end``."""
    cuts = [start]
    at = start + step
    while at < end:
        probe = at
        while probe < end:
            chunk = os.pread(fd, min(1 << 16, end - probe), probe - 1)
            i = chunk.find(b"\n")
            if i >= 0:
                probe += i
                break
            probe += len(chunk)
        if probe >= end:
            break
        cuts.append(probe)
        at = probe + step
    cuts.append(end)
    return cuts


def _finish(conn: sqlite3.Connection, f: IO[bytes], end: int, added: int, bad: int) -> None:
    meta = schema.read_meta(conn)
    values = store_meta(f, end)
    values["messages"] = int(meta.get("messages", "0")) + added
    values["bad_lines"] = int(meta.get("bad_lines", "0")) + bad
    schema.write_meta(conn, values)


def rebuild(store_path: Path, f: IO[bytes], track: Track | None = None) -> int:
    """Build a new index from scratch, renamed over the old one; returns its messages.

    A large store's text goes to ``fts.SideFts`` (the second core tokenises it while
    this connection writes the rows and sorts the secondary indexes)."""
    ipath = schema.index_path(store_path)
    tmp = ipath.with_name(f"{ipath.name}.tmp-{os.getpid()}")
    _remove_temporary(ipath)  # left by a killed build (builds run under the store lock)
    conn = side = None
    try:
        conn = schema.connect(tmp)
        for pragma in schema.BUILD_PRAGMAS:
            conn.execute(pragma)
        conn.execute("BEGIN")
        schema.create(conn)
        big = os.fstat(f.fileno()).st_size >= PARALLEL_BYTES
        side = fts.SideFts(tmp.with_name(f"{tmp.name}.fts")) if big and fts.usable(conn) else None
        added, bad, end = index_lines(conn, store_path, f, 0, track, side, rebuild=True)
        conn.execute(schema.SORT_PRAGMA)
        for statement in schema.INDEXES.split(";"):
            if statement.strip():
                conn.execute(statement)
        if side is None:
            conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')")  # one b-tree
            schema.fill_terms(conn)
        conn.execute("COMMIT")
        if side is not None:
            side.finish()
            side.copy_into(conn)
            side.remove()
        conn.execute("BEGIN")
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
        if side is not None:
            side.abandon()
        # a signal can land as a file is made and before its name is held (the database,
        # the side full-text one): under the lock, every temporary file there is this build's
        _remove_temporary(ipath)
        raise
    return added


def _remove_temporary(ipath: Path) -> None:
    for old in ipath.parent.glob(f"{ipath.name}.tmp-*"):
        with contextlib.suppress(OSError):
            old.unlink()


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def append(store_path: Path, f: IO[bytes], meta: dict[str, str], track: Track | None) -> int:
    """Index the lines appended since the last update, in one transaction."""
    ipath = schema.index_path(store_path)
    _remove_temporary(ipath)  # a killed rebuild's, kept the old index: gone at the next save
    conn = schema.connect(ipath)
    try:
        conn.execute("BEGIN IMMEDIATE")
        added, bad, end = index_lines(conn, store_path, f, int(meta["indexed_bytes"]), track)
        _finish(conn, f, end, added, bad)
        conn.execute("COMMIT")
    finally:
        schema.close_quietly(conn)
    return added


def sync(
    store_path: str | os.PathLike[str],
    *,
    create: bool = True,
    track: Track | None = None,
    rebuild_all: bool = False,
) -> SyncResult:
    """Bring the index up to date with the store. The caller holds the store lock.

    ``rebuild_all``: build a new index from scratch even when this one is current
    (``convo index --rebuild``); it is built beside the old one and renamed over it, so
    the old index stays whole until the new one is (``rebuild``)."""
    path = Path(store_path)
    ipath = schema.index_path(path)
    try:
        meta = read_meta(ipath)
        if meta is None and not create:
            return SyncResult("unavailable", reason="no index")
        with open(path, "rb") as f:
            if not meta:  # none, or unreadable or damaged (``schema.DamagedIndex``)
                state, reason = "rebuild", "no index" if meta is None else "the index was damaged"
            else:
                state, reason = freshness(meta, f)
            if rebuild_all:
                state, reason = "rebuild", ""
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
        try:
            p.unlink()
        except FileNotFoundError:
            pass
        except OSError as e:  # a read-only file system: one located line
            raise os_error(e, str(p), "the index cannot be removed here") from None
    return found
