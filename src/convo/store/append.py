"""The store: one JSONL file that ``ingest --save`` appends to and read commands default to.

Where it lives (``convo.store.path``): ``--store PATH``, else ``$CONVO_STORE``,
else ``$XDG_DATA_HOME/convo/messages.jsonl``; links followed, anything but a regular file
refused.

Appends hold the lock of ``convo.core.lock``, skip ids already present (an id the store
holds for another message, of another time and text, is saved under the message's
content hash instead: ``convo.store.dedup``), validate every
record (``convo.store.validate.check_record``, or ``check_message`` for messages), write
whole lines and fsync each batch. An append is all-or-nothing: on an error or Ctrl-C the
file is cut back to where it began, its modification time restored (so the index still
matches it); under kill -9 the journal of ``convo.core.journal`` (written before the first
byte, removed when the last one is written: the save is made then; the index follows
after) lets the next holder of the lock do the same. A torn tail (a store written by
something else, or a convo older than the journal) is moved aside to ``<store>.torn``
(and reported) before the next append, so lines never interleave or split.
Readers need no lock: ``convo.core.io.open_binary`` (``convo.core.jsonl.committed_end``)
stops where the store ended before an unfinished save.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

from convo.core.errors import InputError, RecordError
from convo.core.jsonl import Line, dumps, iter_lines, last_newline
from convo.core.plural import counted, plural
from convo.store.lines import ReadyBlock, ReadyLine
from convo.store.path import default_store_path, protect_store, real_file

if TYPE_CHECKING:
    from convo.core.idset import IdSet
    from convo.core.record import ConversationMessage
    from convo.store.dedup import HeldIds, IndexIds

# Appending's own modules (the lock, the id set, the index's ids, tempfile, hashlib) are
# imported where an append needs them: a read of the store, `convo search` first of all,
# loads none of them (tests/cli/test_startup.py).

BATCH_BYTES = 1 << 20
NOT_APPENDED = "nothing was appended; fix it and re-run"

Waiter = Callable[[str], None]


@dataclass
class AppendResult:
    added: int = 0
    duplicates: int = 0
    torn_bytes: int = 0  # bytes of a torn tail moved to <store>.torn
    renamed: int = 0  # added under their content hash: their id names another message
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


def _cut_back(fd: int, start: int, was: os.stat_result, real: Path, begun: bool) -> None:
    """All or nothing: an error or Ctrl-C part-way leaves the store as it was, its time
    too, and an index that matched it still matching (``convo.index.state``: the cut
    moves the ctime alone, which ``restamp`` records). A cut that fails leaves the
    journal for the next holder of the lock."""
    from convo.core import journal

    with contextlib.suppress(OSError):
        os.ftruncate(fd, start)
        with contextlib.suppress(OSError):  # not the owner: the time is only a hint
            os.utime(fd, ns=(was.st_atime_ns, was.st_mtime_ns))
        os.fsync(fd)
        if begun:
            journal.end(real)
            from convo.index.state import restamp

            restamp(real, was)


def renamed_note(n: int) -> str:
    """What a save says of the messages it stored under their content hash."""
    return (
        f"{counted(n, 'message')} saved under {plural(n, 'its', 'their')} content hash: the store "
        f"holds {plural(n, 'its', 'their')} id for another message (of another time and text)"
    )


@contextlib.contextmanager
def located(where: str, hint: str = NOT_APPENDED) -> Iterator[None]:
    """A failed system call on the store (a full disk, a read-only file system) as one line."""
    try:
        yield
    except OSError as e:
        from convo.core.io import os_error

        raise os_error(e, where, hint) from None


class StoreFile:
    """The JSONL store file: its lock and its appends (``convo.store.Store`` adds the rest).
    Reading needs no lock; appending takes an exclusive one.

    ``path`` is the store as named; ``real`` the file it is (links followed), next to
    which the lock and ``.torn`` files live.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = default_store_path(path)
        self.real = real_file(self.path)
        protect_store(self.real)

    def exists(self) -> bool:
        return self.path.exists()

    def ids(self) -> IdSet:
        """Every id in the store (one streaming pass), as a compact set."""
        if not self.path.exists():
            from convo.core.idset import IdSet

            return IdSet()
        with located(str(self.path), "the store cannot be read"), open(self.real, "rb") as f:
            return _ids_of(f)

    @contextlib.contextmanager
    def locked(
        self,
        *,
        wait: float | None = None,
        on_wait: Waiter | None = None,
        on_recover: Waiter | None = None,
        hint: str = NOT_APPENDED,
    ) -> Iterator[int]:
        """An exclusive lock on the store, yielding an O_APPEND descriptor.

        ``wait``, ``on_wait`` and ``on_recover``: see ``convo.core.lock.hold`` (give up
        after ``wait`` seconds; ``on_wait`` says who holds the lock after a second of
        waiting; ``on_recover`` that a killed save was undone);
        ``hint``: what a store that cannot be opened says (a rewrite's own words).
        """
        from convo.core import lock

        where = str(self.path)
        with located(where, hint):
            self.real.parent.mkdir(parents=True, exist_ok=True)
        with lock.hold(self.real, where, wait=wait, on_wait=on_wait, on_recover=on_recover):
            with located(where, hint):
                fd = os.open(self.real, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                yield fd
            finally:
                os.close(fd)

    def append(
        self,
        items: Iterable[tuple[str, bytes]],
        on_added: Callable[[str], None] | None = None,
        *,
        wait: float | None = None,
        on_wait: Waiter | None = None,
    ) -> AppendResult:
        """Append ``(id, line)`` pairs whose id is not in the store yet.

        ``line`` is one JSONL line including its newline; each must pass
        ``check_record`` (what ``convo validate`` accepts), else a RecordError is raised
        and nothing is appended. The whole call holds the lock, so two concurrent
        ingests never interleave and never both add the same id. ``on_added(id)`` is
        called for each id that is new. ``wait``/``on_wait``: see ``locked``.
        """
        checked = (self._checked(n, rid, line) for n, (rid, line) in enumerate(items, 1))
        return self._append(checked, on_added, wait, on_wait)

    def append_messages(
        self,
        messages: Iterable[ConversationMessage | ReadyLine | ReadyBlock],
        *,
        wait: float | None = None,
        on_wait: Waiter | None = None,
    ) -> AppendResult:
        """Append messages (each passing ``check_message``; a ``ReadyLine`` or
        ``ReadyBlock`` passed it where it was finished) whose id is new, all or none.

        They are spooled next to the store first, so the lock is held only for the
        final append (and ``--strict`` can stop with nothing written).
        """
        where = str(self.path)
        with _spool(self.real.parent, where) as spool:
            with located(where):
                n = 0
                for msg in messages:
                    if isinstance(msg, ReadyLine | ReadyBlock):  # checked where finished
                        spool.write(msg.line)
                        n += msg.count
                    else:
                        n += 1
                        spool.write(dumps(_stored(msg, f"{where} (message {n})").serialize()))
                spool.flush()
                spool.seek(0)
            return self._append(_spooled(spool), None, wait, on_wait)

    def _checked(self, n: int, rid: str, line: bytes) -> tuple[str, bytes, int]:
        from convo.core.stamps import record_stamp
        from convo.store.validate import check_record  # (pydantic: not for reads)

        where = f"{self.path} (record {n} of the append)"
        body = line[:-1] if line.endswith(b"\n") else line
        if b"\n" in body or not line.endswith(b"\n"):
            raise InputError("not one line ending in a newline", where=where, hint=NOT_APPENDED)
        try:
            record = check_record(Line(n, body), "")
        except RecordError as e:
            raise RecordError(e.what, where=where, hint=NOT_APPENDED) from None
        return rid, line, record_stamp(record)

    def _append(
        self,
        items: Iterable[tuple[str, bytes, int]],
        on_added: Callable[[str], None] | None,
        wait: float | None,
        on_wait: Waiter | None,
    ) -> AppendResult:
        from convo.core import journal
        from convo.store.dedup import IndexIds, after_append

        result = AppendResult()
        where = str(self.path)
        with self.locked(wait=wait, on_wait=on_wait, on_recover=result.notes.append) as fd:
            with located(where):
                refuse_foreign(fd, where)
                result.torn_bytes = self._repair_tail(fd)
                start = os.lseek(fd, 0, os.SEEK_END)
                was = os.fstat(fd)
                seen = self._seen_ids()
            if result.torn_bytes:
                result.notes.append(
                    f"{self.path}: a torn last line ({result.torn_bytes} bytes) from an interrupted "
                    f"write was moved to {self.real}.torn"
                )
            begun = False

            def begin() -> None:  # before the first byte (an all-duplicate save writes none)
                nonlocal begun
                begun = True
                journal.begin(self.real, was)

            try:
                with located(where):
                    _write_new(fd, items, seen, result, on_added, begin)
                    if begun:
                        journal.end(self.real)  # the save is made
            except BaseException:
                _cut_back(fd, start, was, self.real, begun)
                raise
            finally:
                if isinstance(seen, IndexIds):
                    seen.close()
                del seen  # the ids of a large save: not held while the index catches up
            synced = after_append(self.real)  # still under the lock: the index follows
            if synced.reason.startswith("cannot update the index"):
                result.notes.append(
                    f"{synced.reason}: the next command that reads the store updates it"
                )
        return result

    def _seen_ids(self) -> HeldIds | IndexIds:
        """The ids already stored, with what tells their messages apart
        (``store.dedup``): from the index when it can serve (a save then costs in
        proportion to the new messages), else read from the whole store."""
        from convo.store.dedup import HeldIds, open_ids

        ids = open_ids(self.real)
        if ids is not None:
            return ids
        held = HeldIds()
        with open(self.real, "rb") as f:
            for rid, _line, mark in _spooled(f):
                held.setdefault(rid, mark)
        return held

    def _repair_tail(self, fd: int) -> int:
        end = os.lseek(fd, 0, os.SEEK_END)
        if end == 0 or os.pread(fd, 1, end - 1) == b"\n":
            return 0
        cut = last_newline(fd, end)  # everything after it is a partial record
        tail = os.pread(fd, end - cut, cut)
        with open(f"{self.real}.torn", "ab") as torn:
            torn.write(tail + b"\n")
        os.ftruncate(fd, cut)
        os.fsync(fd)
        return len(tail)


HEAD_BYTES = 64 << 10


def refuse_foreign(fd: int, where: str, done: str = "nothing was appended") -> None:
    """Append to nothing but a store: a file that holds something and does not begin with
    a JSON object (a BOM and blank space aside), and none of whose first lines is one, is
    another file named by mistake (``--store notes.txt``, ``$CONVO_STORE`` set to an
    export folder's PNG...): one located line, nothing written to it, no torn tail moved
    out of it. A store whose first line alone is damaged is still one (``compact`` is how
    it is mended). ``compact`` refuses such a file too: it made a ``--store`` named at
    a gzip or SQLite file empty, its lines in ``.torn`` without their blank ones (the
    file no longer whole)."""
    head = os.pread(fd, HEAD_BYTES, 0)
    body = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not body or body.startswith(b"{") or any(map(_an_object, head.split(b"\n")[1:-1])):
        return  # empty (or blank space only so far), or a store
    raise InputError(
        "not a convo store: the file does not begin with a JSON record",
        where=where,
        hint=f"point --store (or $CONVO_STORE) at a JSONL store or a new file; {done}",
    )


def _an_object(line: bytes) -> bool:
    if not line.lstrip().startswith(b"{"):
        return False
    try:
        return isinstance(orjson.loads(line), dict)
    except orjson.JSONDecodeError:
        return False


@contextlib.contextmanager
def _spool(folder: Path, where: str) -> Iterator[IO[bytes]]:
    """A temporary file next to the store (removed on close, also on Ctrl-C)."""
    import tempfile

    from convo.core.io import closed_quietly

    with located(where):
        folder.mkdir(parents=True, exist_ok=True)
        spool = tempfile.TemporaryFile(dir=folder, prefix=".convo-spool-")  # noqa: SIM115
    with closed_quietly(spool):  # a full disk stopped it: its close would fail again
        yield spool


def _stored(msg: Any, where: str) -> ConversationMessage:
    """``msg`` if the store may hold it (``check_message``, and the keys ``validate`` needs).

    Anything else with ``serialize()`` is validated as a record first."""
    # Imported here, as in ``_checked``: a read of the store never loads pydantic.
    from convo.core.record import ConversationMessage, check_message, parse_record

    if not isinstance(msg, ConversationMessage):
        msg = parse_record(msg.serialize(), where)
    check_message(msg, where)
    if not (msg.id and msg.format and msg.source_id):
        raise InputError("a message needs id, format and source_id", where=where, hint=NOT_APPENDED)
    return msg


def _spooled(stream: IO[bytes]) -> Iterator[tuple[str, bytes, int]]:
    """``(id, line, stamp)`` of each record of a spool or the store (lines that are not
    records skipped; ``core.stamps.record_stamp``)."""
    from convo.core.stamps import record_stamp

    for line in iter_lines(stream):
        try:
            value = orjson.loads(line.raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict) and isinstance(rid := value.get("id"), str):
            yield rid, line.raw + b"\n", record_stamp(value)


def _write_new(
    fd: int,
    items: Iterable[tuple[str, bytes, int]],
    seen: HeldIds | IndexIds,
    result: AppendResult,
    on_added: Callable[[str], None] | None,
    begin: Callable[[], None],
) -> None:
    """Write the lines whose id is new, a batch at a time; ``begin()`` before the first.
    A line whose id the store holds for another message goes under its content hash
    (``store.dedup``; a duplicate if the store holds that too)."""
    from convo.core.stamps import renamed
    from convo.store.dedup import NEW, OTHER

    buf: list[bytes] = []
    size = 0
    begun = False
    for rid, line, stamp in items:
        verdict = seen.admit(rid, stamp)
        if verdict == OTHER:
            rid, line = renamed(line, f"message {rid}")
            verdict = seen.admit(rid, stamp)
            if verdict == NEW:
                result.renamed += 1
        if verdict != NEW:
            result.duplicates += 1
            continue
        buf.append(line)
        size += len(line)
        result.added += 1
        if on_added is not None:
            on_added(rid)
        if size >= BATCH_BYTES:
            if not begun:
                begin()
                begun = True
            _write_all(fd, b"".join(buf))
            buf.clear()
            size = 0
    if buf:
        if not begun:
            begin()
        _write_all(fd, b"".join(buf))
    if result.renamed:
        result.notes.append(renamed_note(result.renamed))


def _ids_of(stream) -> IdSet:
    from convo.core.idset import IdSet

    ids = IdSet()
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
