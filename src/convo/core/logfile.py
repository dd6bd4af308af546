"""``LineLog``: a file written a whole line at a time while a run goes on (``--warnings``).

A report the user follows (``tail -f``) cannot wait for the end of a long run, as the
atomic files of ``convo.core.atomic`` do. So the file is opened when the run starts
(created or emptied, as a shell's ``>`` does: an unwritable path fails before anything
is read) and each line goes out at once, in one ``write`` of a file opened to append:
a reader sees whole lines only. A write the disk cuts short is undone (the file is cut
back to its last whole line) and is one located error.

As for every output, the file may not be the store, its index or lock, or an input named
(``convo.core.guard``) nor a file of a folder read (emptied, it would be lost), and it is
never read as an input while it is written (a folder
input that holds it skips it: ``guard.writing``). A character device or FIFO is written
into; a block device, socket or directory is refused (``core.atomic.write_target``, the
checks every writer of a named file makes).
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator

from convo.core import guard
from convo.core.atomic import write_target
from convo.core.errors import InputError
from convo.core.io import os_error


class LineLog:
    """Lines appended whole to ``path`` as they come (see the module docstring);
    ``role`` names the file in errors (``"the --warnings file"``)."""

    def __init__(self, path: str, role: str):
        self.where = path
        self.lines = 0
        self.size = 0  # bytes written: where the last whole line ends
        found = write_target(path)
        target = found.path
        self.regular = found.kind is None
        if self.regular:
            guard.check_emptied(target, path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        with self._located():
            if self.regular:
                target.parent.mkdir(parents=True, exist_ok=True)
                flags |= os.O_TRUNC
            self.fd: int | None = os.open(target, flags, 0o644)
        if self.regular:
            guard.writing(self.fd, role)

    def write(self, line: bytes) -> None:
        """Append ``line`` (ending in a newline) whole, at once."""
        fd = self.fd
        if fd is None:
            raise ValueError("the log is closed")
        view = memoryview(line)
        done = 0
        try:
            while done < len(view):
                done += os.write(fd, view[done:])
        except OSError as e:
            if done and self.regular:  # never half a line: cut back to the last whole one
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, self.size)
            raise self._error(e) from None
        self.size += done
        self.lines += 1

    def close(self) -> None:
        """Put the lines on disk and close the file (once; later calls do nothing)."""
        fd, self.fd = self.fd, None
        if fd is None:
            return
        try:
            if self.regular:
                with self._located():
                    os.fsync(fd)
        finally:
            guard.done_writing(fd)
            os.close(fd)

    @contextlib.contextmanager
    def _located(self) -> Iterator[None]:
        try:
            yield
        except OSError as e:
            raise self._error(e) from None

    def _error(self, e: OSError) -> InputError:
        what = os_error(e, self.where).what
        hint = "nothing was written; fix it and re-run" if not self.lines else None
        if e.errno == errno.ENOSPC:
            hint = "free some space and re-run"
        return InputError(f"cannot write here ({what})", where=self.where, hint=hint)
