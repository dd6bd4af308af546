"""Where a store's vectors live: a raw float32 file and a small SQLite catalogue.

``<store>.vectors`` holds one row of ``dims`` float32 values per chunk, appended in
order; ``<store>.vectors.sqlite`` says which rows are whose (``messages``: id, digest of
the embedded text, first row, row count) and which model made them (``meta``: model,
dims, rows, the ``--model`` choice that makes the embedder again).

Why raw files rather than blobs in the index: at a million messages the vectors are
1 GB (256 dims), three times the memory target of a search. A search scans the int8
copy (below) through a memory map a block at a time, and reads from the float32 file
only the rows it rescores, so its memory does not grow with the store, and no row
becomes a Python object. Blobs in SQLite would cost one bytes object per row read. The vectors are kept beside, not inside, the index because the index is
rebuilt from the store whenever it does not match it, and embedding again costs more
than indexing.

Beside them, ``<store>.vectors.q8`` holds every row again as int8 codes with a scale,
what a search scans (``convo.embed.quantized``: a quarter of the bytes, ranked exactly by
rescoring the few rows that can be among the best from the float32 file).

A row is written to the raw file and to the int8 copy before the catalogue commits it;
rows past the catalogue's count (an interrupted run) are cut off by the next writer,
which also gives the copy the rows it lacks (vectors made before it existed). A
message that changed or left the store has its rows zeroed in both (they score 0 and
belong to no message).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

from convo.core.errors import UsageError
from convo.embed import quantized

if TYPE_CHECKING:
    from convo.embed.protocol import Vectors

MATRIX = ".vectors"
CATALOGUE = ".vectors.sqlite"
QUANTIZED = ".vectors.q8"
DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS messages (
    id TEXT PRIMARY KEY, digest BLOB NOT NULL, row INTEGER NOT NULL, nrows INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS messages_by_row ON messages(row);
"""


