"""One byte range of the store turned into index rows: the part of a build that runs in
worker processes (``convo.core.pool``), so parsing and SQLite use both cores.

``read_range(Task)`` reads whole lines of ``[start, end)`` and returns a ``Batch``: the
rows of its records numbered from 0 (the parent adds the message id the range starts
at), speakers and listeners as names (the parent owns name ids), the full-text values
as UTF-8 bytes (FTS5 reads a blob as the text it spells; the parent passes them on
without decoding). Fields are read as ``rows.row_of`` reads them (and so as
``convo.core.fields`` does); ``tests/index/test_rows.py`` checks both agree.

A worker opens the store by its path and checks it is the file the parent holds (device
and inode): a store renamed over meanwhile makes the build fail, never mix files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import orjson

from convo.core import collector, fields
from convo.core.fields import is_record
from convo.core.timestamps import CANONICAL
from convo.index.folding import unfolded
from convo.index.rows import BOM, space_cjk

ROLES = fields.ROLES
_ROLE = {r: r for r in ROLES}


@dataclass(frozen=True)
class Task:
    """Whole lines starting in ``[start, end)`` of the store (``end`` is a line start)."""

    path: str
    dev: int
    ino: int
    start: int
    end: int


@dataclass
class Batch:
    """The index rows of one range; ``n`` numbers the range's records from 0."""

    count: int = 0
    bad: int = 0  # lines that are not JSON objects (never indexed)
    names: list[str] = field(default_factory=list)  # every speaker and listener, once
    messages: list[tuple] = field(default_factory=list)  # n, id, offset, length, time,
    # speaker, thread, format, role, subject
    # The full-text values, record n at index n: two lists rather than a tuple a record,
    # which halved their pickling between the processes (0.19 s against 0.11 s for 200k
    # records: a build moves a third of the store's bytes through them).
    subjects: list[bytes] = field(default_factory=list)
    texts: list[bytes] = field(default_factory=list)
    listeners: list[tuple[int, str]] = field(default_factory=list)
    tags: list[tuple[int, str, str]] = field(default_factory=list)  # n, folded, tag
    unfolded: list[int] = field(default_factory=list)  # n of each ``folding.unfolded`` text


def read_range(task: Task) -> Batch:
    """The ``Batch`` of ``task``'s lines (run in a worker process, or in this one)."""
    fd = os.open(task.path, os.O_RDONLY)
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (task.dev, task.ino):
            raise OSError(f"{task.path} was replaced while it was indexed")
        data = os.pread(fd, task.end - task.start, task.start)
    finally:
        os.close(fd)
    if len(data) != task.end - task.start:
        raise OSError(f"{task.path} was truncated while it was indexed")
    base = task.start
    if base == 0 and data.startswith(BOM):
        data, base = data[3:], 3
    with collector.paused():
        return rows_of(data, base)


def rows_of(data: bytes, base: int) -> Batch:
    """The rows of the whole lines of ``data`` (which starts at byte ``base``): lines as
    ``rows.iter_spans`` cuts them, records as ``rows.parse`` reads them."""
    rows = _Rows()
    loads, error, add = orjson.loads, orjson.JSONDecodeError, rows.add
    pos = 0
    for line in data.split(b"\n")[:-1]:  # the piece after the last newline is not whole
        length = len(line)
        offset = base + pos
        pos += length + 1
        body = line[:-1] if line.endswith(b"\r") else line
        if not body.strip():
            continue
        try:
            record = loads(body)
        except error:
            record = None
        if is_record(record):
            add(offset, length, record)
        else:
            rows.batch.bad += 1
    return rows.done()


class _Rows:
    """A batch being filled, one record at a time.

    Deliberate hot-path copy of ``rows.row_of`` (see there; a build runs this once per
    line of the store): the fields are read as it reads them, straight into the
    batch's tuples; ``tests/index/test_rows.py`` checks the two agree.
    """

    __slots__ = ("batch", "interned", "n", "names")

    def __init__(self) -> None:
        self.batch = Batch()
        self.names: dict[str, str] = {}  # one str object per name: pickled once per batch
        self.interned: dict[Any, Any] = dict(_ROLE)  # formats and tags, likewise
        self.n = 0

    def done(self) -> Batch:
        self.batch.count, self.batch.names = self.n, list(self.names)
        return self.batch

    def add(self, offset: int, length: int, record: dict[str, Any]) -> None:
        get, n, interned = record.get, self.n, self.interned
        meta = get("metadata")
        if type(meta) is not dict:
            meta = {}
        speaker = meta.get("speaker")
        if type(speaker) is not str or not speaker:
            speaker = None
        role = get("role")
        if role not in ROLES:
            low = speaker.lower() if speaker else ""
            role = low if low in ROLES else "user"
        ts = get("timestamp")
        if type(ts) is not str or len(ts) != 20 or CANONICAL.fullmatch(ts) is None:
            ts = fields.timestamp(record)
        fmt = _string(get("format"))
        subject = _string(get("subject"))
        self.batch.messages.append((
            n, _string(get("id")), offset, length, ts,
            None if speaker is None else self.names.setdefault(speaker, speaker),
            _string(get("thread")), fmt if fmt is None else interned.setdefault(fmt, fmt),
            interned.setdefault(role, role), subject,
        ))  # fmt: skip
        self._text(n, subject, get("textChunks"), get)
        self._people(n, meta)
        labels = get("tags")
        if type(labels) is list:
            tags = self.batch.tags
            for t in labels:
                if type(t) is str:
                    t = interned.setdefault(t, t)
                    tags.append((n, t.casefold(), t))
        self.n = n + 1

    def _text(self, n: int, subject: str | None, chunks: Any, get: Any) -> None:
        if chunks is None:
            chunks = get("text_chunks")
        if type(chunks) is list:
            try:
                text = "\n".join(chunks)  # the usual case: nothing but strings
            except TypeError:
                text = "\n".join([x for x in chunks if type(x) is str])
        else:
            text = ""
        if unfolded(text) or (subject is not None and unfolded(subject)):
            self.batch.unfolded.append(n)
        spaced = space_cjk
        self.batch.subjects.append(spaced(subject or "").encode())
        self.batch.texts.append(spaced(text).encode())

    def _people(self, n: int, meta: dict[str, Any]) -> None:
        people = meta.get("listeners")
        if people is None:
            people = meta.get("recipients")
        if type(people) is list:
            names, listeners = self.names, self.batch.listeners
            for x in people:
                if type(x) is str and x:
                    listeners.append((n, names.setdefault(x, x)))


def _string(value: Any) -> str | None:
    """``fields.string``: a non-empty string, else None."""
    return value if type(value) is str and value else None
