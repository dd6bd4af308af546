"""The streaming writer every output format implements."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from typing import Any

    from convo.query.matches import Match


class RecordWriter:
    """Receives matches one at a time; ``close()`` finishes the document.

    ``console`` is the rich console of a terminal writer (for ``--pager``), else None.
    """

    count = 0
    console: Any = None

    def write(self, m: Match) -> None:
        raise NotImplementedError

    def write_many(self, matches: list[Match]) -> None:
        for m in matches:
            self.write(m)

    def close(self) -> None:
        """Finish the document (a JSON array's bracket, a buffered table)."""