def paths(store_path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """``(<store>.vectors, <store>.vectors.sqlite)``."""
    p = Path(store_path)
    return p.with_name(p.name + MATRIX), p.with_name(p.name + CATALOGUE)


def quantized_path(store_path: str | os.PathLike[str]) -> Path:
    """``<store>.vectors.q8``, the int8 copy (``convo.embed.quantized``)."""
    p = Path(store_path)
    return p.with_name(p.name + QUANTIZED)


def drop(store_path: str | os.PathLike[str]) -> bool:
    """Delete the store's vectors; True when there were some."""
    found = False
    for path in (*paths(store_path), quantized_path(store_path)):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            found = True
    return found


class VectorFile:
    """An open catalogue and its raw file. ``meta`` is the catalogue's meta table."""

    def __init__(self, store_path: str | os.PathLike[str], *, write: bool = False) -> None:
        self.matrix_path, self.catalogue_path = paths(store_path)
        self.quantized_path = quantized_path(store_path)
        self.conn = sqlite3.connect(os.fspath(self.catalogue_path), isolation_level=None)
        try:
            self.conn.execute("PRAGMA busy_timeout = 10000")
            if write:
                self.conn.executescript(DDL)
            self.meta: dict[str, str] = dict(self.conn.execute("SELECT key, value FROM meta"))
        except sqlite3.DatabaseError as e:
            self.conn.close()
            raise UsageError(
                f"the vectors' catalogue is damaged ({e})",
                where=str(self.catalogue_path),
                hint="run `convo embed --rebuild`",
            ) from None

    @classmethod
    def existing(cls, store_path: str | os.PathLike[str]) -> VectorFile | None:
        """The store's vectors, or None when it has none (no catalogue, or an empty one);
        a damaged catalogue, or a raw file missing or shorter than it says, is a
        ``UsageError`` saying how to rebuild them."""
        if not paths(store_path)[1].exists():
            return None
        vf = cls(store_path)
        if "dims" not in vf.meta:
            vf.close()
            return None
        try:
            size = vf.matrix_path.stat().st_size
        except FileNotFoundError:
            size = -1
        if size < vf.rows * vf.dims * 4:
            vf.close()
            what = "missing" if size < 0 else f"shorter than its catalogue says ({vf.rows} rows)"
            raise UsageError(
                f"the vectors file is {what}",
                where=str(vf.matrix_path),
                hint="run `convo embed --rebuild`",
            )
        return vf

    def close(self) -> None:
        self.conn.close()

    @property
    def dims(self) -> int:
        return int(self.meta.get("dims", 0))

    @property
    def rows(self) -> int:
        return int(self.meta.get("rows", 0))

    @property
    def model(self) -> str:
        return self.meta.get("model", "")

    def set_meta(self, **values: object) -> None:
        for key, value in values.items():
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))
            self.meta[key] = str(value)

    def known(self, ids: list[str]) -> dict[str, tuple[bytes, int, int]]:
        """``id -> (digest, row, nrows)`` for those of ``ids`` the catalogue holds."""
        sql = (
            "SELECT id, digest, row, nrows FROM messages"
            " WHERE id IN (SELECT value FROM json_each(?))"
        )
        return {
            i: (d, r, n) for i, d, r, n in self.conn.execute(sql, (orjson.dumps(ids).decode(),))
        }

    def spans(self, ids: Iterable[str], chunk: int = 10000) -> Iterator[tuple[str, int, int]]:
        """``(id, row, nrows)`` of each of ``ids`` that has vectors."""
        batch: list[str] = []
        for i in ids:
            batch.append(i)
            if len(batch) >= chunk:
                yield from self._spans(batch)
                batch = []
        if batch:
            yield from self._spans(batch)

    def _spans(self, ids: list[str]) -> Iterator[tuple[str, int, int]]:
        sql = (
            "SELECT id, row, nrows FROM messages"
            " WHERE nrows > 0 AND id IN (SELECT value FROM json_each(?))"
        )
        yield from self.conn.execute(sql, (orjson.dumps(ids).decode(),))

    def owner(self, row: int) -> str | None:
        """The id whose rows include ``row`` (None: a zeroed row)."""
        sql = "SELECT id, row, nrows FROM messages WHERE row <= ? ORDER BY row DESC LIMIT 1"
        found = self.conn.execute(sql, (row,)).fetchone()
        if found is None or row >= found[1] + found[2]:
            return None
        return str(found[0])

    def read_rows(self, start: int, count: int) -> Vectors:
        import numpy as np

        with open(self.matrix_path, "rb") as f:
            f.seek(start * self.dims * 4)
            return np.fromfile(f, dtype=np.float32, count=count * self.dims).reshape(-1, self.dims)

    def gather(self, rows: Any) -> Vectors:
        """The rows numbered in ``rows`` (sorted, distinct), in that order: each run of
        adjacent rows read with one ``pread``. Not a memory map: every page of the file
        that a map touches counts as the process's memory, and candidates spread over a
        store touch most pages."""
        import numpy as np

        dims = self.dims
        size = dims * 4
        out = np.zeros((len(rows), dims), dtype=np.float32)
        if not len(rows):
            return out
        breaks = np.flatnonzero(np.diff(rows) != 1) + 1
        starts = np.concatenate(([0], breaks))
        ends = np.concatenate((breaks, [len(rows)]))
        view = out.reshape(-1).view(np.uint8)
        with open(self.matrix_path, "rb") as f:
            fd = f.fileno()
            for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
                data = os.pread(fd, (b - a) * size, int(rows[a]) * size)
                view[a * size : a * size + len(data)] = np.frombuffer(data, dtype=np.uint8)
        return out


def recorded_choice(store: str | os.PathLike[str]) -> str | None:
    """The ``--model`` choice the store's vectors were made with (None: none recorded)."""
    vf = VectorFile.existing(store)
    if vf is None:
        return None
    try:
        return vf.meta.get("choice") or None
    finally:
        vf.close()


