"""The store: one JSONL file, its lock, its index, and every way to read or change it.

``Store(path)`` (``convo.store.api``) is the one object every command, the memory API and
a notebook call: ``query``, ``count``, ``search``, ``get``, ``thread``, ``append``,
``remove``, ``tag``, ``compact``. Its parts, each in one module: ``path`` (where the
store is), ``append`` (locked, deduplicated, all-or-nothing appends and the torn tail),
``lines`` (messages finished as JSONL lines), ``dedup`` (the ids already stored, from
the index), ``validate`` (what a store may hold), ``rewrite`` (rm, tag, compact:
atomic, under the lock, the index following) and ``select`` (a Query run through the
index or the scan). The lock itself is ``convo.core.lock`` (the index takes it too).

Names load on first use: a read of a fresh index imports neither the appending side nor
pydantic.
"""

from __future__ import annotations

from convo.core.lazy import lazy_attributes

_LAZY = {
    "Store": "convo.store.api",
    "AppendResult": "convo.store.append",
    "default_store_path": "convo.store.path",
}

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from convo.store.api import Store
    from convo.store.append import AppendResult
    from convo.store.path import default_store_path

__all__ = ["AppendResult", "Store", "default_store_path"]

__getattr__ = lazy_attributes("convo.store", _LAZY, globals())
