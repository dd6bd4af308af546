"""The name rule of ``--speaker``/``--listener``: how a query names a person.

A case-insensitive match of the whole name, its display name, its address, or a run of
whole words in it (``bob`` finds ``Bob Jones <bob@x.org>``, ``jones`` too, ``bo`` not).
The filters, the views and the index all match names through ``NameQuery``.
"""

from __future__ import annotations

from convo.core.lazy import pattern

_WORD = pattern(r"\w+")  # compiled on first use: no `re` for a query without names
_SEEN_MAX = 1 << 16


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def split_name(value: str) -> tuple[str, str]:
    """``"Alice Smith <alice@x.org>"`` -> (``"Alice Smith"``, ``"alice@x.org"``)."""
    value = value.strip()
    if value.endswith(">") and "<" in value:
        i = value.rfind("<")
        return value[:i].strip().strip('"').strip(), value[i + 1 : -1].strip()
    if "@" in value and " " not in value:
        return "", value
    return value, ""


class NameQuery:
    """One ``--speaker``/``--listener`` value, matched by the name rule above."""

    def __init__(self, query: str):
        self.query = query.strip()
        self.folded = self.query.casefold()
        self.tokens = words(self.query)
        # Answers by value: a store has few distinct names, scans ask about each many times.
        self._seen: dict[str, bool] = {}

    def matches(self, value: str | None) -> bool:
        if not value:
            return False
        hit = self._seen.get(value)
        if hit is None:
            if len(self._seen) >= _SEEN_MAX:
                self._seen.clear()  # bounded memory whatever the input
            hit = self._seen[value] = self._match(value)
        return hit

    def _match(self, value: str) -> bool:
        folded = value.casefold()
        if folded == self.folded:
            return True
        # Every other way to match puts each query word in the folded value: a cheap no.
        for t in self.tokens:
            if t not in folded:
                return False
        display, address = split_name(value)
        if self.folded in (display.casefold(), address.casefold()):
            return True
        if not self.tokens:
            return False
        vt = words(value)
        n = len(self.tokens)
        first = self.tokens[0]
        return any(vt[i] == first and vt[i : i + n] == self.tokens for i in range(len(vt) - n + 1))
