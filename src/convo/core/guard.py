"""Files convo must never write over: the store, its index and lock, and every input read.

One rule for every writer of a file (``-o`` of ``ingest`` and ``export``, ``--rejects``):
a target that is the same file as a protected one is refused with one located line,
before anything is written and again just before the rename that would replace it (an
input read in between counts too). "The same file" is the same device and inode (so a
hard link or a symbolic link to the store is caught) or, for the store's files, the same
real path (the index's ``-journal`` need not exist yet).

The set is per process: the command line protects the store it names when it starts
(``convo.store.path.protect_store``), ``convo.store.Store`` protects its
file, and every open of an input asks ``reading`` (``convo.core.io``'s, and the range
readers' of ``convo.core.ranges`` that cut a large file across workers). A rewrite of
the store itself (``rm``, ``tag``, ``compact``, the memory API's ``replace``) does not ask.

A file written as the run goes (``--warnings``, ``convo.core.logfile``) is the other way
round: it is emptied when the run starts, so it may not be a file of a folder the run
reads (``check_emptied``), and while it is written it is never read as an input
(``writing``; ``reading`` refuses it at every open of an input).
"""

from __future__ import annotations

import os
import stat

from convo.core.errors import InputError

_by_inode: dict[tuple[int, int], tuple[str, str]] = {}  # (dev, ino) -> (role, real path)
_by_path: dict[str, str] = {}
_written: dict[tuple[int, int], str] = {}  # files being written as the run goes -> role
_written_fds: dict[int, tuple[int, int]] = {}

INPUT = "an input being read"


def _real(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(path)


def _key(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def protect(path: str | os.PathLike[str], role: str, *, fd: int | None = None) -> None:
    """Never write over ``path`` (``role`` says what it is: "the store", ...); ``fd``: the
    file as opened (for an input: the file read, even if ``path`` is renamed later)."""
    real = _real(path)
    if fd is None:  # an input is known by its inode alone: its path may name another file later
        _by_path.setdefault(real, role)
    try:
        st = os.fstat(fd) if fd is not None else os.stat(real)
    except OSError:
        return
    if stat.S_ISREG(st.st_mode):  # a FIFO or a device is written into, never replaced
        _by_inode.setdefault(_key(st), (role, real))


def reset() -> None:
    """Forget every protected file (a new command in the same process)."""
    _by_inode.clear()
    _by_path.clear()
    _written.clear()
    _written_fds.clear()


def role_of(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is when writing it would destroy a protected file, else None.

    An inode counts only while the path it was recorded under still names it, so a
    deleted input's inode reused by a new file is not mistaken for it."""
    real = _real(path)
    try:
        st = os.stat(real)
    except OSError:
        return _by_path.get(real)
    known = _by_inode.get(_key(st))
    if known is not None:
        role, recorded = known
        try:
            if _key(os.stat(recorded)) == _key(st):
                return role
        except OSError:
            pass
    return _by_path.get(real)


def check(path: str | os.PathLike[str], where: str | None = None) -> None:
    """A located InputError when ``path`` is a protected file (see the module docstring)."""
    role = role_of(path)
    if role is not None:
        raise InputError(
            f"refusing to write over {role}",
            where=where if where is not None else str(path),
            hint="name another file to write",
        )


def check_emptied(path: str | os.PathLike[str], where: str) -> None:
    """``check``, and for a file that is there and not empty, a located InputError when it
    lies in a folder named as an input (emptied at the start, it would be lost before
    the walk reads it)."""
    check(path, where)
    real = _real(path)
    try:
        st = os.stat(real)
    except OSError:
        return
    if not stat.S_ISREG(st.st_mode) or not st.st_size:
        return
    for folder, role in _by_path.items():
        if (
            role == INPUT
            and os.path.isdir(folder)
            and real.startswith(folder.rstrip(os.sep) + os.sep)
        ):
            raise InputError(
                f"refusing to empty a file of an input folder ({folder})",
                where=where,
                hint="name a file outside the folders read, or a new one",
            )


def writing(fd: int, role: str) -> None:
    """The regular file open at ``fd`` is being written as the run goes (``role``: what
    it is): no open for reading takes it as an input until ``done_writing``."""
    st = os.fstat(fd)
    _written[_key(st)] = role
    _written_fds[fd] = _key(st)


def done_writing(fd: int) -> None:
    """``fd`` (before it is closed) is no longer written."""
    key = _written_fds.pop(fd, None)
    if key is not None:
        _written.pop(key, None)


def reading(fd: int, path: str | os.PathLike[str], where: str) -> None:
    """The file open at ``fd`` (named ``path``) is about to be read as an input: a located
    InputError when this run is writing it (``refuse_written``), else it is protected from
    every output (``protect``). Every open of an input asks this, and nothing else."""
    refuse_written(fd, where)
    protect(path, INPUT, fd=fd)


def refuse_written(fd: int, where: str) -> None:
    """A located InputError when the file open at ``fd`` is one this run is writing
    (a folder input holding the ``--warnings`` file would read its own warnings)."""
    if not _written:
        return
    role = _written.get(_key(os.fstat(fd)))
    if role is not None:
        raise InputError(
            f"is {role}, written by this run: not read",
            where=where,
            hint="name a file outside the folders read",
        )
