"""Store maintenance: ``rm``, ``tag add|rm`` and ``compact``, atomic and locked.

Each operation holds the store lock (``Store.locked``) for its whole run, copies the
store line by line into a temporary file in the same folder, fsyncs it, and renames it
over the store; the index follows in the same lock (``convo.index.rewrite``), committed
just after the rename. A kill -9 at any moment leaves the old store or the new one whole
(the rename is atomic), and the index either matches the store or names the old file's
inode, which every reader sees as stale (and rebuilds). Waiting writers re-lock the new
file (``Store.locked`` checks the path still names the file it locked).

Lines that are not records (torn or invalid) are kept by ``rm`` and ``tag`` and dropped
by ``compact``, which also drops repeated ids (the first one stays); dropped lines are
appended to ``<store>.torn`` so that nothing is lost: spooled to a temporary file while
the copy is made (memory stays flat however many there are), appended and fsynced just
before the rename, and cut back if that append fails. A kill between the two leaves the
old store whole and the lines in ``.torn`` as well (a second ``compact`` adds them there
again: a repeat in the quarantine file, never a loss).

Selection is by id and/or a predicate on the parsed record (the command line passes
``convo.query.scan.Selector(filters).matches``): both given, both must hold. When every
selected record has one of a few ids (``ids``, or ``within``: the ids a query requires,
``store.idlines.required_ids``), only the lines that may hold one are parsed; the rest
are copied as they are (``convo.store.idlines``).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

from convo.core import fields, scratch
from convo.core.errors import RecordError, UsageError
from convo.index.build import sync
from convo.index.rewrite import Follower
from convo.index.rows import parse as parse_object
from convo.index.rows import row_of
from convo.store.append import StoreFile as Store
from convo.store.append import located, refuse_foreign

if TYPE_CHECKING:
    from convo.store.dedup import HeldIds

Matcher = Callable[[dict[str, Any]], bool]
Piece = tuple[int, bytes, bool]  # offset, bytes, whether it is one line to edit
Track = Callable[[Iterator[Piece]], Iterable[Piece]]  # a progress line
BLOCK = 1 << 20
BOM = b"\xef\xbb\xbf"
SHOW_IDS = 1000
NOT_CHANGED = "nothing was changed; fix it and re-run"


@dataclass
class MaintenanceResult:
    matched: int = 0  # records the operation applies to
    changed: int = 0  # lines removed or rewritten (0 on a dry run)
    ids: list[str] = field(default_factory=list)  # the first SHOW_IDS matched ids
    dropped_bad: int = 0  # compact: lines that were not records
    dropped_duplicates: int = 0  # compact: repeated ids
    renamed: int = 0  # compact: an id repeated on another message, now its content hash
    dry_run: bool = False
    index: str = ""  # what happened to the index: updated, or why not
    notes: list[str] = field(default_factory=list)  # a killed save undone first (core.journal)

    def note(self, rid: str | None) -> None:
        self.matched += 1
        if rid is not None and len(self.ids) < SHOW_IDS:
            self.ids.append(rid)


# A line edit: None keeps the line, b"" drops it, other bytes replace it (no newline).
Edit = Callable[[bytes, dict[str, Any] | None], bytes | None]


def _physical_lines(f: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """``(offset, bytes)`` of every line including its newline (the last may lack one),
    from the spans of whole lines ``query.blocks.iter_spans`` reads (``store.idlines``
    reads the same)."""
    from convo.query.blocks import iter_spans

    for buf, start, end, _torn, at in iter_spans(f, BLOCK, bom=False):
        pos = start
        while (nl := buf.find(b"\n", pos, end)) >= 0:
            yield at + pos, buf[pos : nl + 1]
            pos = nl + 1
        if pos < end:
            yield at + pos, buf[pos:end]


def _pieces(f: IO[bytes], ids: Collection[str] | None) -> Iterator[Piece]:
    """``(offset, bytes, is a line to edit)``: every line, or with ``ids`` the lines that
    may hold one and the runs of lines between (``store.idlines``)."""
    from convo.store import idlines

    found = idlines.needles(ids) if ids is not None else None
    if found is None:
        return ((offset, chunk, True) for offset, chunk in _physical_lines(f))
    return idlines.pieces(f, found)


class _Copy:
    """The new store being written, with the index following along."""

    def __init__(self, path: Path, follower: Follower | None, compacting: bool = False):
        fd, name = scratch.file(path.parent, path.name, "rewrite")
        self.tmp = Path(name)
        self.out = os.fdopen(fd, "w+b")
        self.pos = 0
        self.follower = follower
        self.compacting = compacting
        self.dropped: IO[bytes] | None = None  # compact's dropped lines, for <store>.torn

    def line(self, offset: int, chunk: bytes, edit: Edit) -> bool:
        """Copy one line through ``edit``; True when it changed."""
        body = chunk.rstrip(b"\r\n")
        if offset == 0 and body.startswith(BOM):
            self.out.write(BOM)
            self.pos += 3
            offset, chunk, body = 3, chunk[3:], body[3:]
        record = parse_object(body) if body.strip() else None
        new = edit(body, record)
        follower = self.follower
        if new is None:
            if follower is not None:
                follower.line(offset, self.pos, record)
            self._write(chunk)
            return False
        if new == b"":
            if body.strip() and self.compacting:
                if self.dropped is None:
                    self.dropped = tempfile.TemporaryFile(  # noqa: SIM115 - closed in close()
                        dir=self.tmp.parent, prefix=".convo-torn-"
                    )
                self.dropped.write(body + b"\n")
            if follower is not None:
                follower.line(offset, None, record)
            return True
        if follower is not None:
            after = parse_object(new)
            tags = fields.str_list(after.get("tags")) if after is not None else []
            follower.line(offset, self.pos, record, len(new), tags, _new_id(record, after))
        self._write(new + b"\n")
        return True

    def all(self, pieces: Iterator[Piece], edit: Edit, track: Track | None) -> int:
        """Copy ``pieces`` (``_pieces``); the number of lines changed."""
        changed = 0
        for offset, chunk, line in track(pieces) if track is not None else pieces:
            if line:
                changed += self.line(offset, chunk, edit)
            else:
                self.gap(offset, chunk)
        return changed

    def gap(self, offset: int, data: bytes) -> None:
        """Copy whole lines that no edit touches, unparsed (``store.idlines.pieces``)."""
        if self.follower is not None:
            self.follower.gap(offset, offset + len(data), self.pos - offset)
        self._write(data)

    def _write(self, data: bytes) -> None:
        self.out.write(data)
        self.pos += len(data)

    def close(self) -> None:
        """Close and remove the copy (renamed already when the rewrite succeeded). A close
        that fails (the last flush of a full disk) still removes it: the error that
        stopped the copy is the one reported."""
        try:
            self.out.close()
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                self.tmp.unlink()
            if self.dropped is not None:
                with contextlib.suppress(OSError):
                    self.dropped.close()


def _renamed(body: bytes, seen: HeldIds, mark: int) -> tuple[str, bytes] | None:
    """Compact's ``(id, line)`` of another message under a held id: its content hash, if
    that is new. None (a repeated id, dropped) when it is held too, or when the record is
    not one convo can hash (``convo validate`` rejects it: no content hash to give)."""
    from convo.core.stamps import renamed
    from convo.store.dedup import NEW

    try:
        new_id, line = renamed(body)
    except RecordError:
        return None
    return (new_id, line.rstrip(b"\n")) if seen.admit(new_id, mark) == NEW else None


def _new_id(
    record: dict[str, Any] | None, after: dict[str, Any] | None
) -> tuple[str | None, str | None] | None:
    """The index's ``(id, thread)`` of an edited line whose id changed, else None."""
    if record is None or after is None or record.get("id") == after.get("id"):
        return None
    row = row_of(after)
    return row.id, row.thread


