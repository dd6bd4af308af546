"""How every command runs: the shared state, errors → exit codes, and the reporter.

Kept apart from ``app.py`` so that command modules and the app can both import it
without an import cycle (the app imports the commands to register them).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable

from convo.core.errors import ExitCode
from convo.core.lazy import pattern

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from typing import Any

    from convo.core.logfile import LineLog

state: dict[str, Any] = {"debug": False, "store": None}


def apply_config(into: dict[str, Any]) -> dict[str, str]:
    """The config file's settings (``cli.config``), its zone and order kept in ``into``
    for the commands; what a command line or the environment gives wins."""
    if not os.environ.get("CONVO_CONFIG") and not config_exists():
        into["config_tz"] = into["config_sort"] = into["config_columns"] = None
        return {}
    from convo.cli import config

    settings = config.load()
    into["config_tz"] = settings.get("tz")
    into["config_sort"] = settings.get("sort")
    into["config_columns"] = settings.get("columns")
    return settings


def config_exists() -> bool:
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


def tolerant_stdout() -> None:
    """A character the locale's encoding lacks (an em dash or a CJK name under an ASCII
    or ISO-8859-1 locale) is written as ``?`` rather than ending the command with an
    internal error, and the first such character says so once on stderr (which escapes
    them already: Python's ``backslashreplace``). JSONL is written as UTF-8 bytes and is
    not concerned."""
    stream = sys.stdout
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    if encoding not in ("utf8", "utf_8") and hasattr(stream, "reconfigure"):
        import codecs

        codecs.register_error(_REPLACE, _replace_saying_so)
        stream.reconfigure(errors=_REPLACE)


_REPLACE = "convo-replace"
_said_replaced: list[bool] = []


def _replace_saying_so(err: UnicodeError) -> tuple[str, int]:
    """``?`` for each character the encoding lacks; the first time, one warning."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    if not _said_replaced:
        _said_replaced.append(True)
        sys.stderr.write(
            f"convo: warning: stdout's encoding ({err.encoding}) lacks some characters; "
            "they are written as '?' (use a UTF-8 locale, or PYTHONIOENCODING=utf-8)\n"
        )
    return "?" * (err.end - err.start), err.end


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
    e = _interrupting(e) or e
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


def _interrupting(e: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or signal (``Terminated``) inside ``e``'s causes: one that arrives
    while Python is in the middle of something (a class being made during an import)
    comes wrapped in another error, and is still an interruption, not an internal error."""
    seen: set[int] = set()
    cause: BaseException | None = e
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


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

    def __init__(
        self,
        quiet: bool = False,
        rejects_path: str | None = None,
        show: int = SHOW,
        warnings_path: str | None = None,
        keeps: bool = False,
    ):
        """``keeps``: the command offers ``--warnings`` and ``--rejects`` (ingest), which
        the count of what was not shown names; other commands name the ones that do."""
        self.quiet = quiet
        self.keeps = keeps
        self.show = show
        self.shown = 0
        self.hidden = 0
        self.rejected = 0
        self.skipped = 0  # files a folder walk passed over (reported, not counted)
        self.warnings = 0  # warning lines, rejects not counted
        self.rejects_path = rejects_path
        self.warnings_path = warnings_path
        self._rejects = _ReportFile.open(rejects_path)
        self._warnings: LineLog | None = None
        if warnings_path:
            from convo.core.logfile import LineLog

            try:
                self._warnings = LineLog(warnings_path, "the --warnings file")
            except BaseException:
                if self._rejects is not None:
                    self._rejects.finish(failed=True)
                raise

    def line(self, kind: str, text: str, where: str | None = None) -> None:
        if self._warnings is not None:
            self._warnings.write(_warning_line(kind, text, where))
        if self.quiet:
            return
        if self.shown < self.show:
            self.shown += 1
            err(f"warning: {text}")
        else:
            self.hidden += 1

    def reject(self, rejection) -> None:
        from convo.core.errors import with_hint

        kind = "rejected" if rejection.counted else "skipped"
        self.rejected += rejection.counted
        self.skipped += not rejection.counted
        text = with_hint(f"{rejection.where}: {kind}: {rejection.reason}", rejection.hint)
        self.line(kind, text, rejection.where)
        if self._rejects is not None:
            from convo.core.jsonl import dumps

            self._rejects.write(dumps(rejection.to_record()))

    def bad_line(self, error, line) -> None:
        from convo.importers.context import Rejection

        self.reject(Rejection(error.where or "", error.what, error.hint, line.raw))

    def warning(self, text: str) -> None:
        self.warnings += 1
        self.line("warning", text)

    def note(self) -> str | None:
        """What the summary says of the warnings: how many, and whether all were shown."""
        if not self.warnings:
            return None
        from convo.core.plural import counted

        if not self.hidden:
            return f"{counted(self.warnings, 'warning')} above"
        return f"{counted(self.warnings, 'warning')}, not all shown"

    def close(self, failed: bool = False) -> None:
        """Say what was not shown, and close the report files. The ``--warnings`` file has
        had each line as it came (``convo.core.logfile``); the ``--rejects`` file, which
        holds data, is put in place whole, with what the run rejected until it ended (a
        ``failed`` run that rejected nothing leaves the file there before as it was)."""
        if self.hidden and not self.quiet:
            total = self.shown + self.hidden
            if self.warnings_path:
                more = f"all are in {self.warnings_path}"
            elif not self.keeps:  # a read command: it has no --warnings to point at
                more = (
                    "`convo validate` names every bad line of a JSONL file or the store, "
                    "`convo ingest --warnings FILE --rejects FILE` keeps any input's"
                )
            else:
                more = "--warnings FILE keeps them all (JSONL)"
                if self.rejected and not self.rejects_path:
                    more += ", --rejects FILE the rejected records"
            from convo.core.plural import counted

            # The kinds, so the numbers meet the summary's "rejected N" and "N warnings".
            kinds = [f"{self.rejected} rejected", f"{self.skipped} skipped",
                     counted(self.warnings, "warning")]  # fmt: skip
            of = ", ".join(k for k in kinds if not k.startswith("0 "))
            err(f"warning: {self.hidden} of {total} not shown ({of}); {more}")
        try:
            if self._warnings is not None:
                self._warnings.close()
        finally:
            if self._rejects is not None:
                self._rejects.finish(failed)


class _Unused(Exception):
    """Thrown into a report file's writer to drop its temporary file."""


class _ReportFile:
    """The JSONL file of ``--rejects``, which a ``Reporter`` writes: written through
    a temporary file renamed when the reporter closes (``convo.core.atomic``), so a run
    killed half-way leaves the previous file whole; never the store, its index or lock,
    or an input being read (a file found in a folder input counts too)."""

    def __init__(self, path: str):
        from convo.core.atomic import atomic_writer

        self._writer = atomic_writer(path)
        self._out = self._writer.__enter__()
        self.lines = 0

    @classmethod
    def open(cls, path: str | None) -> _ReportFile | None:
        return cls(path) if path else None

    def write(self, line: bytes) -> None:
        self._out.write(line)
        self.lines += 1

    def finish(self, failed: bool) -> None:
        """Rename the file into place; drop it instead when ``failed`` wrote nothing."""
        if failed and not self.lines:
            self._writer.__exit__(_Unused, _Unused(), None)
        else:
            self._writer.__exit__(None, None, None)


def distinct_outputs(named: dict[str, str | None]) -> None:
    """A UsageError when two of a command's output options name the same file (one
    rename would replace the other's file): ``{"-o": path, "--rejects": path, ...}``.
    ``-`` and devices or FIFOs (``/dev/null``) are written into, so they may repeat."""
    import stat

    from convo.core.atomic import resolve_target
    from convo.core.errors import UsageError

    seen: dict[str, str] = {}
    for option, path in named.items():
        if not path or path == "-":
            continue
        target = str(resolve_target(path))
        try:  # (not contextlib.suppress: no contextlib on an indexed read, docs/startup.md)
            if not stat.S_ISREG(os.stat(target).st_mode):
                continue
        except OSError:
            pass
        if target in seen:
            raise UsageError(
                f"{seen[target]} and {option} name the same file ({path})",
                hint="give each output its own file",
            )
        seen[target] = option


_LOCATED = pattern(r"^(?P<file>.+?):(?P<line>\d+)(?::\d+)?$")


def _warning_line(kind: str, text: str, where: str | None) -> bytes:
    """One ``--warnings`` line: ``{"kind", "file", "line", "message", "where"}``; the
    place is the rejection's, else the text's up to its first ``": "``."""
    import orjson

    if where is None:
        where, sep, message = text.partition(": ")
        if not sep:
            where, message = "", text
    else:
        message = text[len(where) + 2 :] if text.startswith(where + ": ") else text
        message = message.removeprefix(f"{kind}: ")
    located = _LOCATED.match(where)
    file, line = (located["file"], int(located["line"])) if located else (where, None)
    record = {"kind": kind, "file": file.split("#", 1)[0] or None, "line": line,
              "message": message, "where": where or None}  # fmt: skip
    return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)
