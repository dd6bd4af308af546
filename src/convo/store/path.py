"""Where the store lives, apart from the store itself (``convo.store.append``).

``--store PATH``, else ``$CONVO_STORE``, else ``$XDG_DATA_HOME/convo/messages.jsonl``
(``~/.local/share/convo/messages.jsonl``). A symbolic link is followed (a dangling or
looping one is an error); anything but a regular file (a folder, a device, a FIFO) is
refused. A read command finds its store here without importing the appending side,
nor pathlib: ``store_location`` and ``real_location`` are ``default_store_path`` and
``real_file`` on strings (``os.path``; pathlib with the ``urllib.parse`` it imports is
about 4 ms of an indexed read's start-up, ``python -X importtime``).
"""

from __future__ import annotations

import os
import stat

from convo.core.errors import InputError

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from pathlib import Path


def default_store_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The store named by ``explicit``, else ``$CONVO_STORE``, else the XDG default."""
    from pathlib import Path

    return Path(store_location(explicit))


def store_location(explicit: str | os.PathLike[str] | None = None) -> str:
    """``default_store_path`` as a string (not normalised: ``a//b`` stays so)."""
    if explicit:
        return os.path.expanduser(os.fspath(explicit))
    env = os.environ.get("CONVO_STORE")
    if env:
        return os.path.expanduser(env)
    data_home = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(data_home, "convo", "messages.jsonl")


def real_file(path: Path) -> Path:
    """``path`` with links followed: a located InputError unless it is a regular file or absent."""
    real = real_location(os.fspath(path))
    return path if real == os.fspath(path) else type(path)(real)


def real_location(path: str) -> str:
    """``real_file`` on a string."""
    where = path
    try:
        real = os.path.realpath(path, strict=True)
    except FileNotFoundError:
        if os.path.islink(path):
            raise InputError(
                f"the store is a dangling symbolic link (to {os.readlink(path)})",
                where=where,
                hint="create its target, or point --store at a file",
            ) from None
        return path
    except OSError as e:
        from convo.core.io import os_error

        raise os_error(e, where, "point --store at a JSONL file") from None
    mode = os.stat(real).st_mode
    if stat.S_ISREG(mode):
        return real
    if stat.S_ISDIR(mode):
        raise InputError("the store is a directory", where=where, hint="--store names a JSONL file")
    from convo.core.io import special_kind

    kind = special_kind(mode)
    if kind is not None:
        raise InputError(f"the store is a {kind}", where=where, hint="--store names a JSONL file")
    return real


def protect_store(path: str | os.PathLike[str]) -> None:
    """Never let an output (``-o``, ``--rejects``) write over the store at ``path``, its
    index (with SQLite's ``-journal``, ``-wal`` and ``-shm``), its lock or its append
    journal (``convo.core.guard``); links followed, as the store's own writes follow them."""
    from convo.core import guard
    from convo.core.journal import journal_path
    from convo.core.jsonl import lock_path
    from convo.index.paths import index_path

    real = os.path.realpath(path)
    guard.protect(real, "the store")
    guard.protect(lock_path(real), "the store's lock file")
    guard.protect(journal_path(real), "the store's journal")
    index = index_path(real)
    for companion in ("", "-journal", "-wal", "-shm"):
        guard.protect(f"{index}{companion}", "the store's index")