def _rewrite(
    store: Store, edit: Edit, result: MaintenanceResult, *, compacting: bool,
    track: Track | None = None, ids: Collection[str] | None = None,
) -> None:  # fmt: skip
    """Copy the store through ``edit`` and rename the copy over it (not on a dry run);
    ``ids``: every line ``edit`` changes holds one of them (the others are copied unread).

    A store named through a symbolic link is rewritten where the link points
    (``Store.real``), with its lock and index beside it: the link stays a link."""
    path = store.real
    if not path.exists():
        result.index = "no store"
        return
    with (
        store.locked(hint=NOT_CHANGED, on_recover=result.notes.append),
        located(str(store.path), NOT_CHANGED),
    ):
        if compacting:  # it drops what is no record: a file that is no store, all of it
            with open(path, "rb") as head:
                refuse_foreign(head.fileno(), str(store.path), "nothing was changed")
        _remove_stale_copies(path)
        synced = sync(path, create=False)
        follower = Follower.open(path) if synced.available else None
        result.index = "updated" if follower is not None else (synced.reason or "stale")
        copy: _Copy | None = None
        try:
            copy = _Copy(path, follower, compacting)
            with open(path, "rb") as f:
                result.changed += copy.all(_pieces(f, ids), edit, track)
            if result.dry_run or not result.changed:
                result.changed = 0 if result.dry_run else result.changed
                if follower is not None:
                    follower.abandon()
                result.index = "unchanged"
                return
            _commit(path, copy, follower, compacting)
        except BaseException:
            if follower is not None:
                follower.abandon()
            if copy is None:  # a signal between the copy's creation and its name: under
                _remove_stale_copies(path)  # the lock, every copy there is this one
            raise
        finally:
            if copy is not None:
                copy.close()


