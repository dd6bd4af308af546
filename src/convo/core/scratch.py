"""Temporary files named for the process that made them, and the sweep of those a killed
run left behind.

Every temporary file or folder convo makes under a name (beside an output, or in
``$TMPDIR``) is called ``.<name>.convo-<pid>-<random>.<kind>``, or
``.convo-<pid>-<random>.<kind>`` when it is not the twin of a named file: ``<pid>`` is the
process that made it, ``<kind>`` one of ``KINDS`` (``.out.jsonl.convo-4242-k3j9x0ab.tmp``,
``.out.convo-4242-k3j9x0ab.partial``, ``$TMPDIR/.convo-4242-k3j9x0ab.jobs``). A spool of
an input keeps the input's name after a dash (``.convo-4242-k3j9x0ab.spool-a.vtt``), as
its reader may look at it.

A run removes its own temporary files however it ends, except by SIGKILL (or a power
cut). ``sweep`` removes what such a run left, the first time a process makes a
temporary file in a folder (``file`` and ``folder`` call it), so litter lasts only until
the next write there: an entry is removed when its name has the form above, it belongs to
this user, its process is gone (``os.kill(pid, 0)`` raises ProcessLookupError) and nobody
has changed it for ``STALE_SECONDS``. The age is the guard against a process id that
means nothing here: one reused since, or one of another machine writing into a folder
shared over the network (such a writer keeps its file fresh). A file of a live process,
a fresh one, another user's, or any name of another form is never touched.

The index's own temporary database (``<store>.index.sqlite.tmp-<pid>``) is not swept
here: it is built under the store lock, so ``convo.index.build`` removes every one it
finds there before a build, at once.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterator

KINDS = ("tmp", "partial", "rewrite", "jobs", "spool", "knowledge", "typeagent")
STALE_SECONDS = 15 * 60  # unchanged this long, and its process gone: left by a killed run
_NAME = re.compile(
    r"\.(?:.+\.)?convo-(?P<pid>[1-9][0-9]{0,9})-[a-z0-9_]{8}\.(?:" + "|".join(KINDS) + r")(?:-.+)?",
    re.DOTALL,
)
_UID = os.getuid() if hasattr(os, "getuid") else 0
_swept: set[tuple[int, str]] = set()  # (process, folder): each folder once per process


def file(folder: str | os.PathLike[str] | None, name: str = "", kind: str = "tmp",
         tail: str = "") -> tuple[int, str]:  # fmt: skip
    """``tempfile.mkstemp`` in ``folder`` (None: ``$TMPDIR``) under an owned name (see the
    module docstring), after sweeping ``folder``: the open descriptor and the path."""
    where = _folder(folder)
    sweep(where)
    return tempfile.mkstemp(prefix=_prefix(name), suffix=f".{_kind(kind)}{tail}", dir=where)


def folder(parent: str | os.PathLike[str] | None, name: str = "", kind: str = "tmp") -> str:
    """``tempfile.mkdtemp`` in ``parent`` (None: ``$TMPDIR``) under an owned name, after
    sweeping ``parent``."""
    where = _folder(parent)
    sweep(where)
    return tempfile.mkdtemp(prefix=_prefix(name), suffix=f".{_kind(kind)}", dir=where)


@contextlib.contextmanager
def held_folder(parent: str | os.PathLike[str] | None, kind: str) -> Iterator[str]:
    """``folder(parent, kind=kind)`` for the block, removed with what it holds at its end."""
    made = folder(parent, kind=kind)
    try:
        yield made
    finally:
        import shutil

        shutil.rmtree(made, ignore_errors=True)


def owned(name: str) -> int | None:
    """The process id in ``name`` when it is an owned temporary name, else None."""
    m = _NAME.fullmatch(name)
    return int(m.group("pid")) if m else None


def sweep(where: str | os.PathLike[str], *, again: bool = False) -> list[str]:
    """Remove the temporary files and folders killed runs left in ``where`` (see the
    module docstring); the names removed. Once per process and folder unless ``again``;
    never fails (what cannot be read or removed stays)."""
    where = os.fspath(where)
    key = (os.getpid(), os.path.realpath(where))
    if key in _swept and not again:
        return []
    _swept.add(key)
    removed: list[str] = []
    with contextlib.suppress(OSError), os.scandir(where) as entries:
        for entry in entries:
            if "convo-" in entry.name and _left(entry) and _remove(entry):
                removed.append(entry.name)
    return removed


def _left(entry: os.DirEntry[str]) -> bool:
    pid = owned(entry.name)
    if pid is None or pid == os.getpid():
        return False
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        return False
    if st.st_uid != _UID or time.time() - st.st_mtime < STALE_SECONDS:
        return False
    return not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError, ValueError):
        return True  # another user's process (EPERM), or nothing we can tell: kept
    return True


def _remove(entry: os.DirEntry[str]) -> bool:
    try:
        if entry.is_dir(follow_symlinks=False):
            import shutil

            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
    except OSError:
        return False
    return True


def _prefix(name: str) -> str:
    return f".{name}.convo-{os.getpid()}-" if name else f".convo-{os.getpid()}-"


def _kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"not a temporary file kind: {kind!r}")
    return kind


def _folder(where: str | os.PathLike[str] | None) -> str:
    return tempfile.gettempdir() if where is None else os.fspath(where)
