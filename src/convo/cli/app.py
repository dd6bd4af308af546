"""The ``convo`` program: its entry point, and Ctrl-C during start-up.

``main`` runs a read command whose command line ``cli/fast.py`` can parse without typer
(importing typer is most of a short command's time); every other command line goes to
the Typer app (``cli/group.py``), also reachable here as ``app`` (loaded on first use).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    import signal
    from typing import Any

    from convo.cli.group import app
else:
    import _signal as signal  # not its enum wrapper (cli/signals.py)


def _interrupted_at_start(_signum, _frame) -> None:  # pragma: no cover - timing dependent
    # Ctrl-C while Python is still importing: nothing to clean up, no traceback to show.
    os.write(2, b"convo: interrupted\n")
    os._exit(130)


def _run_as_convo() -> bool:
    """Started as the ``convo`` program (console script or ``python -m convo``)."""
    argv0 = sys.argv[0] if sys.argv else ""
    return os.path.basename(argv0) == "convo" or argv0.endswith(
        os.path.join("convo", "__main__.py")
    )


# Only the program gets this handler: a library user's (or a test runner's) Ctrl-C stays theirs.
if _run_as_convo() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _interrupted_at_start)

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name != "app":
        raise AttributeError(f"module 'convo.cli.app' has no attribute {name!r}")
    from convo.cli.group import app

    return app


def main() -> None:
    """Console-script entry point: from here on Ctrl-C raises KeyboardInterrupt, and
    SIGTERM or SIGHUP its subclass ``Terminated``, which commands clean up after and the
    group (or ``cli.runtime.guarded``) turns into exit code 130 (143, 129): see
    ``cli/signals.py``."""
    from convo.cli.fast import run
    from convo.cli.runtime import err, quiet_broken_pipe, tolerant_stdout
    from convo.cli.signals import catch_signals
    from convo.core.errors import interruption

    catch_signals()
    tolerant_stdout()
    try:
        code = run(sys.argv[1:], process=True)
        if code is None:
            from convo.cli.group import app

            app()
    except BrokenPipeError:
        quiet_broken_pipe()
        sys.exit(0)
    except KeyboardInterrupt as e:
        what, code = interruption(e)
        err(what)
        sys.exit(code)
    sys.exit(code)