def _commit(path: Path, copy: _Copy, follower: Follower | None, compacting: bool) -> None:
    copy.out.flush()
    os.fsync(copy.out.fileno())
    with contextlib.suppress(OSError):
        os.chmod(copy.tmp, path.stat().st_mode & 0o777)
    if copy.dropped is not None:
        _keep_torn(Path(f"{path}.torn"), copy.dropped)
    if follower is not None:
        end = copy.pos if copy.pos == 0 or _ends_whole(copy.out) else _last_newline(copy.out)
        follower.finish(copy.out, end, 0 if compacting else None)
    os.replace(copy.tmp, path)
    _fsync_dir(path.parent)
    if follower is not None:
        follower.commit()


def _keep_torn(torn: Path, dropped: IO[bytes]) -> None:
    """Append the spooled ``dropped`` lines to ``torn``, fsynced; all or none (a failed
    append is cut back, so ``torn`` never ends in half a line)."""
    import shutil

    dropped.seek(0)
    with open(torn, "ab", buffering=0) as out:  # unbuffered: nothing written after a cut
        start = out.seek(0, os.SEEK_END)
        try:
            shutil.copyfileobj(dropped, out)
            os.fsync(out.fileno())
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(out.fileno(), start)
            raise


def _ends_whole(out: IO[bytes]) -> bool:
    out.seek(-1, os.SEEK_END)
    return out.read(1) == b"\n"


def _last_newline(out: IO[bytes]) -> int:
    from convo.index.rows import end_of_whole_lines

    return end_of_whole_lines(out, out.seek(0, os.SEEK_END), 0)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _remove_stale_copies(path: Path) -> None:
    """Temporary copies left by a killed rewrite (rewrites run under the lock)."""
    for old in path.parent.glob(f".{path.name}.*.rewrite"):
        with contextlib.suppress(OSError):
            old.unlink()


def _needed(ids: Collection[str], within: Collection[str] | None) -> Collection[str] | None:
    """The fewer of the two id sets every selected record is in (None: no such set)."""
    sets = [x for x in (ids or None, within) if x is not None]
    return min(sets, key=len) if sets else None


def _selector(ids: Collection[str], matcher: Matcher | None) -> Matcher:
    if not ids and matcher is None:
        raise UsageError("nothing selected", hint="name ids or give filters (--speaker, --tag...)")
    wanted = set(ids)

    def selected(record: dict[str, Any]) -> bool:
        if wanted and fields.record_id(record) not in wanted:  # a list id: unhashable
            return False
        return matcher is None or matcher(record)

    return selected


