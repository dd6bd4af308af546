"""Errors and exit codes.

Every error a user sees is one line: ``convo: error: FILE:LINE: what is wrong; what to do``.
"""

from __future__ import annotations


class ExitCode:
    """The exit codes, plain ints: an ``IntEnum`` imported ``enum`` (with ``functools``)
    into every command, about 1 ms of CPU of an indexed ``convo query --count``
    (docs/startup.md, "Third pass")."""

    OK = 0
    REJECTED = 1  # finished, but some input records were rejected
    USAGE = 2  # bad usage or unreadable input
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT), as shells report it


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, handled as Ctrl-C is: the same clean-up (no temporary file,
    spill or index journal left, workers ended), then exit 128 + the signal's number."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def interruption(e: KeyboardInterrupt | None) -> tuple[str, int]:
    """What to say and the exit code for Ctrl-C (130) or a ``Terminated`` (143, 129)."""
    import signal

    if isinstance(e, Terminated):
        return f"terminated ({signal.Signals(e.signum).name})", 128 + e.signum
    return "interrupted", int(ExitCode.INTERRUPTED)


def with_hint(text: str, hint: str | None) -> str:
    """``text; hint``: the one way a message and what to do are joined (a full stop
    ending ``text`` is dropped, so no line reads ``.;``)."""
    if not hint:
        return text
    return f"{text.rstrip().removesuffix('.')}; {hint}"


class ConvoError(Exception):
    """An error with a location and a hint, shown as one line."""

    exit_code = ExitCode.USAGE

    def __init__(self, what: str, *, where: str | None = None, hint: str | None = None):
        super().__init__(what)
        self.what = what
        self.where = where
        self.hint = hint

    def __str__(self) -> str:
        text = f"{self.where}: {self.what}" if self.where else self.what
        return with_hint(text, self.hint)


class UsageError(ConvoError):
    """The command line asks for something impossible."""


def check_decoded(value: str) -> str:
    """``value`` (a word from the command line), or a UsageError that shows its bytes
    when the locale could not decode them (a latin-1 word in a UTF-8 shell: Python keeps
    them as lone surrogates, ``os.fsdecode``): they match nothing a record holds and
    cannot be written into one."""
    if not any("\ud800" <= c <= "\udfff" for c in value):
        return value
    import sys

    try:  # the bytes the locale could not decode, as they were
        raw = value.encode(sys.getfilesystemencoding(), "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate of another kind (a JSON \ud800, the API)
        raw = value.encode("utf-8", "backslashreplace")
    shown = raw.decode("ascii", "backslashreplace")
    raise UsageError(
        f"'{shown}' holds bytes that are not {sys.getfilesystemencoding()} text",
        hint="use a UTF-8 locale (LANG=C.UTF-8), or convert them to UTF-8 (iconv)",
    )


class InputError(ConvoError):
    """An input cannot be read at all (missing, unreadable, undetectable, malformed)."""


class NoStore(InputError):
    """The store a command reads or changes is not there: one message for every command
    (read commands, search, similar, embed, index, rm, tag, compact, the MCP tools),
    exit 2, an input that cannot be read (docs/cli.md's exit codes)."""

    def __init__(self, path: str):
        super().__init__("no store yet", where=path, hint=NO_STORE_HINT)


NO_STORE_HINT = "create it with `convo ingest FILE --save`"


class RecordError(ConvoError):
    """One record is bad; the rest of the input goes on (unless ``--strict``)."""

    exit_code = ExitCode.REJECTED


class StrictAbort(ConvoError):
    """``--strict`` met a rejected record."""

    exit_code = ExitCode.REJECTED
