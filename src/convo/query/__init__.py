"""Filtering records: the filters and the byte-prefiltered scan.

``Filters`` and ``select`` load on first use: importing a submodule (``query.matches``,
``query.tree``) runs this file, and an indexed read needs neither the scan nor its
byte-level deciders.
"""

from __future__ import annotations

from convo.core.lazy import lazy_attributes

_LAZY = {"Filters": "convo.query.filters", "select": "convo.query.scan"}

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from convo.query.filters import Filters
    from convo.query.scan import select

__all__ = ["Filters", "select"]


__getattr__ = lazy_attributes("convo.query", _LAZY, globals())