def remove(
    store: Store,
    *,
    ids: Collection[str] = (),
    matcher: Matcher | None = None,
    dry_run: bool = False,
    track: Track | None = None,
    within: Collection[str] | None = None,
) -> MaintenanceResult:
    """Remove the selected records (``track`` wraps the lines read: a progress line;
    ``within``: ids every record ``matcher`` accepts has one of, when known)."""
    selected = _selector(ids, matcher)
    result = MaintenanceResult(dry_run=dry_run)

    def edit(body: bytes, record: dict[str, Any] | None) -> bytes | None:
        if record is None or not selected(record):
            return None
        result.note(fields.record_id(record))
        return b""

    _rewrite(store, edit, result, compacting=False, track=track, ids=_needed(ids, within))
    return result


def tag(
    store: Store,
    *,
    add: Sequence[str] = (),
    remove: Sequence[str] = (),
    ids: Collection[str] = (),
    matcher: Matcher | None = None,
    dry_run: bool = False,
    track: Track | None = None,
    within: Collection[str] | None = None,
) -> MaintenanceResult:
    """Add the tags ``add`` to and remove ``remove`` (case-insensitively) from the selected
    records' tags; a record counts when one of its tags changes."""
    from convo.core.errors import check_decoded

    for name in (*add, *remove):  # a lone surrogate: orjson cannot write the line
        check_decoded(name)
    change = _retag(add, remove)
    selected = _selector(ids, matcher)
    result = MaintenanceResult(dry_run=dry_run)

    def edit(body: bytes, record: dict[str, Any] | None) -> bytes | None:
        if record is None or not selected(record):
            return None
        kept = change(fields.tags(record))
        if kept is None:
            return None  # already as asked
        result.note(fields.record_id(record))
        record["tags"] = kept
        return orjson.dumps(record)

    _rewrite(store, edit, result, compacting=False, track=track, ids=_needed(ids, within))
    return result


def removed(records: Iterable[dict[str, Any]]) -> MaintenanceResult:
    """A dry run of ``remove`` over ``records``, the selection already made."""
    result = MaintenanceResult(dry_run=True, index="unchanged")
    for record in records:
        result.note(fields.record_id(record))
    return result


def retagged(
    records: Iterable[dict[str, Any]], add: Sequence[str], remove: Sequence[str]
) -> MaintenanceResult:
    """A dry run of ``tag`` over ``records``, the selection already made."""
    change = _retag(add, remove)
    result = MaintenanceResult(dry_run=True, index="unchanged")
    for record in records:
        if change(fields.tags(record)) is not None:
            result.note(fields.record_id(record))
    return result


def _retag(add: Sequence[str], remove: Sequence[str]) -> Callable[[list[str]], list[str] | None]:
    """The tags after the change, or None when they stay as they are."""
    names = [*add, *remove]
    if not names or any(not n.strip() for n in names):
        raise UsageError("empty tag", hint="name the tag to add or remove")
    gone = {n.casefold() for n in remove}

    def change(tags: list[str]) -> list[str] | None:
        kept = [t for t in tags if t.casefold() not in gone]
        have = {t.casefold() for t in kept}
        for name in add:
            if name.casefold() not in have and name.casefold() not in gone:
                kept.append(name)
                have.add(name.casefold())
        return None if kept == tags else kept

    return change


def compact(
    store: Store, *, dry_run: bool = False, track: Track | None = None
) -> MaintenanceResult:
    """Drop lines that are not records (torn or invalid), blank lines and repeated ids.

    A repeated id on another message (of another time and text: ``store.dedup``, the rule
    a save follows; a store written by something else, or by a convo before it) is not a
    repeat: that message is kept under its content hash (``renamed``)."""
    from convo.core.stamps import record_stamp
    from convo.store.dedup import NEW, OTHER, HeldIds

    result = MaintenanceResult(dry_run=dry_run)
    seen = HeldIds()

    def edit(body: bytes, record: dict[str, Any] | None) -> bytes | None:
        if record is None:
            if body.strip():
                result.dropped_bad += 1
            return b""
        rid = record.get("id")
        if not isinstance(rid, str):
            return None
        mark = record_stamp(record)
        verdict = seen.admit(rid, mark)
        if verdict == OTHER and (line := _renamed(body, seen, mark)) is not None:
            result.renamed += 1
            result.note(line[0])
            return line[1]
        if verdict != NEW:
            result.dropped_duplicates += 1
            result.note(rid)
            return b""
        return None

    _rewrite(store, edit, result, compacting=True, track=track)
    return result
