"""The streaming writer every output format implements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
