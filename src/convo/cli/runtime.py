"""How every command runs: the shared state, errors → exit codes, and the reporter.

Kept apart from ``app.py`` so that command modules and the app can both import it
without an import cycle (the app imports the commands to register them).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from convo.core.errors import ExitCode

state: dict[str, Any] = {"debug": False, "store": None}


def apply_config(into: dict[str, Any]) -> dict[str, str]:
    """The config file's settings (``cli.config``), its zone and order kept in ``into``
    for the commands; what a command line or the environment gives wins."""
    if not os.environ.get("CONVO_CONFIG") and not _config_exists():
        into["config_tz"] = into["config_sort"] = None
        return {}
    from convo.cli import config

    settings = config.load()
    into["config_tz"] = settings.get("tz")
    into["config_sort"] = settings.get("sort")
    return settings


def _config_exists() -> bool:
    home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.exists(os.path.join(home, "convo", "config.toml"))


def environment():
    from convo.output.env import Environment

    return Environment()


def err(message: str) -> None:
    """One line on stderr, ``convo: ...``, escaped for the terminal."""
    from convo.core.text.terminal import printable

    sys.stderr.write(f"convo: {printable(message, newlines=False)}\n")
    sys.stderr.flush()


def debug_traceback() -> None:
    """The current exception's traceback on stderr, escaped (file names may be hostile)."""
    import traceback

    from convo.core.text.terminal import printable

    sys.stderr.write(printable("".join(traceback.format_exc())))
    sys.stderr.flush()


def outcome(rejected: int) -> int:
    """The exit code of a command that finished: ExitCode.REJECTED if anything was rejected."""
    return int(ExitCode.REJECTED if rejected else ExitCode.OK)


def quiet_broken_pipe() -> None:
    # The reader went away (`| head`): point stdout at /dev/null so the interpreter's
    # final flush does not complain, and end quietly.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def flush_stdout(env) -> None:
    env.stdout.flush()
    buf = getattr(env.stdout, "buffer", None)
    if buf is not None:
        buf.flush()


def _fail(e: BaseException) -> int:
    """The exit code for an exception a command raised; the error shown as one line."""
    from convo.core.errors import ConvoError

    if state["debug"]:
        debug_traceback()
    if isinstance(e, ConvoError):
        err(f"error: {e}")
        return int(e.exit_code)
    if isinstance(e, BrokenPipeError):
        quiet_broken_pipe()
        return int(ExitCode.OK)
    if isinstance(e, KeyboardInterrupt):
        from convo.core.errors import interruption

        what, code = interruption(e)
        err(what)
        return code
    err(f"error: internal error ({type(e).__name__}: {e}); re-run with --debug and report it")
    return int(ExitCode.USAGE)


def guarded(call: Callable[[], Any]) -> int:
    """The exit code of ``call()`` by convo's error rules (``command``'s, without typer:
    ``cli/fast.py``): what it returns, else that of what it raised, shown as one line."""
    try:
        code = call()
    except (Exception, KeyboardInterrupt) as e:
        return _fail(e)
    return int(code or 0)


def command(func):
    """Run a command with convo's error rules: one line, exit codes, quiet broken pipes."""
    import typer

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            code = func(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except (Exception, KeyboardInterrupt) as e:
            raise typer.Exit(_fail(e)) from None
        if code:
            raise typer.Exit(int(code))
        return None

    return wrapper


def protect_named(paths: list[str], store: str | None) -> None:
    """No output of this command (``-o``, ``--rejects``) may write over a file named as
    its input or over the store it names (``convo.core.guard``)."""
    from convo.core import guard
    from convo.store.path import protect_store

    if store:
        protect_store(store)
    for path in paths:
        if path != "-":
            guard.protect(path, guard.INPUT)


class Reporter:
    """Warnings and rejects on stderr: the first few in full, then a count."""

    SHOW = 20

    def __init__(self, quiet: bool = False, rejects_path: str | None = None, show: int = SHOW):
        self.quiet = quiet
        self.show = show
        self.shown = 0
        self.hidden = 0
        self.rejected = 0
        self._rejects = None
        self.rejects_path = rejects_path
        if rejects_path:
            from convo.core import guard
            from convo.core.errors import InputError

            guard.check(rejects_path)
            try:
                Path(rejects_path).parent.mkdir(parents=True, exist_ok=True)
                self._rejects = open(rejects_path, "wb")  # noqa: SIM115 - closed in close()
            except OSError as e:
                raise InputError(
                    f"cannot write --rejects ({e.strerror})", where=rejects_path
                ) from None

    def line(self, kind: str, text: str) -> None:
        if self.quiet:
            return
        if self.shown < self.show:
            self.shown += 1
            err(f"{kind}: {text}")
        else:
            self.hidden += 1

    def reject(self, rejection) -> None:
        self.rejected += 1
        hint = f"; {rejection.hint}" if rejection.hint else ""
        self.line("warning", f"{rejection.where}: rejected: {rejection.reason}{hint}")
        if self._rejects is not None:
            from convo.core.jsonl import dumps

            self._rejects.write(dumps(rejection.to_record()))

    def bad_line(self, error, line) -> None:
        from convo.importers.context import Rejection

        self.reject(Rejection(error.where or "", error.what, error.hint, line.raw))

    def warning(self, text: str) -> None:
        self.line("warning", text)

    def close(self) -> None:
        if self.hidden and not self.quiet:
            more = "" if self.rejects_path else " (use --rejects FILE to keep the rejected records)"
            err(f"warning: {self.hidden} more warnings not shown{more}")
        if self._rejects is not None:
            self._rejects.close()
