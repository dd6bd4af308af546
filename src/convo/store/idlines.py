"""The lines of the store that may hold one of some ids, found on their bytes.

``rm`` and ``tag`` of ``id:X`` (or of ids piped to ``-``) change a few lines of a large
store. ``convo.store.rewrite`` copies the store either way (a new file renamed over the
old one), but parses only the lines ``pieces`` marks as candidates and copies the others
as they are, a run of whole lines at a time (the index follows the run in one step,
``index.rewrite.Follower.gap``).

A line is a candidate when it holds the JSON form of one of the ids (``orjson``'s:
``"`` and ``\\`` and control characters escaped, the rest as UTF-8) or an escape that may
spell one of the id's characters another way: ``\\u00XX`` of an ASCII character (every
id ASCII), else any ``\\u``; ``\\/`` when an id holds ``/``. JSON has no other way to
write a string, so a line that is no candidate cannot hold the id as a value, let alone
as its top-level ``id``: the result is the plain copy's (``tests/store/test_idlines.py``
holds the two to the same store bytes, results and index). More than ``MAX_IDS`` ids,
or an id JSON cannot encode, take the plain copy.

Measured on a 200k-record, 69 MB store of orjson lines, one match, the whole command's
CPU (user + sys, median of 3 rounds alternating with the plain copy, load 5-6; wall time
was 2-4x noisier): ``convo tag +x -- id:X`` 1.11 s → 0.57 s with a fresh index (the
index's 200k rows still read for the follower), 0.89 s → 0.30 s without one; ``rm
--dry-run id:X`` 1.07 s → 0.13 s with the index (``Store`` answers it through
``store.select``: no line of the store read), 0.93 s → 0.29 s without.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import IO, Any

MAX_IDS = 64  # a find pass per id: more ids take the plain copy
BLOCK = 1 << 20
BOM = b"\xef\xbb\xbf"


def required_ids(where: Any) -> frozenset[str] | None:
    """The ids of which every record the query tree ``where`` selects has one (an
    ``id:`` term, an OR of them, an AND holding one); None: no such set."""
    from convo.query.tree import And, Or, Term

    if isinstance(where, Term):
        return frozenset((where.value,)) if where.field == "id" else None
    if isinstance(where, Or):
        out: set[str] = set()
        for child in where.children:
            ids = required_ids(child)
            if ids is None:
                return None
            out |= ids
        return frozenset(out)
    if isinstance(where, And):
        found = [ids for c in where.children if (ids := required_ids(c)) is not None]
        return min(found, key=len) if found else None
    return None


class Needles:
    """What a candidate line holds: one of ``literals`` (the ids' JSON forms, ``\\u`` for
    a non-ASCII id, ``\\/`` for an id holding ``/``), or, ``ascii_escape``, a
    ``\\u00`` followed by ``0``-``7`` (an escape of an ASCII character:
    ``query.prefilter.ASCII_ESCAPE``). On 64 MiB of the 200k-record store (load 4.5, best
    of 3): one regex alternation of an id and the escape took 13.9 ms a MiB (it has no
    literal head for the engine to search for), the id's ``bytes.find`` 0.6 ms and the
    escape's regex 0.5 ms."""

    def __init__(self, literals: list[bytes], ascii_escape: bool) -> None:
        self.literals, self.ascii_escape = literals, ascii_escape

    def starts(self, buf: bytes, pos: int, end: int) -> list[int]:
        """Where a needle lies in ``buf[pos:end]`` (its start), ascending."""
        hits: list[int] = []
        for needle in self.literals:
            i = buf.find(needle, pos, end)
            while i >= 0:
                hits.append(i)
                i = buf.find(needle, i + 1, end)
        if self.ascii_escape:
            from convo.query.prefilter import ASCII_ESCAPE

            hits.extend(m.start() for m in ASCII_ESCAPE.finditer(buf, pos, end))
        hits.sort()
        return hits


def needles(ids: Collection[str]) -> Needles | None:
    """What a candidate line holds (see the module docstring); None: take the plain copy."""
    if not ids or len(ids) > MAX_IDS:
        return None
    import orjson

    try:
        literals = [orjson.dumps(i)[1:-1] for i in ids]
    except TypeError:  # a lone surrogate (an id read with surrogateescape)
        return None
    if any(not n for n in literals):
        return None  # the empty id: every line holds it
    ascii_ids = all(i.isascii() for i in ids)
    if not ascii_ids:
        literals.append(b"\\u")
    if any("/" in i for i in ids):
        literals.append(b"\\/")
    return Needles(literals, ascii_ids)


def pieces(f: IO[bytes], found: Needles) -> Iterator[tuple[int, bytes, bool]]:
    """``(offset, bytes, candidate)`` covering the file ``f`` in order: a candidate is one
    line (with its newline; the last may lack one), the rest runs of whole lines. A
    first line that starts with a byte-order mark is a candidate (the copy handles it).
    The file is read as ``query.blocks.iter_spans`` gives whole lines (a long line joined
    once, not copied again at every read)."""
    from convo.query.blocks import iter_spans

    for buf, start, end, _torn, at in iter_spans(f, BLOCK, bom=False):
        yield from _split(buf, start, end, at, found)


def _split(
    buf: bytes, start: int, end: int, at: int, found: Needles
) -> Iterator[tuple[int, bytes, bool]]:
    """The pieces of the whole lines ``buf[start:end]`` (``buf`` is at offset ``at``)."""
    pos = start  # where the run of lines not yet given starts
    if at + start == 0 and buf.startswith(BOM, start, end):
        nl = buf.find(b"\n", start, end)
        pos = end if nl < 0 else nl + 1
        yield at + start, buf[start:pos], True
    for s in found.starts(buf, pos, end):
        if s < pos:
            continue  # in the line given last
        first = buf.rfind(b"\n", start, s) + 1 or start
        nl = buf.find(b"\n", s, end)
        last = end if nl < 0 else nl + 1
        if first > pos:
            yield at + pos, buf[pos:first], False
        yield at + first, buf[first:last], True
        pos = last
    if pos < end:
        yield at + pos, buf[pos:end], False
