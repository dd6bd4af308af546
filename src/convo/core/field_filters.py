"""The filters on record fields that the scan, the index and search share.

Repeating one filter ORs, different filters AND. ``since``/``until`` are record timestamp
strings (``since <= timestamp < until``); what a name, tag or thread matches is said in
``convo.query.filters``, whose ``Filters`` adds the text filters, and the index's
``IndexQuery`` adds format and role.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FieldFilters:
    speakers: list[str] = field(default_factory=list)
    listeners: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    since: str | None = None
    until: str | None = None
    threads: list[str] = field(default_factory=list)

    def fields_empty(self) -> bool:
        """No field filter is set."""
        return not (
            self.speakers or self.listeners or self.tags or self.since or self.until
            or self.threads
        )  # fmt: skip
