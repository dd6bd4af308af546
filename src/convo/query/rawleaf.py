"""One leaf of a query under NOT, decided a block at a time on raw bytes.

``NOT tag:urgent`` and ``NOT from:Quinn`` have no word that every match holds, so the
scan looked at every line and parsed it. But what the leaf answers on a line that lacks
its needle is known without a parse:

- ``tag:T``: the value equals a tag by casefold, so a line that holds the quoted value
  nowhere (ignoring ASCII case) has no such tag: the leaf is False, its negation True.
- ``from:NAME``: a line without the name's needle as a whole word (the needle scan's
  rule, ``prefilter.LineStarts``) has no such speaker: likewise.

Such a line must be a record, and the needle may be spelled another way: ``LineStarts``
makes a candidate of every line holding the needle, the escape of an ASCII character
(``prefilter.ASCII_ESCAPE``, which may also hide a key) or a case-fold letter that may
spell one of its letters, raw or escaped; the block must be records of one layout by its bytes
(``canonical.block_records``: convo's or Python's ``json.dumps``, with or without
``text_chunks``). Then only the candidates are parsed and checked; every other line
matches. A block not so proven is parsed line by line, as before. As with the raw time
pass (``linescan.BlockScan.time_block``), a line passed on unparsed is not validated
further (``convo validate`` reports it).

Measured against the same scan parsing every line (``benchmarks/bench_fastpaths.py``'s
pairing: in process, CPU, the 100k-record benchmark store's ranges one after another,
5 alternating rounds, noise = half the spread of their ratios; load average 6-8 on 2
cores): ``NOT tag:urgent`` 2.19× (±4%) on convo's layout, 1.56× (±5%) on its
``json.dumps`` copy; ``NOT from:Quinn`` 2.28× (±7%) and 1.53× (±12%). As whole commands
on the 1M-record store (CPU user+sys, every worker, one run each at load 10, main →
this path): ``NOT tag:urgent`` 5.22 → 3.09 s, on the copy 6.28 → 4.08 s;
``NOT from:Quinn`` 5.99 → 3.24 s and 6.62 → 4.31 s, the same output. Not given this
path, because they gained less than their noise: ``NOT format:slack`` (1.22× ±14%,
1.01× ±12%: its needle is on a fifth of the lines, all parsed) and ``role:user`` /
``role:assistant`` (1.22× ±20%, 1.04× ±8%; 1.04× ±4%, 0.91× ±7%: a record without a
role is ``user``, so four needles, ``"role"`` and the quoted other roles, had to be
looked for in every block, each a ``bytes.find`` whose letters are too common in JSON
to skip ahead: together they cost what the parse did). Those are now decided a block
at a time without a parse (``query/rawfields.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from convo.query.filters import Filters
from convo.query.prefilter import LineStarts, Needles
from convo.query.tree import Node, Not, Term


@dataclass
class LeafBlock:
    """A negated leaf decided a block at a time: ``starts`` finds the lines that may
    hold the leaf (parsed); every other line of a proven block matches."""

    starts: LineStarts

    @classmethod
    def of(cls, node: Node) -> LeafBlock | None:
        """The block decision for a query that is a ``tag:`` or ``from:`` leaf under an
        odd number of NOTs whose needle can be looked for in bytes; else None."""
        negated = False
        while isinstance(node, Not):
            node, negated = node.child, not negated
        if not (negated and isinstance(node, Term)):
            return None  # a leaf alone has its needle scan (or no raw answer)
        if node.field == "tag":  # a string equal by casefold
            needles = Needles.of(Filters(tags=[node.value]))
        elif node.field == "from":
            needles = Needles.of(Filters(speakers=[node.value]))
        else:
            return None
        if len(needles.kinds) != 1:
            return None  # a value JSON would escape, or without words: parsed
        return cls(LineStarts(needles))


__all__ = ["LeafBlock"]
