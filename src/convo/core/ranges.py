"""Byte ranges of one file, cut on record boundaries, for scanning it on several cores.

``split(path, parts)`` cuts a file into about ``parts`` ranges whose edges fall at the
start of a line (``is_start`` narrows that to lines that begin a record: an mbox
``From `` line, a chat line with a date header). ``open_range`` reads one range as a
binary stream. Consumers (the parallel scan in ``query/``, the parallel ingest in
``pipeline/``, ``convo.spark``) parse each range as if it were a file of its own and
rebase what is relative to it: a range reports how many lines it read, and the
consumer adds the line counts of the ranges before it when it emits results in order.

Only regular, uncompressed files are split: a gzip stream has no random access, and a
FIFO or stdin can be read once.

``split`` (in the parent, before any worker starts) and ``open_range`` ask
``core.guard.reading`` as every open of an input does: a file this run is writing as it
goes (the ``--warnings`` log) is refused, and a file cut is an input no output replaces.
"""

from __future__ import annotations

import io
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from convo.core import guard

#: How far past a cut point a boundary is looked for before the cut is dropped.
SEEK_LIMIT = 64 << 20
LINE_PEEK = 1 << 20  # the longest line a cut may start at
_STEP = 1 << 16


@dataclass(frozen=True)
class Range:
    """Bytes ``[start, end)`` of ``path``."""

    path: str
    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start


def splittable(path: str | os.PathLike[str]) -> bool:
    """A regular file that is not compressed (gzip or zstd: ``core.compression``, whose
    bytes are no lines to cut)."""
    from convo.core.compression import GZIP_MAGIC, ZSTD_MAGIC

    p = Path(path)
    try:
        if not p.is_file():
            return False
        with open(p, "rb") as f:
            head = f.read(4)
        return not head.startswith((GZIP_MAGIC, ZSTD_MAGIC))
    except OSError:
        return False


def split(
    path: str | os.PathLike[str],
    parts: int,
    *,
    is_start: Callable[[bytes], bool] | None = None,
    min_size: int = 1 << 20,
    end: int | None = None,
) -> list[Range]:
    """Cut ``path`` into at most ``parts`` ranges of at least ``min_size`` bytes.

    Every range but the first begins at the start of a line for which ``is_start(line)``
    is true (any line when ``is_start`` is None); the ranges cover the file exactly,
    in order. A cut with no boundary within ``SEEK_LIMIT`` bytes is dropped, so a file
    without boundaries stays one range. ``end`` stops the ranges there instead of at the
    file's size (a reader that must not see a live writer's unfinished line).
    """
    name = os.fspath(path)
    total = os.path.getsize(name) if end is None else end
    parts = max(1, min(parts, total // max(1, min_size)))
    cuts = [0]
    with open(name, "rb") as f:
        guard.reading(f.fileno(), name, name)
        for k in range(1, parts):
            target = max(total * k // parts, cuts[-1] + 1)
            cut = _boundary_after(f, target, total, is_start)
            if cut is not None and cut > cuts[-1] and cut < total:
                cuts.append(cut)
    cuts.append(total)
    return [Range(name, a, b) for a, b in itertools.pairwise(cuts) if b > a]


def _boundary_after(
    f: BinaryIO, target: int, total: int, is_start: Callable[[bytes], bool] | None
) -> int | None:
    """The offset of the first qualifying line start at or after ``target``. Reads are
    bounded (a line longer than ``LINE_PEEK`` is no cut: one line of gigabytes is never
    held), so memory stays flat on a file with few or no newlines."""
    limit = min(total, target + SEEK_LIMIT)
    pos = _after_newline(f, target - 1, limit)  # the start of the line after the target's
    while pos is not None and pos < limit:
        f.seek(pos)
        line = f.readline(LINE_PEEK)
        if not line:
            return None
        whole = line.endswith(b"\n") or pos + len(line) >= total
        if whole and (is_start is None or is_start(line)):
            return pos
        pos = pos + len(line) if whole else _after_newline(f, pos + len(line), limit)
    return None


def _after_newline(f: BinaryIO, at: int, limit: int) -> int | None:
    """The offset just after the first newline at or after ``at`` (None past ``limit``)."""
    f.seek(at)
    while at < limit:
        block = f.read(_STEP)
        if not block:
            return None
        i = block.find(b"\n")
        if i >= 0:
            return at + i + 1
        at += len(block)
    return None


class _Window(io.RawIOBase):
    """A raw stream over bytes ``[start, end)`` of an open file."""

    def __init__(self, raw: io.FileIO, start: int, end: int):
        self._raw = raw
        self._left = end - start
        raw.seek(start)

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._raw.fileno()

    def readinto(self, buffer: Any) -> int:
        if self._left <= 0:
            return 0
        view = memoryview(buffer)[: min(len(buffer), self._left)]
        n = self._raw.readinto(view) or 0
        self._left -= n
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


def open_range(r: Range) -> BinaryIO:
    """The bytes of ``r`` as a buffered binary stream (close it when done)."""
    raw = io.FileIO(r.path, "rb")  # closed with the stream
    try:
        guard.reading(raw.fileno(), r.path, r.path)
    except BaseException:
        raw.close()
        raise
    return io.BufferedReader(_Window(raw, r.start, r.end), buffer_size=_STEP * 4)