class Writer:
    """Appends rows to a ``VectorFile`` under an exclusive lock of its raw file."""

    def __init__(self, vf: VectorFile) -> None:
        self.vf = vf
        # Not append mode: pwrite (``retire``) would append on Linux instead of overwriting.
        fd = os.open(vf.matrix_path, os.O_RDWR | os.O_CREAT, 0o644)
        self.f: IO[bytes] = os.fdopen(fd, "r+b")
        try:
            fcntl.flock(self.f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.f.close()
            raise UsageError(
                "another `convo embed` is writing these vectors",
                where=str(vf.matrix_path),
                hint="wait for it to finish",
            ) from None
        # Re-read: a run that held the lock before may have committed since we opened.
        vf.meta = dict(vf.conn.execute("SELECT key, value FROM meta"))
        committed = vf.rows * vf.dims * 4
        if os.fstat(self.f.fileno()).st_size < committed:
            self.f.close()
            raise UsageError(
                f"the vectors file is shorter than its catalogue says ({vf.rows} rows)",
                where=str(vf.matrix_path),
                hint="run `convo embed --rebuild`",
            )
        os.ftruncate(self.f.fileno(), committed)  # rows an interrupted run did not commit
        try:
            qfd = os.open(vf.quantized_path, os.O_RDWR | os.O_CREAT, 0o644)
            self.q: IO[bytes] = os.fdopen(qfd, "r+b")
        except OSError:
            self.f.close()
            raise
        try:
            # The int8 copy cut to the committed rows, and given those it lacks.
            self.upgraded = quantized.catch_up(vf, self.q, vf.rows)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.q.close()
        self.f.close()

    def append(self, entries: list[tuple[str, bytes, int]], vectors: Vectors) -> None:
        """Commit ``entries`` (id, digest, row count, in order) and their ``vectors``."""
        vf = self.vf
        self.f.seek(0, os.SEEK_END)
        self.f.write(vectors.astype("<f4", copy=False).tobytes())
        self.f.flush()
        self.q.seek(0, os.SEEK_END)
        self.q.write(quantized.quantize(vectors).tobytes())
        self.q.flush()
        row = vf.rows
        values = []
        for ident, dig, n in entries:
            values.append((ident, dig, row if n else -1, n))
            row += n
        vf.conn.execute("BEGIN IMMEDIATE")
        vf.conn.executemany("INSERT OR REPLACE INTO messages VALUES (?, ?, ?, ?)", values)
        vf.set_meta(rows=row)
        vf.conn.execute("COMMIT")

    def retire(self, spans: Iterable[tuple[int, int]]) -> None:
        """Zero the rows of ``(row, nrows)`` spans (a changed or removed message's)."""
        dims = self.vf.dims
        size = quantized.size(dims)
        for row, n in spans:
            if n > 0:
                os.pwrite(self.f.fileno(), bytes(n * dims * 4), row * dims * 4)
                os.pwrite(self.q.fileno(), bytes(n * size), row * size)


def upgrade(store_path: str | os.PathLike[str]) -> int:
    """Rows of the float32 file given their int8 record (``convo.embed.quantized``) by a
    ``Writer``, when some lacked one (vectors made before the copy existed, or an older
    run cut short) and no writer holds the lock: a search's one-time upgrade; 0 when
    nothing was missing, or it could not be done now (the search then scores those rows
    from the float32 file)."""
    vf = VectorFile.existing(store_path)
    if vf is None:
        return 0
    try:
        try:
            with open(vf.quantized_path, "rb") as f:
                if quantized.rows_in(f, vf.dims) >= vf.rows:
                    return 0
        except FileNotFoundError:
            pass
        try:
            writer = Writer(vf)
        except (UsageError, OSError):
            return 0  # another writer runs, or the folder is read-only
        writer.close()
        return writer.upgraded
    finally:
        vf.close()


def mismatch(vf: VectorFile, model: str, dims: int | None, store: Path) -> UsageError:
    """The error for vectors made by another model than the one asked for (an embed that
    would add to them, a search that would compare with them)."""
    choice = vf.meta.get("choice") or vf.model
    theirs = f"{model} ({dims} dims)" if dims else model
    return UsageError(
        f"the store's vectors were made by {vf.model} ({vf.dims} dims), not {theirs}",
        where=str(store),
        hint=f"embed with `--model {choice}`, or `convo embed --rebuild` to replace them",
    )
