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
    """The index rows of one range, as columns: record n of the range (numbered from 0)
    at index n of each message column."""

    count: int = 0
    bad: int = 0  # lines that are not JSON objects (never indexed)
    names: list[str] = field(default_factory=list)  # every speaker and listener, once
    # The ``messages`` table's columns (but its message id: the parent's), a list each
    # rather than a tuple a record, and the links likewise: a batch of 100k benchmark
    # records pickles and unpickles in 0.26-0.31 s of CPU against 0.42-0.51 s with tuples
    # (5 alternating rounds), and the parent passes the columns to ``executemany``
    # zipped, with no loop of its own (``writer.Inserter.add``). (Parsing, pickling and
    # inserting 100k records together: within the noise of that measurement, ±10%.)
    # The full-text values likewise, which halved their pickling (0.19 s against 0.11 s
    # for 200k records: a build moves a third of the store's bytes through them).
    ids: list[str | None] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    times: list[str] = field(default_factory=list)
    speakers: list[str | None] = field(default_factory=list)
    threads: list[str | None] = field(default_factory=list)
    formats: list[str | None] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    subject_values: list[str | None] = field(default_factory=list)  # the column, as read
    subjects: list[bytes] = field(default_factory=list)  # the full-text values
    texts: list[bytes] = field(default_factory=list)
    listener_of: list[int] = field(default_factory=list)  # n, and the name, per listener
    listeners: list[str] = field(default_factory=list)
    tag_of: list[int] = field(default_factory=list)  # n, folded and as written, per tag
    tags_folded: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    unfolded: list[int] = field(default_factory=list)  # n of each ``folding.unfolded`` text

    def message_rows(self, n: int) -> tuple:
        """Record ``n``'s ``messages`` columns (tests read a batch through this)."""
        return (self.ids[n], self.offsets[n], self.lengths[n], self.times[n], self.speakers[n],
                self.threads[n], self.formats[n], self.roles[n], self.subject_values[n])  # fmt: skip


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
    batch's columns; ``tests/index/test_rows.py`` checks the two agree.
    """

    __slots__ = ("batch", "interned", "n", "names", "put")

    def __init__(self) -> None:
        b = self.batch = Batch()
        self.names: dict[str, str] = {}  # one str object per name: pickled once per batch
        self.interned: dict[Any, Any] = dict(_ROLE)  # formats and tags, likewise
        self.n = 0
        self.put: tuple[Any, ...] = tuple(
            column.append
            for column in (b.ids, b.offsets, b.lengths, b.times, b.speakers, b.threads,
                           b.formats, b.roles, b.subject_values)
        )  # fmt: skip

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
        p_id, p_offset, p_length, p_time, p_speaker, p_thread, p_format, p_role, p_subject = (
            self.put
        )
        p_id(_string(get("id")))
        p_offset(offset)
        p_length(length)
        p_time(ts)
        p_speaker(None if speaker is None else self.names.setdefault(speaker, speaker))
        p_thread(fields.conversation(record))
        p_format(fmt if fmt is None else interned.setdefault(fmt, fmt))
        p_role(interned.setdefault(role, role))
        p_subject(subject)
        self._text(n, subject, get("textChunks"), get)
        self._people(n, meta)
        labels = get("tags")
        if type(labels) is list:
            b = self.batch
            for t in labels:
                if type(t) is str:
                    t = interned.setdefault(t, t)
                    b.tag_of.append(n)
                    b.tags_folded.append(t.casefold())
                    b.tags.append(t)
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
            names, of, listeners = self.names, self.batch.listener_of, self.batch.listeners
            for x in people:
                if type(x) is str and x:
                    of.append(n)
                    listeners.append(names.setdefault(x, x))


def _string(value: Any) -> str | None:
    """``fields.string``: a non-empty string, else None."""
    return value if type(value) is str and value else None
