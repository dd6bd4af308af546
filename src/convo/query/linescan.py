"""Scanning one span of whole lines for a compiled filter: the matches and the bad lines.

The same code scans a file in this process and a byte range of it in a worker
(``convo.query.parallel``), so both give the same matches. A span is decided in this
order, cheapest first:

- Needle scan (speaker, listener, tag, text filters): the block is lower-cased once
  (ASCII only) and the needles of the first kind are found with a literal regex; only
  lines holding a hit (or a respelling) are looked at. Lines are not counted: matches
  carry line 0 and a bad line is located later from its offset. A line that does not
  open an object is always parsed (and so reported), even when it holds no needle.
- Every line (time filters, no filter, ``--regex``/``--thread`` alone): lines counted.
- Per line: the exact raw-byte decision of ``convo.query.canonical`` when the line is in
  convo's layout, else the other kinds' needles and the raw speaker, else an orjson
  parse and the exact checks. A line decided on its bytes goes out unparsed when the
  writer wants the original line (``need_record=False``); otherwise it is parsed, so a
  record the writer reads is always a parsed one.

Bad lines are collected as ``Bad`` (offset, number or 0, bytes, torn) for the caller
to report in order; matches keep their bytes and their offset in the span's buffer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import repeat
from typing import Any, NamedTuple

import orjson

from convo.core.errors import RecordError
from convo.core.jsonl import Line, parse_line
from convo.query.canonical import compress, has_control, offsets, time_mask, time_value
from convo.query.compiled import Compiled
from convo.query.prefilter import SPEAKER, may_respell, speaker_may_match

ErrorHandler = Callable[[RecordError, Line], None] | None
# A line that does not open a JSON object: cheap to spot, and never skipped unreported.
_ODD_NEXT = re.compile(rb"\n[^{]")


class Bad(NamedTuple):
    """A line that is not a JSON object: ``at`` is its offset in the scanned buffer."""

    at: int
    number: int  # 0: not counted (locate it from ``at``)
    raw: bytes
    torn: bool


class Match:
    """A selected record: its line (for pass-through), where it came from, and the parsed dict.

    ``record`` is parsed on first use when the selector passed the line through unparsed;
    ``at`` is the line's offset in the buffer it was scanned from (-1 when unknown).
    """

    __slots__ = ("_record", "at", "line", "name", "raw")

    def __init__(
        self, raw: bytes, record: dict[str, Any] | None, name: str, line: int = 0, at: int = -1
    ):
        self.raw = raw
        self._record = record
        self.name = name
        self.line = line
        self.at = at

    @property
    def where(self) -> str:
        return f"{self.name}:{self.line}" if self.line else self.name

    @property
    def record(self) -> dict[str, Any]:
        if self._record is None:
            self._record = parse_line(Line(self.line, self.raw), self.name)
        return self._record


class RawBatch:
    """Matches read back by the parallel scan: a sequence of ``Match``, made on access,
    and ``joined``, the lines with their newlines, made from runs of adjacent lines
    (the output of a writer that passes lines through, without a Match per line).

    It stands where a ``list[Match]`` does (``len``, iteration, indexing)."""

    __slots__ = ("_lengths", "_numbers", "_starts", "name", "window", "window_at")

    def __init__(self, window: bytes, window_at: int, starts, lengths, numbers, name: str):
        self.window = window
        self.window_at = window_at
        self._starts = starts
        self._lengths = lengths
        self._numbers = numbers  # None: not counted (line 0)
        self.name = name

    def __len__(self) -> int:
        return len(self._starts)

    def __iter__(self):
        w, w0, name = self.window, self.window_at, self.name
        numbers = self._numbers if self._numbers is not None else repeat(0)
        for a, size, number in zip(self._starts, self._lengths, numbers, strict=False):
            yield Match(w[a - w0 : a - w0 + size], None, name, number)

    def __getitem__(self, i: int) -> Match:
        return list(self)[i]

    @property
    def joined(self) -> bytes:
        w, w0 = self.window, self.window_at
        pieces = []
        run_start = run_end = -2
        for a, size in zip(self._starts, self._lengths, strict=True):
            if a != run_end + 1:
                if run_start >= 0:
                    pieces.append(w[run_start - w0 : run_end - w0])
                run_start = a
            run_end = a + size
        if run_start >= 0:
            pieces.append(w[run_start - w0 : run_end - w0])
        pieces.append(b"")
        return b"\n".join(pieces)


def odd_lines(low: bytes, start: int, end: int) -> list[int]:
    """Starts of the lines in ``low[start:end]`` that are not blank and do not open ``{``."""
    # One regex pass (it skips to each newline with memchr; bytes.count does not).
    if low.startswith(b"{", start) and _ODD_NEXT.search(low, start, end) is None:
        return []
    starts = [start] if low[start : start + 1] != b"{" else []
    starts.extend(m.start() + 1 for m in _ODD_NEXT.finditer(low, start, end))
    out = []
    for s in starts:  # rare: only lines not starting with "{" get here
        e = low.find(b"\n", s, end)
        line = low[s : end if e < 0 else e].lstrip()
        if line and line[:1] != b"{":
            out.append(s)
    return out


class BlockScan:
    """One span of whole lines, ``buf[start:end]``, scanned for a compiled filter."""

    def __init__(self, plan: Compiled, buf: bytes, name: str, torn: bool, need_record: bool):
        self.plan = plan
        self.buf = buf
        self.name = name
        self.torn = torn
        self.need_record = need_record
        self.checks = plan.checks
        self.bad: list[Bad] = []
        # Set by a worker: lines decided on their bytes are kept as offsets only
        # (``hits``: starts in the buffer, lengths, line numbers), not as Match objects.
        self.offsets_only = False
        self.hits: tuple[list[int], list[int], list[int]] | None = None

    def check(self, raw: bytes, number: int, torn: bool, at: int) -> Match | None:
        """The match of one raw line, or None; a line that is not an object is kept in ``bad``."""
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            record = None
        if type(record) is not dict:  # blank, bad or not an object: the careful path
            if raw.strip():
                self.bad.append(Bad(at, number, raw, torn))
            return None
        for c in self.checks:
            if not c(record):
                return None
        return Match(raw, record, self.name, number, at)

    def lines(self, start: int, end: int, first: int) -> tuple[list[Match], int]:
        """Every line of the span, counted; raw decisions first."""
        buf = self.buf
        block = buf[start:end] if start or end != len(buf) else buf
        lines = block.split(b"\n")
        if not lines[-1]:
            lines.pop()
        fast = self.time_block(block, lines, start, first)
        if fast is not None:
            return fast, len(lines)
        decide = self._line_decider(block)
        out: list[Match] = []
        last = len(lines) - 1
        pos = 0
        for i, raw in enumerate(lines):
            at = pos
            pos += len(raw) + 1
            torn = self.torn and i == last
            if raw[-1:] == b"\r":
                raw = raw.rstrip(b"\r")
            elif decide is not None and not torn:
                d = decide(block, at, at + len(raw))
                if d is False:
                    continue
                if d:
                    out.append(Match(raw, None, self.name, first + i, start + at))
                    continue
            m = self.check(raw, first + i, torn, start + at)
            if m is not None:
                out.append(m)
        return out, len(lines)

    def _line_decider(self, block: bytes):
        """``_decide``, with True made None (parse) when the record is wanted or the block
        holds a raw control byte."""
        decide = self._decide(block)
        if decide is None or not (self.need_record or has_control(block)):
            return decide
        return lambda buf, s, e: False if decide(buf, s, e) is False else None

    def _decide(self, block: bytes):
        """The decider's per-line call for this block, or None when it decides nothing."""
        decider = self.plan.decider
        if not decider.kinds:
            return None
        decider.begin(block)
        return decider.decide

    def time_block(
        self, block: bytes, lines: list[bytes], start: int, first: int
    ) -> list[Match] | None:
        """Time is the only filter: the block decided on raw timestamps in one tight loop
        (``canonical.time_value``), or None when some line needs a closer look."""
        times = self._block_times(block, lines)
        if times is None:
            return None
        mask = time_mask(times, self.plan.raw_time)
        numbers = range(first, first + len(lines))
        if self.offsets_only and not self.need_record:
            starts = [start + at for at in compress(offsets(lines), mask)]
            self.hits = (
                starts,
                list(compress(map(len, lines), mask)),
                list(compress(numbers, mask)),
            )
            return []
        rows = compress(zip(lines, offsets(lines), numbers, strict=False), mask)  # n+1 offsets
        if not self.need_record:
            name = self.name
            return [Match(raw, None, name, n, start + at) for raw, at, n in rows]
        found = (self.check(raw, n, False, start + at) for raw, at, n in rows)
        return [m for m in found if m is not None]

    def _block_times(self, block: bytes, lines: list[bytes]) -> list[bytes] | None:
        """Every line's raw timestamp when time alone decides and each line proves it."""
        if not self.plan.time_only or self.torn or not lines or b"\r" in block:
            return None
        if (b"\\" in block and b"\\u" in block) or has_control(block):
            return None  # an escape may spell a key another way; control bytes: parse
        times = []
        for raw in lines:
            ts = time_value(raw)
            if ts is None:
                return None
            times.append(ts)
        return times

    def needles(self, start: int, end: int, first: int, lazy: bool) -> tuple[list[Match], int]:
        """Only lines holding a needle of the first kind (or a respelling) are looked at.

        ``lazy``: lines are not counted; matches get line 0, bad lines number 0, and the
        returned line count is 0.
        """
        block = self.buf
        low = block.lower()
        ends, odd = self._candidates(low, start, end)
        decide = self._decide(block)
        out: list[Match] = []
        line_no, pos = first, start
        count = low.count
        may_match = self.may_match if self.plan.narrows else None
        for s, e in ends.items():
            if lazy:
                line_no = 0
            else:
                line_no += count(b"\n", pos, s)
                pos = s
            torn = self.torn and e == end
            if s not in odd:
                d = None if decide is None or torn else self._raw(decide, block, s, e)
                if d is False:
                    continue
                if d:
                    out.append(Match(block[s:e], None, self.name, line_no, s))
                    continue
                if may_match is not None and not may_match(low, s, e):
                    continue
            m = self.check(block[s:e].rstrip(b"\r"), line_no, torn, s)
            if m is not None:
                out.append(m)
        if lazy:
            return out, 0
        return out, line_no - first + count(b"\n", pos, end)

    def _raw(self, decide, block: bytes, s: int, e: int) -> bool | None:
        """False: skip the line; True: pass its bytes on unparsed; None: parse it."""
        if block[e - 1 : e] == b"\r":
            return None
        d = decide(block, s, e)
        return None if d and (self.need_record or has_control(block, s, e)) else d

    def _candidates(self, low: bytes, start: int, end: int) -> tuple[dict[int, int], set[int]]:
        """``{start: end}`` of the lines to look at, in order, and the odd ones among them."""
        assert self.plan.starts is not None
        ends = self.plan.starts.lines(low, self.buf, start, end)
        odd = set(odd_lines(low, start, end))
        if odd - ends.keys():
            for s in odd:
                e = low.find(b"\n", s, end)
                ends.setdefault(s, end if e < 0 else e)
            ends = dict(sorted(ends.items()))
        return ends, odd

    def may_match(self, low: bytes, s: int, e: int) -> bool:
        """The other kinds' needles, the raw speaker and the raw time allow the line."""
        plan = self.plan
        others = plan.others
        if others:
            lowline = low[s:e]
            if not may_respell(lowline) and not all(
                any(n in lowline for n in kind) for kind in others
            ):
                return False
        prefilter = plan.prefilter
        if prefilter.kinds[0] == SPEAKER and not speaker_may_match(low, s, e, prefilter.needles[0]):
            return False
        if not plan.timed:
            return True
        decider = plan.decider
        if decider.has_u and self.buf.find(b"\\u", s, e) >= 0:
            return True  # a \u escape may spell a key another way: parse
        return decider.time(self.buf, s, e) is not False


def report(bad: list[Bad], name: str, on_error: ErrorHandler, locator: Any, at: int = 0) -> None:
    """Report bad lines in order: each as ``parse_line`` words it, at its line number
    (``locator`` finds the number of an uncounted line from its offset, ``at`` + ``b.at``)."""
    for b in bad:
        number = b.number or (locator.line_at(at + b.at) if locator is not None else 0)
        line = Line(number, b.raw, b.torn)
        try:
            parse_line(line, name)
        except RecordError as e:
            if on_error is not None:
                on_error(e, line)
