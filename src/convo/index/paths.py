"""Where a store's index is: ``<store>.index.sqlite``, beside it.

Apart from ``convo.index.schema`` (which imports sqlite3), so that what only names the
index file (``store.path.protect_store``, run by every ``convo ingest``) imports no
sqlite3 (docs/startup.md).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from pathlib import Path

SUFFIX = ".index.sqlite"


def index_path(store_path: str | os.PathLike[str]) -> Path:
    """``<store>.index.sqlite``, beside the store."""
    from pathlib import Path

    p = Path(store_path)
    return p.with_name(p.name + SUFFIX)


def index_file(store_path: str | os.PathLike[str]) -> str:
    """``index_path`` as a string (an indexed read imports no pathlib: store/path.py)."""
    return os.fspath(store_path) + SUFFIX
