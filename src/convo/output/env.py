"""The environment a command runs in: streams, whether they are terminals, colour, width.

Commands read stdin/stdout/stderr through this object (as httpie does) so that tests can
swap them and so that "terminal or pipe" decisions live in one place.
"""

from __future__ import annotations

import functools
import os
import sys

from convo.core.slotted import Slotted

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import IO, Any


class Environment(Slotted):
    __slots__ = ("stderr", "stdin", "stdout")
    stdin: IO[Any]
    stdout: IO[Any]
    stderr: IO[Any]

    def __init__(
        self,
        stdin: IO[Any] | None = None,
        stdout: IO[Any] | None = None,
        stderr: IO[Any] | None = None,
    ) -> None:
        # The streams of the moment it is made (a test's swapped sys.stdout too).
        self.stdin = sys.stdin if stdin is None else stdin
        self.stdout = sys.stdout if stdout is None else stdout
        self.stderr = sys.stderr if stderr is None else stderr

    @property
    def stdin_isatty(self) -> bool:
        return _isatty(self.stdin)

    @property
    def stdout_isatty(self) -> bool:
        return _isatty(self.stdout) or os.environ.get("CONVO_FORCE_TTY") == "1"

    @property
    def stderr_isatty(self) -> bool:
        return _isatty(self.stderr)

    @property
    def stdin_has_data(self) -> bool:
        """stdin is a pipe or a file (not a terminal, not closed): read it when no input is named."""
        if self.stdin is None or self.stdin.closed:
            return False
        if os.environ.get("CONVO_NO_STDIN") == "1":
            return False
        if self.stdin_isatty:
            return False
        try:
            import stat

            fd = self.stdin.fileno()
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode):
                # An empty file (or one read to its end) is no input: `convo list < /dev/null`
                # in a cron job, where /dev/null may even be a regular file, reads the store.
                return st.st_size > os.lseek(fd, 0, os.SEEK_CUR)
            return stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode)
        except (OSError, ValueError, AttributeError):
            # No descriptor (a test harness's stream): data only if something was given.
            return _has_buffered_data(self.stdin)

    @property
    def color(self) -> bool:
        return "NO_COLOR" not in os.environ and self.stdout_isatty

    @property
    def stdout_bytes(self) -> IO[bytes]:
        """stdout for JSON bytes (``ingest -o -``): escaped on a terminal like every output."""
        return self.safe_stdout_bytes("json")

    def safe_stdout_bytes(self, kind: str = "json") -> IO[bytes]:
        """stdout for bytes; on a terminal every write is escaped (``kind``: json or text)."""
        raw = getattr(self.stdout, "buffer", self.stdout)
        if not self.stdout_isatty:
            return raw
        from convo.core.text.terminal import TtySafeStream

        return TtySafeStream(raw, kind)  # type: ignore[return-value]

    def console(self, stderr: bool = False):
        """A rich console that never interprets markup, emoji codes or highlights data."""
        stream = self.stderr if stderr else self.stdout
        is_tty = self.stderr_isatty if stderr else self.stdout_isatty
        no_color = "NO_COLOR" in os.environ or not is_tty
        return _console_class()(
            file=stream,
            markup=False,
            emoji=False,
            highlight=False,
            no_color=no_color,
            force_terminal=is_tty if os.environ.get("CONVO_FORCE_TTY") == "1" else None,
            soft_wrap=False,
        )


@functools.cache
def _console_class():
    from rich.console import Console

    class QuietPipeConsole(Console):
        """rich ends the process with exit code 1 when the reader goes away (``| head``);
        convo's rule is exit 0, so the broken pipe goes back to the command's handler."""

        def on_broken_pipe(self) -> None:
            raise BrokenPipeError

    return QuietPipeConsole


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _has_buffered_data(stream: Any) -> bool:
    buf = getattr(stream, "buffer", None)
    peek = getattr(buf, "peek", None)
    if peek is not None:
        try:
            return bool(peek(1))
        except (OSError, ValueError):
            return False
    getvalue = getattr(buf if buf is not None else stream, "getvalue", None)
    return bool(getvalue()) if getvalue else False
