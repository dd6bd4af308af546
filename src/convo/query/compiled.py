"""A ``Filters`` compiled once for scanning: the exact checks and every raw-byte shortcut.

``Compiled.of(filters)`` is what the scanner (``convo.query.linescan``) reads per block:
the exact checks of ``convo.query.filters``, the needles of ``convo.query.prefilter``, the
raw time bounds and the canonical-layout decider (``convo.query.canonical``). It holds
plain data and compiled patterns only, so a worker process can build its own from the
same ``Filters`` (``convo.query.parallel``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from convo.query.canonical import Decider
from convo.query.filters import Check, Filters, checks
from convo.query.prefilter import SPEAKER, TEXT, LineStarts, Needles, RawTime
from convo.query.rawfields import FieldBlock
from convo.query.rawleaf import LeafBlock
from convo.query.rawphrase import TextPhrase
from convo.query.rawtext import TextWord
from convo.query.tree import Term


@dataclass
class Compiled:
    filters: Filters
    checks: list[Check]
    prefilter: Needles
    starts: LineStarts | None  # the needle scan's candidate finder (None: every line)
    timed: bool
    raw_time: RawTime
    time_only: bool  # time is the only filter: a raw timestamp decides a line
    others: list[list[bytes]]  # needles of the kinds after the first
    narrows: bool  # something can reject a needle candidate before the parse
    decider: Decider  # exact decisions on the raw bytes of convo's canonical layout
    # one text word, or one phrase, is the only filter: blocks decided at once
    text_only: TextWord | TextPhrase | None
    leaf: LeafBlock | None = None  # one negated leaf is the query: blocks decided at once
    fields: FieldBlock | None = None  # format:/role: leaves only: blocks decided at once

    @classmethod
    def of(cls, filters: Filters) -> Compiled:
        found = checks(filters)
        needles = Needles.of(filters)
        fields = _fields(filters, found)
        if fields is not None:
            # A query of format:/role: leaves has needles only for format: values, each
            # equal to a whole value (casefolded): a letter folding to two (``ß``: "ss")
            # cannot spell one with its neighbours, so it need not make a line a
            # candidate (on the benchmark store, gathering every block's non-ASCII bytes
            # to look for it cost a sixth of ``format:slack``'s scan).
            needles.substring = [False] * len(needles.kinds)
        timed = bool(filters.since or filters.until)
        others = needles.needles[1:]
        decider = Decider(filters)
        text_only = len(found) == 1 and needles.kinds == [TEXT] and decider.complete
        return cls(
            filters=filters,
            checks=found,
            prefilter=needles,
            starts=LineStarts(needles) if needles.kinds else None,
            timed=timed,
            raw_time=RawTime(filters.since, filters.until),
            time_only=timed and len(found) == 1,
            others=others,
            narrows=bool(others) or timed or needles.kinds[:1] == [SPEAKER],
            decider=decider,
            text_only=decider.text if text_only else _phrase(filters, found, needles),
            leaf=_leaf(filters, found, needles),
            fields=fields,
        )

    def matches(self, record: dict[str, Any]) -> bool:
        return all(check(record) for check in self.checks)


def _phrase(filters: Filters, found: list[Check], needles: Needles) -> TextPhrase | None:
    """The block decision of a query that is one phrase (``"forecast quarter"``)."""
    node = filters.tree.node if filters.tree is not None else None
    if len(found) != 1 or needles.kinds != [TEXT] or not isinstance(node, Term):
        return None
    return TextPhrase.of(node.value) if node.field == "phrase" else None


def _leaf(filters: Filters, found: list[Check], needles: Needles) -> LeafBlock | None:
    """The block decision of a query that is one negated leaf, scanned line by line (no
    needle every match holds): ``NOT tag:urgent``, ``NOT from:Quinn``."""
    if filters.tree is None or len(found) != 1 or needles.kinds:
        return None
    return LeafBlock.of(filters.tree.node)


def _fields(filters: Filters, found: list[Check]) -> FieldBlock | None:
    """The block decision of a query of ``format:``/``role:`` leaves only (its tree is
    then the one check: no time range rides beside it)."""
    if filters.tree is None or len(found) != 1:
        return None
    return FieldBlock.of(filters.tree.node)
