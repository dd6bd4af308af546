"""The append journal: what makes a save all-or-nothing even when its process is killed.

An append (``convo.store.append``) writes ``.<store>.journal`` beside the store before its
first byte: the store's device and inode, its size and its times as they were. It is
removed once every line of the save is written and fsynced: that removal is the moment
the save is made. The index follows after it (``convo.store.dedup.after_append``); a kill
between the two leaves an index that is only behind, which the next command updates.

What is fsynced, and why: a kill (even -9) loses nothing the process wrote, so the
journal needs no fsync to do its work; only its removal is made durable (the folder
fsynced), so that a power cut can never bring back the journal of a save that was
reported made (its lines fsynced as before) and have it undone. A power cut in the middle
of a save may keep part of it, as before the journal (the first fsync of the store's
lines usually carries the journal's creation with it, ext4's journal being one for the
whole file system, but nothing here counts on it). Measured (a begin and an end, 150
alternating pairs, load average 12 with other processes writing, where a fsync waits for
theirs): one fsync 7.4 ms median, three (the journal and its folder at the start too)
22 ms; with little disk traffic, three took 0.4 ms.

- **Whoever takes the store lock next** (``convo.core.lock.hold``: the next save, a
  rewrite, a reader bringing the index up to date) and finds a journal cuts the store
  back to the recorded size and gives it back its times, so the index, which never saw
  those lines, still matches it (``recover``). Holding the lock is the proof that the
  journal's writer is gone: the kernel drops a ``flock`` when its holder dies, and a
  living writer removes its journal before it lets the lock go.
- **Readers take no lock**: they stop where the journal says the store ended
  (``committed_size``, asked by ``convo.core.jsonl.committed_end``), so an unfinished
  save, live or killed, is never read, and a save that is then rolled back was never seen.
- ``rm``, ``tag`` and ``compact`` rename a whole new store over the old one: they need no
  journal (and a journal of another inode is stale: removed, nothing cut).

A journal whose record is incomplete was being written when its writer died: nothing was
appended yet (the store is written only after the whole journal is), so it is removed.
"""

from __future__ import annotations

import contextlib
import os
import sys

MAGIC = "convo-append-journal 1"
_FIELDS = ("pid", "dev", "ino", "size", "mtime_ns", "atime_ns")


def journal_path(path: str | os.PathLike[str]) -> str:
    """``.<name>.journal`` beside the store ``path`` (hidden, like its lock file)."""
    folder, name = os.path.split(os.fspath(path))
    return os.path.join(folder, f".{name}.journal")


class Entry:
    """What a journal records: the store as it was before the save (``before``)."""

    __slots__ = ("atime_ns", "dev", "ino", "mtime_ns", "pid", "program", "size")

    def __init__(self, values: dict[str, int], program: str) -> None:
        self.pid = values["pid"]
        self.dev = values["dev"]
        self.ino = values["ino"]
        self.size = values["size"]
        self.mtime_ns = values["mtime_ns"]
        self.atime_ns = values["atime_ns"]
        self.program = program

    def same_file(self, st: os.stat_result) -> bool:
        return (st.st_dev, st.st_ino) == (self.dev, self.ino)


def begin(path: str | os.PathLike[str], before: os.stat_result) -> None:
    """Record that a save begins on the store ``path``, whose state was ``before`` (an
    ``fstat`` taken under the lock, after the torn tail's repair). Not fsynced (see the
    module docstring). Raises OSError."""
    program = os.path.basename(sys.argv[0]) or "python"
    values = (os.getpid(), before.st_dev, before.st_ino, before.st_size,
              before.st_mtime_ns, before.st_atime_ns)  # fmt: skip
    fields = " ".join(f"{k}={v}" for k, v in zip(_FIELDS, values, strict=True))
    text = f"{MAGIC} {fields} program={program.replace(' ', '_')}\n".encode()
    jpath = journal_path(path)
    fd = os.open(jpath, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, text)  # a few dozen bytes: one write
    finally:
        os.close(fd)


def end(path: str | os.PathLike[str]) -> None:
    """The save is made (or undone): remove the journal, durably. Raises OSError."""
    jpath = journal_path(path)
    try:
        os.unlink(jpath)
    except FileNotFoundError:
        return
    _sync_folder(jpath)


def read(path: str | os.PathLike[str]) -> Entry | bool | None:
    """The journal of the store ``path``: an Entry; None when there is none; False when
    there is one that is incomplete (its writer died writing it). Raises OSError."""
    try:
        with open(journal_path(path), "rb") as f:
            data = f.read(4096)
    except FileNotFoundError:
        return None
    return _parse(data)


def _parse(data: bytes) -> Entry | bool:
    if not data.endswith(b"\n"):
        return False
    words = data.decode("utf-8", "replace").split()
    if " ".join(words[:2]) != MAGIC:
        return False
    pairs = dict(w.partition("=")[::2] for w in words[2:])
    try:
        values = {k: int(pairs[k]) for k in _FIELDS}
    except (KeyError, ValueError):
        return False
    return Entry(values, pairs.get("program", "?"))


def committed_size(path: str | os.PathLike[str], st: os.stat_result) -> int | None:
    """Where the saved bytes of the store ``path`` end, when a save is unfinished (its
    writer live or killed): the size the journal recorded; else None (all of it is saved).

    ``st``: the reader's ``fstat`` of the store, taken *before* this call, so a save that
    begins in between cannot slip past (its journal is written before its first byte).
    A reader's cost when there is no journal: one failed open."""
    for candidate in _named(path):
        try:
            entry = read(candidate)
        except OSError:
            continue
        if entry is None or entry is False:
            continue  # (an incomplete journal: nothing was appended after it yet)
        assert isinstance(entry, Entry)
        if entry.same_file(st) and entry.size < st.st_size:
            return entry.size
        return None
    return None


def _named(path: str | os.PathLike[str]) -> list[str]:
    """The store as named and, when the name is a link, the file it is (the journal is
    written beside the file the writer resolved)."""
    name = os.fspath(path)
    if not os.path.islink(name):
        return [name]
    return [name, os.path.realpath(name)]


def recover(path: str | os.PathLike[str]) -> str:
    """Undo the save a journal says was not finished (call holding the store lock: its
    writer is gone). Returns what was done, in words, or "" when there was no journal.
    Raises OSError when the store cannot be cut back (the journal then stays, and readers
    keep stopping where it says)."""
    entry = read(path)
    if entry is None:
        return ""
    if entry is False:  # its writer died writing it: the store was not touched
        end(path)
        return ""
    assert isinstance(entry, Entry)
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        end(path)
        return ""
    try:
        st = os.fstat(fd)
        if not entry.same_file(st) or st.st_size < entry.size:
            # the store was replaced or cut behind convo's back: no save of that file to undo
            end(path)
            return ""
        cut = st.st_size - entry.size
        if cut:
            os.ftruncate(fd, entry.size)
            with contextlib.suppress(OSError):  # not the owner: the time is only a hint
                os.utime(fd, ns=(entry.atime_ns, entry.mtime_ns))
            os.fsync(fd)
    finally:
        os.close(fd)
    end(path)
    if not cut:
        return ""
    return (
        f"an interrupted save (pid {entry.pid}, {entry.program}) was undone: "
        f"{cut} bytes it had appended were removed"
    )


def _sync_folder(path: str) -> None:
    """fsync the folder holding ``path`` (its entry made or removed), where that works."""
    try:
        fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):  # some file systems refuse a folder's fsync
            os.fsync(fd)
    finally:
        os.close(fd)
