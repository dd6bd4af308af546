"""Selecting records from JSONL: decide on raw bytes when possible, parse only what may match.

The filters' meaning is in ``convo.query.filters``; the raw-byte decisions (word needles,
raw timestamps) in ``convo.query.prefilter``. This module scans: the store is read in
1 MiB blocks without copies (``convo.query.blocks``), never as line objects.

- Word filters: the block is lower-cased once (ASCII only) and the needles of the first
  kind are found with a literal regex. Only lines holding a hit (or a respelling) are
  looked at further: other kinds' needles, the raw ``"speaker":"..."`` value when
  unambiguous, the raw time, then an orjson parse and the exact checks. Lines are not
  counted in this scan of a regular file: an error is located by a second reader
  (``LineLocator``) and matches carry line 0. A line that does not open an object is
  always parsed (and so reported), even when it holds no needle.
- ``--since``/``--until``: when time is the only filter and the output is the original
  line (jsonl/json), a line whose raw timestamp decides it is passed through without a
  parse; it must look like an object (``{...}``). Decision: such a line is not validated
  further (``convo validate`` does), and a record whose only ``"timestamp"`` key is
  nested is judged by that key.
- Everything else is parsed with orjson and checked exactly; matches keep their bytes.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import orjson

from convo.core.errors import RecordError
from convo.core.jsonl import Line, parse_line
from convo.query.blocks import BLOCK, LineLocator, iter_spans
from convo.query.filters import Filters, checks
from convo.query.prefilter import (
    RAW_TS,
    SPEAKER,
    LineStarts,
    Needles,
    RawTime,
    may_respell,
    speaker_may_match,
)

__all__ = ["Filters", "Match", "Selector", "select"]

# Raw control bytes a JSON line cannot hold (tab, LF and CR may stand between tokens);
# one memchr per byte value is ~10x faster than a character-class regex over a block.
_RAW_CONTROL = tuple(bytes([c]) for c in range(0x20) if c not in (0x09, 0x0A, 0x0D))
# A line that does not open a JSON object: cheap to spot, and never skipped unreported.
_ODD_NEXT = re.compile(rb"\n[^{]")
T = TypeVar("T")
ErrorHandler = Callable[[RecordError, Line], None] | None


class Match:
    """A selected record: its line (for pass-through), where it came from, and the parsed dict.

    ``record`` is parsed on first use when the selector passed the line through unparsed.
    """

    __slots__ = ("_record", "line", "name", "raw")

    def __init__(self, raw: bytes, record: dict[str, Any] | None, name: str, line: int = 0):
        self.raw = raw
        self._record = record
        self.name = name
        self.line = line

    @property
    def where(self) -> str:
        return f"{self.name}:{self.line}" if self.line else self.name

    @property
    def record(self) -> dict[str, Any]:
        if self._record is None:
            self._record = parse_line(Line(self.line, self.raw), self.name)
        return self._record


def odd_lines(low: bytes, start: int, end: int) -> list[int]:
    """Starts of the lines in ``low[start:end]`` that are not blank and do not open ``{``."""
    starts = [start] if low[start : start + 1] != b"{" else []
    starts.extend(m.start() + 1 for m in _ODD_NEXT.finditer(low, start, end))
    out = []
    for s in starts:  # rare: only lines not starting with "{" get here
        e = low.find(b"\n", s, end)
        line = low[s : end if e < 0 else e].lstrip()
        if line and line[:1] != b"{":
            out.append(s)
    return out


class Selector:
    """A compiled ``Filters``: ``select(lines)`` yields the matching records.

    ``lines_read()`` counts the lines looked at (matching or not), for "0 of N read".
    """

    def __init__(self, filters: Filters):
        self.filters = filters
        self.block_size = BLOCK
        self.read = 0
        self._uncounted: list[Any] = []  # sources scanned without counting their lines
        self._checks = checks(filters)
        self._prefilter = Needles.of(filters)
        self._starts = LineStarts(self._prefilter) if self._prefilter.kinds else None
        self._timed = bool(filters.since or filters.until)
        self._raw_time = RawTime(filters.since, filters.until)
        # Time is the only filter: a clean raw timestamp decides the line without a parse.
        self._time_only = self._timed and len(self._checks) == 1
        # What narrows a needle scan's candidates before the parse (see _BlockScan.may_match).
        self._others = self._prefilter.needles[1:]
        kinds = self._prefilter.kinds
        self._narrows = bool(self._others) or self._timed or (kinds[:1] == [SPEAKER])

    def raw_may_match(self, raw: bytes) -> bool:
        """False only when the line certainly does not match (no parse needed)."""
        if not self._prefilter.raw_may_match(raw):
            return False
        return not (self._timed and self._raw_time.decide(raw) is False)

    def matches(self, record: dict[str, Any]) -> bool:
        return all(check(record) for check in self._checks)

    def select(self, lines: Iterable[tuple[Line, str]], on_error=None) -> Iterator[Match]:
        """Matching records from ``(line, source name)`` pairs, limit and order applied."""
        return self._limit(self._select(lines, on_error))

    def select_parts(self, parts: Iterable[Any], on_error=None, *, need_record=True):
        """Matching records from ``inputs.record_parts``, limit and order applied."""
        return self._limit(m for batch in self.batches(parts, on_error, need_record) for m in batch)

    def batches(
        self, parts: Iterable[Any], on_error=None, need_record: bool = True
    ) -> Iterator[list[Match]]:
        """Lists of matches (no limit or order): raw sources are scanned in blocks.

        ``need_record=False`` lets a line decided on raw bytes pass without a parse.
        """
        for part in parts:
            if hasattr(part, "open"):  # a raw JSONL source
                yield from self._source_batches(part, on_error, need_record)
                continue
            batch: list[Match] = []
            for m in self._select(part, on_error):
                batch.append(m)
                if len(batch) >= 1000:
                    yield batch
                    batch = []
            if batch:
                yield batch

    def _source_batches(self, part: Any, on_error, need_record: bool) -> Iterator[list[Match]]:
        # Needle scans of a file that can be read again skip counting lines: the few
        # lines that need a number (errors) are located on demand.
        lazy = self._starts is not None and getattr(part, "reopenable", False)
        locator = LineLocator(part.open) if lazy else None
        try:
            with part.open() as stream:
                first = 1
                for buf, start, end, torn, at in iter_spans(stream, self.block_size):
                    locate = (lambda i, at=at, lc=locator: lc.line_at(at + i)) if locator else None
                    scan = _BlockScan(self, buf, part.name, torn, on_error)
                    if self._starts is not None:
                        out, lines = scan.needles(start, end, first, locate)
                    else:
                        out, lines = scan.lines(start, end, first, need_record)
                    first += lines
                    self.read += lines
                    yield out
                if lazy:
                    self._uncounted.append(part)
        finally:
            if locator is not None:
                locator.close()

    def lines_read(self) -> int:
        """Lines read so far; sources scanned without counting are counted now (again)."""
        for part in self._uncounted:
            with part.open() as stream:
                self.read += sum(
                    buf.count(b"\n", s, e) + t for buf, s, e, t, _ in iter_spans(stream)
                )
        self._uncounted.clear()
        return self.read

    def _limit(self, out: Iterator[Match]) -> Iterator[Match]:
        return limited(out, self.filters.limit, self.filters.reverse)

    def _select(self, lines: Iterable[tuple[Line, str]], on_error) -> Iterator[Match]:
        may = self.raw_may_match
        checks = self._checks
        for line, name in lines:
            self.read += 1
            if not may(line.raw):
                continue
            try:
                record = parse_line(line, name)
            except RecordError as e:
                if on_error is not None:
                    on_error(e, line)
                continue
            if all(c(record) for c in checks):
                yield Match(line.raw, record, name, line.number)


class _BlockScan:
    """One span of whole lines, ``buf[start:end]``, scanned for a selector."""

    def __init__(self, sel: Selector, buf: bytes, name: str, torn: bool, on_error: ErrorHandler):
        self.sel = sel
        self.buf = buf
        self.name = name
        self.torn = torn
        self.on_error = on_error
        self.checks = sel._checks

    def check(self, raw: bytes, number: int, torn: bool, locate=None, at: int = 0) -> Match | None:
        """The match of one raw line, or None; a bad line is reported (located on demand)."""
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            record = None
        if type(record) is not dict:  # blank, bad or not an object: the careful path
            if not raw.strip():
                return None
            line = Line(number or locate(at), raw, torn)
            try:
                record = parse_line(line, self.name)
            except RecordError as e:
                if self.on_error is not None:
                    self.on_error(e, line)
                return None
        for c in self.checks:
            if not c(record):
                return None
        return Match(raw, record, self.name, number)

    def lines(self, start: int, end: int, first: int, need_record: bool):
        """Every line of the span; time filters first on the raw bytes."""
        buf = self.buf
        block = buf[start:end] if start or end != len(buf) else buf
        lines = block.split(b"\n")
        if not lines[-1]:
            lines.pop()
        sel = self.sel
        crlf = b"\r" in block
        if sel._time_only and not need_record and not crlf:
            passed = self.pass_through(lines, block, first)
            if passed is not None:
                return passed, len(lines)
        out: list[Match] = []
        last = len(lines) - 1
        decide = sel._raw_time.decide if sel._timed else None
        for i, raw in enumerate(lines):
            if crlf:
                raw = raw.rstrip(b"\r")
            if decide is not None and decide(raw) is False:
                continue
            m = self.check(raw, first + i, self.torn and i == last)
            if m is not None:
                out.append(m)
        return out, len(lines)

    def pass_through(self, lines: list[bytes], block: bytes, first: int) -> list[Match] | None:
        """Time is the only filter and lines go out as they are: decide on raw timestamps.

        Optimistic and without side effects: None (the block takes the careful path) as
        soon as a line has no clean raw timestamp, is not shaped ``{...}`` or is a torn
        last line, and when the block does not hold exactly one ``"timestamp"`` per line.
        """
        if any(c in block for c in _RAW_CONTROL):
            return None  # raw control bytes cannot be valid JSON: parse, reject and count
        search = RAW_TS.search
        ok = self.sel._raw_time.ok
        out: list[Match] = []
        found = 0
        last = len(lines) - 1
        for i, raw in enumerate(lines):
            m = search(raw)
            if m is None or raw[:1] != b"{" or raw[-1:] != b"}" or (self.torn and i == last):
                if not raw.strip():
                    continue
                return None
            found += 1
            if ok(m.group(1)):
                out.append(Match(raw, None, self.name, first + i))
        if found != block.count(b'"timestamp"'):
            return None
        return out

    def needles(self, start: int, end: int, first: int, locate=None):
        """Only lines holding a needle of the first kind (or a respelling) are looked at.

        With ``locate`` (index in the span -> line number) lines are not counted: matches
        get line 0 and errors ask ``locate``; the returned line count is then 0.
        """
        block = self.buf
        low = block.lower()
        assert self.sel._starts is not None
        ends = self.sel._starts.lines(low, block, start, end)
        odd = set(odd_lines(low, start, end))
        if odd - ends.keys():
            for s in odd:
                e = low.find(b"\n", s, end)
                ends.setdefault(s, end if e < 0 else e)
            ends = dict(sorted(ends.items()))
        out: list[Match] = []
        line_no, pos = first, start
        count = low.count
        may_match = self.may_match if self.sel._narrows else None
        for s, e in ends.items():
            if locate is None:
                line_no += count(b"\n", pos, s)
                pos = s
            else:
                line_no = 0
            if may_match is not None and s not in odd and not may_match(low, s, e):
                continue
            raw = block[s:e]
            if raw[-1:] == b"\r":
                raw = raw.rstrip(b"\r")
            m = self.check(raw, line_no, self.torn and e == end, locate, s)
            if m is not None:
                out.append(m)
        if locate is not None:
            return out, 0
        return out, line_no - first + count(b"\n", pos, end)

    def may_match(self, low: bytes, s: int, e: int) -> bool:
        """The other kinds' needles, the raw speaker and the raw time allow the line."""
        sel = self.sel
        prefilter = sel._prefilter
        others = sel._others
        if others:
            lowline = low[s:e]
            if not may_respell(lowline) and not all(
                any(n in lowline for n in kind) for kind in others
            ):
                return False
        if prefilter.kinds[0] == SPEAKER and not speaker_may_match(low, s, e, prefilter.needles[0]):
            return False
        return not (sel._timed and sel._raw_time.decide(self.buf[s:e]) is False)


def limited(items: Iterable[T], limit: int | None, reverse: bool) -> Iterator[T]:
    """``--limit`` and ``--reverse``: the first (or, reversed, the last) ``limit`` items."""
    if limit is not None and limit <= 0:
        return
    if reverse:
        buf: deque[T] = deque(items, maxlen=limit)
        while buf:
            yield buf.pop()
        return
    for i, item in enumerate(items, 1):
        yield item
        if limit is not None and i >= limit:
            return


def select(records: Iterable[dict[str, Any]], filters: Filters) -> Iterator[dict[str, Any]]:
    """Library form: filter already-parsed records (or ``serialize()`` dicts)."""
    sel = Selector(filters)
    return limited((r for r in records if sel.matches(r)), filters.limit, filters.reverse)
