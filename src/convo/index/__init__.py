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

from convo.core.lazy import keep_names, lazy_attributes

# Every name loads on first use: an indexed read imports the modules it uses (lookup,
# state, schema), not the checker, the full-text search or the writing side (build).
_LAZY = {
    "CheckResult": "check", "check": "check",
    "Reader": "lookup", "read_spans": "lookup", "reader": "lookup",
    "index_path": "schema",
    "Hit": "search", "count_matches": "search", "search": "search",
    "Status": "state", "SyncResult": "state", "refresh": "state", "status": "state",
    "drop": "build", "sync": "build",
}  # fmt: skip

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from convo.index.build import drop, sync
    from convo.index.check import CheckResult, check
    from convo.index.lookup import Reader, read_spans, reader
    from convo.index.schema import index_path
    from convo.index.search import Hit, count_matches, search
    from convo.index.state import Status, SyncResult, refresh, status


__getattr__ = lazy_attributes(
    "convo.index", {name: f"convo.index.{module}" for name, module in _LAZY.items()}, globals()
)


keep_names(__name__, frozenset({"check", "search"}))  # functions named as their modules

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
