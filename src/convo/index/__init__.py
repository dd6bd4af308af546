"""The index: a derived SQLite database beside the JSONL store (``<store>.index.sqlite``).

The JSONL file stays the source of truth; the index is a cache of it that can always be
dropped and rebuilt. It holds one row per record (id, byte offset and length, time,
speaker, listeners, tags, thread, format, role, subject) and a contentless FTS5 table
over subject and text. See docs/store.md.

Layering: this package imports only ``convo.core``; ``convo.query`` and
``convo.store`` use it. A missing or broken index is never an error for a caller:
the functions here return None (or a result saying "not available") and the caller
falls back to scanning the JSONL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo.core.lazy import lazy_attributes

# Names that are also submodules (check, lookup, search) are bound here: importing a
# submodule sets the package's attribute of its name. The writing side (build) loads
# on first use, so a read of a fresh index does not import them.
from convo.index.check import CheckResult, check
from convo.index.lookup import Reader, read_spans, reader
from convo.index.schema import index_path
from convo.index.search import Hit, count_matches, search
from convo.index.state import Status, SyncResult, refresh, status

_LAZY = {"drop": "build", "sync": "build"}

if TYPE_CHECKING:
    from convo.index.build import drop, sync


__getattr__ = lazy_attributes(
    "convo.index", {name: f"convo.index.{module}" for name, module in _LAZY.items()}, globals()
)


__all__ = [
    "CheckResult",
    "Hit",
    "Reader",
    "Status",
    "SyncResult",
    "check",
    "count_matches",
    "drop",
    "index_path",
    "read_spans",
    "reader",
    "refresh",
    "search",
    "status",
    "sync",
]
