"""The name rule of ``--speaker``/``--listener``, for names held in the index.

The same rule as ``convo.query.scan.NameQuery`` (DESIGN.md §2): a case-insensitive match
of the whole name, its display name, its address, or a run of whole words in it. It is
restated here because the index sits below the query layer; tests check both agree.

Every way to match puts each word of the query among the words of the name, so the
index keeps each distinct name's words (``name_tokens``) and checks only names holding
all of them.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+")


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


class NameRule:
    """One ``--speaker``/``--listener`` value."""

    def __init__(self, query: str):
        self.query = query.strip()
        self.folded = self.query.casefold()
        self.tokens = words(self.query)

    def matches(self, value: str | None) -> bool:
        if not value:
            return False
        folded = value.casefold()
        if folded == self.folded:
            return True
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
