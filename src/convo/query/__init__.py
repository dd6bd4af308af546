"""Filtering records: the filters and the byte-prefiltered scan.

``Filters`` and ``select`` load on first use: importing a submodule (``query.matches``,
``query.tree``) runs this file, and an indexed read needs neither the scan nor its
byte-level deciders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

_LAZY = {"Filters": "convo.query.filters", "select": "convo.query.scan"}

if TYPE_CHECKING:
    from convo.query.filters import Filters
    from convo.query.scan import select

__all__ = ["Filters", "select"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'convo.query' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
