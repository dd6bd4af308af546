"""Shell completion of values from the store's index: speakers and listeners, tags and
thread ids complete as the store spells them (``convo list -s Al<TAB>``).

Each function is an option's ``autocompletion``: it reads the index of the store the
command line names (``--store``, else ``$CONVO_STORE``, else the default) read-only, at
most ``LIMIT`` values starting with what was typed (the shell keeps those that start
with it as typed, case included), and nothing at all when
there is no fresh index to read: completion never builds one, nor scans the store.
"""

from __future__ import annotations

import sqlite3
from typing import Any

LIMIT = 50

_SQL = {
    "names": "SELECT name FROM names WHERE name LIKE ? ESCAPE '\\' ORDER BY name LIMIT ?",
    "tags": "SELECT DISTINCT tag FROM message_tags WHERE tag LIKE ? ESCAPE '\\' ORDER BY tag LIMIT ?",
    "threads": "SELECT DISTINCT thread FROM messages WHERE thread LIKE ? ESCAPE '\\'"
    " ORDER BY thread LIMIT ?",
}


def _values(ctx: Any, kind: str, incomplete: str) -> list[str]:
    from convo.index.schema import close_quietly, connect, index_path
    from convo.store.path import default_store_path

    root = ctx.find_root() if ctx is not None else None
    store = default_store_path((root.params.get("store") if root else None) or None)
    path = index_path(store)
    if not path.exists():
        return []
    pattern = "".join("\\" + c if c in "\\%_" else c for c in incomplete) + "%"
    conn = None
    try:
        conn = connect(path, readonly=True)
        return [v for (v,) in conn.execute(_SQL[kind], (pattern, LIMIT)) if v]
    except sqlite3.Error:
        return []
    finally:
        close_quietly(conn)


def names(ctx: Any, incomplete: str) -> list[str]:
    """Speaker and listener names of the store."""
    return _values(ctx, "names", incomplete)


def tags(ctx: Any, incomplete: str) -> list[str]:
    """The store's tags."""
    return _values(ctx, "tags", incomplete)


def threads(ctx: Any, incomplete: str) -> list[str]:
    """The store's thread ids."""
    return _values(ctx, "threads", incomplete)
