"""Counts in words: ``1 message``, ``2 messages``, ``0 messages``, the one rule of every
summary, warning and note a person reads (``1 file not recognised``, never ``1 file(s)``
or ``1 messages``). Machine-readable output (JSON keys, ``--warnings`` fields) keeps its
numbers; only the words around them come from here.

A noun whose plural is not the singular plus ``s`` names it (``entry``/``entries``,
``person``/``people``); a verb agreeing with the count is the same call
(``plural(n, "was", "were")``, ``plural(n, "repeats", "repeat")``).
"""

from __future__ import annotations


def plural(n: int, one: str, many: str | None = None) -> str:
    """``one`` when ``n`` is 1, else ``many`` (default ``one`` + ``s``)."""
    if n == 1:
        return one
    return one + "s" if many is None else many


def counted(n: int, one: str, many: str | None = None, *, grouped: bool = False) -> str:
    """``n`` and its noun: ``1 message``, ``3 messages``; ``grouped`` writes thousands
    with commas (``12,345 messages``)."""
    return (f"{n:,} " if grouped else f"{n} ") + plural(n, one, many)
