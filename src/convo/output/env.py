"""The environment a command runs in: streams, whether they are terminals, colour, width.

Commands read stdin/stdout/stderr through this object (as httpie does) so that tests can
swap them and so that "terminal or pipe" decisions live in one place.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import IO, Any


@dataclass
class Environment:
    stdin: IO[Any] = field(default_factory=lambda: sys.stdin)
    stdout: IO[Any] = field(default_factory=lambda: sys.stdout)
    stderr: IO[Any] = field(default_factory=lambda: sys.stderr)

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
        return getattr(self.stdout, "buffer", self.stdout)

    def safe_stdout_bytes(self, kind: str = "json") -> IO[bytes]:
        """stdout for bytes; on a terminal every write is escaped (``kind``: json or text)."""
        if not self.stdout_isatty:
            return self.stdout_bytes
        from convo.core.text.terminal import TtySafeStream

        return TtySafeStream(self.stdout_bytes, kind)  # type: ignore[return-value]

    def console(self, stderr: bool = False):
        """A rich console that never interprets markup, emoji codes or highlights data."""
        from rich.console import Console

        stream = self.stderr if stderr else self.stdout
        is_tty = self.stderr_isatty if stderr else self.stdout_isatty
        no_color = "NO_COLOR" in os.environ or not is_tty
        return Console(
            file=stream,
            markup=False,
            emoji=False,
            highlight=False,
            no_color=no_color,
            force_terminal=is_tty if os.environ.get("CONVO_FORCE_TTY") == "1" else None,
            soft_wrap=False,
        )


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
