"""How the program turns signals into exceptions: Ctrl-C raises KeyboardInterrupt,
SIGTERM and SIGHUP its subclass ``Terminated``, which commands clean up after and the
group (or ``cli.runtime.guarded``) turns into exit code 130 (143, 129).

Python runs a signal's handler between two steps of whatever Python code is running,
and when that code is a hook Python calls from C (an at-fork hook such as the logging
module's lock around each ``fork`` of a worker pool, a finalizer, a weakref callback),
the exception the handler raises cannot reach the command: Python prints "Exception
ignored in ..." and drops it. A ``kill`` at the moment a pool started its workers was
so lost, and the command ran to the end with exit 0 (``tests/hostile/test_signals.py``).
``_unraisable`` (``sys.unraisablehook``) sees the dropped interruption and owes it; a
short-lived thread sends the signal to the main thread again once the hook has returned,
so that it is raised in ordinary code (or dropped in the next such hook and owed again).
SIGTERM and SIGHUP arriving inside that hook are owed too; Ctrl-C keeps Python's own
handler (asyncio and others look for it), so one sent in the few steps between the hook's
last line and its return would still be lost: the sender waits for the hook to end first.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    import signal
    from typing import Any
else:
    # The C module the ``signal`` module wraps: its wrapper builds three IntEnums from
    # this module's names (and imports ``enum``), about 0.8 ms of CPU of every command
    # (docs/startup.md, "Third pass"); the same functions and constants, as plain ints.
    import _signal as signal

_CAUGHT: list[int] = []  # which of SIGTERM and SIGHUP ``_terminate`` handles (not nohup's)
_OWED: list[int] = []  # signals whose exception Python dropped, to be sent again
_state: dict[str, Any] = {"in_hook": False, "sender": None}
_PREVIOUS_HOOK = sys.unraisablehook
_RETRY = 0.01  # seconds between the hook's return and the signal sent again


def _terminate(signum: int, frame: Any) -> None:
    """SIGTERM or SIGHUP: raise ``Terminated`` (a KeyboardInterrupt), once; a second
    signal while convo cleans up is ignored, so the clean-up finishes. Inside
    ``_unraisable`` nothing could raise it: it is owed instead."""
    from convo.core.errors import Terminated

    if _state["in_hook"] or (frame is not None and frame.f_code is _unraisable.__code__):
        _owe(signum)
        return
    for other in _CAUGHT:
        signal.signal(other, signal.SIG_IGN)
    _quiet_threads()
    raise Terminated(signum)


def _quiet_threads() -> None:
    """convo is ending: an error in another thread from here on is a consequence (a pool's
    manager thread finding its workers ended), not something to show as a traceback."""
    import threading

    threading.excepthook = lambda _args: None


def _unraisable(hook: Any) -> None:
    """``sys.unraisablehook``: an interruption Python dropped is owed, not printed;
    anything else goes to the hook there was before."""
    exc = hook.exc_value
    if not isinstance(exc, KeyboardInterrupt):
        _PREVIOUS_HOOK(hook)
        return
    from convo.core.errors import Terminated

    _state["in_hook"] = True
    try:
        if isinstance(exc, Terminated):
            for other in _CAUGHT:  # _terminate ignored them: it handles them again
                signal.signal(other, _terminate)
        _owe(exc.signum if isinstance(exc, Terminated) else signal.SIGINT)
    finally:
        _state["in_hook"] = False


def _owe(signum: int) -> None:
    import threading

    _OWED.append(signum)
    sender = _state["sender"]
    if sender is None or not sender.is_alive():
        sender = threading.Thread(target=_send_owed, name="convo-signals", daemon=True)
        _state["sender"] = sender
        sender.start()


def _send_owed() -> None:
    """Send each owed signal to the main thread again, a moment after the hook that
    owed it returned (a real signal, so that a wait in a system call ends too); end
    after a second with nothing owed."""
    import threading
    import time

    main = threading.main_thread().ident
    idle = 0
    while idle < 1 / _RETRY:
        time.sleep(_RETRY)
        if not _OWED or main is None:
            idle += 1
            continue
        if _state["in_hook"]:  # not yet: Ctrl-C's handler (Python's) cannot wait as ours does
            continue
        idle = 0
        signal.pthread_kill(main, _OWED.pop(0))


def catch_signals() -> None:
    """From here on Ctrl-C raises KeyboardInterrupt and SIGTERM or SIGHUP (unless
    ignored, as under nohup: then they stay ignored) ``Terminated``, even when one
    lands in a hook Python calls from C."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _CAUGHT.clear()
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) == signal.SIG_DFL:
            signal.signal(signum, _terminate)
            _CAUGHT.append(signum)
    sys.unraisablehook = _unraisable
