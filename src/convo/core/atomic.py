"""Files out: ``atomic_writer`` replaces regular files atomically and writes into
devices and FIFOs, never over them; a failed write is one located line.

``write_target`` is what every writer of a named file checks first (this one and
``convo.core.logfile.LineLog``): where the name lands, and that it is not a folder, a
block device or a socket."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from convo.core import guard, scratch
from convo.core.errors import InputError, UsageError
from convo.core.io import COPY_BYTES, WRITE_ERRNOS, os_error, special_kind


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """Where writing ``path`` lands: links followed (a dangling one to its target); a link
    loop is a located InputError."""
    try:
        return Path(os.path.realpath(path, strict=True))
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise os_error(e, str(path), "point the link at a file") from None
        return Path(os.path.realpath(path))  # not there yet: the writer reports what fails


@dataclass(frozen=True)
class Target:
    """Where writing a name lands (``resolve_target``), its mode (None: not there yet) and
    ``kind``: ``"character device"`` or ``"FIFO"`` (written into), None for a file."""

    path: Path
    mode: int | None
    kind: str | None


def write_target(path: str | os.PathLike[str], *, hint: str = "name a file to write") -> Target:
    """The ``Target`` of writing ``path``: an empty name is a UsageError (``hint`` says what
    to name instead); a folder, a block device or a socket is a located InputError."""
    shown = str(path)
    if not shown:
        raise UsageError("the output file name is empty", hint=hint)
    target = resolve_target(path)
    try:
        mode: int | None = os.stat(target).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError("is a directory", where=shown, hint="name a file to write")
    kind = special_kind(mode) if mode is not None else None
    if kind not in (None, "character device", "FIFO"):
        raise InputError(f"is a {kind}", where=shown, hint="name a file to write")
    return Target(target, mode, kind)


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], *, guarded: bool = True) -> Iterator[BinaryIO]:
    """Write ``path`` through a temporary file in the same folder, renamed on success.

    On any error (or Ctrl-C, SIGTERM) the temporary file is removed and ``path`` is
    untouched. A run killed by SIGKILL runs no clean-up: ``path`` is untouched too, and
    the hidden ``.<name>.convo-<pid>-*.tmp`` stays until the next write into that folder
    sweeps it (``convo.core.scratch``; Linux's ``O_TMPFILE``, a file without a name
    until it is linked, was tried: linking it through ``/proc/self/fd`` failed with
    EXDEV on this project's machines, so the named file stays the only form).
    A symbolic link is kept and its target replaced. A character device or FIFO
    (``/dev/null``, ``/dev/stdout``, a pipe) is written into, never replaced; a block
    device or socket is refused. A failed write (a full disk, a read-only file system)
    is a located InputError naming ``path``.

    ``guarded``: refuse (before writing, and again before the rename) a file that is the
    store, its index or lock, or an input being read (``convo.core.guard``); only a
    rewrite of the store itself passes False.
    """
    shown = str(path)
    found = write_target(path, hint="name a file to write, or - for stdout")
    target, mode = found.path, found.mode
    if found.kind is not None:
        with _located_write(shown, every=True):
            device = open(target, "wb")  # noqa: SIM115 - closed just below
        with device, _located_write(shown):
            yield device
        return
    if guarded:
        guard.check(target, shown)
    with _located_write(shown, every=True):
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = scratch.file(target.parent, target.name)
    try:
        with _located_write(shown):
            with os.fdopen(fd, "wb", buffering=COPY_BYTES) as out:
                yield out
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, stat.S_IMODE(mode) if mode is not None else 0o644)
            if guarded:
                guard.check(target, shown)  # an input read meanwhile counts too
            os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def _located_write(where: str, *, every: bool = False) -> Iterator[None]:
    """Turn a failed write into one located line. Around the caller's own code only the
    errors of writing are (``WRITE_ERRNOS``); with ``every``, any OSError is."""
    try:
        yield
    except OSError as e:
        if not every and e.errno not in WRITE_ERRNOS:
            raise
        what = os_error(e, where).what
        raise InputError(
            f"cannot write here ({what})",
            where=where,
            hint="nothing was written; fix it and re-run",
        ) from None
