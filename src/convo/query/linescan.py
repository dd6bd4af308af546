"""Scanning one span of whole lines for a compiled filter: the matches and the bad lines.

The same code scans a file in this process and a byte range of it in a worker
(``convo.query.parallel``), so both give the same matches. A span is decided in this
order, cheapest first:

- Needle scan (speaker, listener, tag, text filters): the block is lower-cased once
  (ASCII only) and the needles of the first kind are found with ``bytes.find``
  (``prefilter.LineStarts``); only lines holding a hit (or a respelling) are looked at.
  Lines are not counted: matches carry line 0 and a bad line is located later from its
  offset. A line that does not open an object is always parsed (and so reported), even
  when it holds no needle. One text word alone: the block's candidates are decided
  together (``rawtext.TextWord.block``).
- Every line (time filters, no filter, ``--regex``/``--thread`` alone): lines counted;
  time alone: the block's timestamps in one pass (``canonical.block_times``).
- ``format:``/``role:`` leaves only (``rawfields.FieldBlock``): a block proven records
  of one layout is decided in a few passes over its bytes (``format:``'s word is
  scanned for instead while the lines holding it are sparse, ``DENSE``, and each line
  holding it is decided by its format value's bytes, ``field_lines``).
- Per line: the exact raw-byte decision of ``convo.query.canonical`` when the line is in
  convo's layout, else the other kinds' needles and the raw speaker, else an orjson
  parse and the exact checks. A line decided on its bytes goes out unparsed when the
  writer wants the original line (``need_record=False``); otherwise it is parsed, so a
  record the writer reads is always a parsed one.

Bad lines are collected as ``Bad`` (offset, number or 0, bytes, torn) for the caller
to report in order; matches go to ``matches.Runs`` (offsets) when the lines pass
through, else to ``Match`` objects.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress, repeat
from operator import add
from typing import Any, NamedTuple

import orjson

from convo.core.errors import RecordError
from convo.core.fields import is_record
from convo.core.jsonl import Line, parse_record_line
from convo.query.canonical import (
    block_records,
    block_times,
    odd_lines,
    offsets,
    time_mask,
    with_odd_lines,
)
from convo.query.compiled import Compiled
from convo.query.matches import Match, Runs
from convo.query.prefilter import SPEAKER, may_respell, respelling_escape, speaker_may_match
from convo.query.rarebytes import CONTROL, found
from convo.query.rawkeys import has_control, lower_checked

ErrorHandler = Callable[[RecordError, Line], None] | None
# Decided lines of a buffer checked for control bytes one by one before the whole buffer
# is looked at once (that costs about what 50 lines do).
_LINES_CHECKED = 50


class Bad(NamedTuple):
    """A line that is not a JSON object: ``at`` is its offset in the scanned buffer."""

    at: int
    number: int  # 0: not counted (locate it from ``at``)
    raw: bytes
    torn: bool


class BlockScan:
    """One span of whole lines, ``buf[start:end]``, scanned for a compiled filter.

    Matches go to ``runs`` when it is given (offsets only: a pass-through writer or a
    worker), else to ``out`` as ``Match`` objects.
    """

    def __init__(
        self, plan: Compiled, buf: bytes, name: str, torn: bool, need_record: bool,
        runs: Runs | None = None,
    ):  # fmt: skip
        self.plan = plan
        self.buf = buf
        self.name = name
        self.torn = torn
        self.need_record = need_record
        self.checks = plan.checks
        self.bad: list[Bad] = []
        self.out: list[Match] = []
        self.runs = runs
        self._control: bool | None = None  # the buffer holds a raw control byte (lazy)
        self._checked = 0  # decided lines looked at for control bytes one by one

    def check(self, raw: bytes, number: int, torn: bool, at: int) -> Match | None:
        """The match of one raw line, or None; a line that is not an object is kept in ``bad``."""
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            record = None
        if not is_record(record):  # blank, bad, not an object or not a record: reported
            if raw.strip():
                self.bad.append(Bad(at, number, raw, torn))
            return None
        for c in self.checks:
            if not c(record):
                return None
        return Match(raw, record, self.name, number, at)

    def _parsed(self, raw: bytes, number: int, torn: bool, at: int) -> None:
        m = self.check(raw, number, torn, at)
        if m is None:
            return
        if self.runs is not None:
            self.runs.add(at, at + len(raw), number)
        else:
            self.out.append(m)

    def _decided(self, s: int, e: int, number: int) -> None:
        """The line ``buf[s:e]``, decided on its bytes, matches (passed on unparsed)."""
        if self.runs is not None:
            self.runs.add(s, e, number)
        else:
            self.out.append(Match(self.buf[s:e], None, self.name, number, s))

    def span(self, start: int, end: int, first: int, lazy: bool) -> int:
        """Scan ``buf[start:end]``, its first line numbered ``first``: a needle scan when
        the filter has needles (``lazy``: lines not counted), else every line. Returns
        the lines counted."""
        fields = self.plan.fields
        if fields is not None and not self.torn and (self.plan.starts is None or fields.dense):
            counted = self.field_span(start, end, 0 if lazy else first)
            if counted is not None:  # else not proven: the needle scan, or every line
                return 0 if lazy else counted
        if self.plan.starts is not None:
            return self.needles(start, end, first, lazy)
        return self.lines(start, end, first)

    def lines(self, start: int, end: int, first: int) -> int:
        """Every line of the span, counted; raw decisions first. Returns the line count."""
        buf = self.buf
        block = buf[start:end] if start or end != len(buf) else buf
        n = self.time_block(block, start, first)
        if n is not None:
            return n
        lines = block.split(b"\n")
        if not lines[-1]:
            lines.pop()
        if self.leaf_block(block, lines, start, first):
            return len(lines)
        decide = self._line_decider(block)
        last = len(lines) - 1
        pos = start
        for i, raw in enumerate(lines):
            at = pos
            pos += len(raw) + 1
            torn = self.torn and i == last
            if raw[-1:] == b"\r":
                raw = raw.rstrip(b"\r")
            elif decide is not None and not torn:
                d = decide(buf, at, at + len(raw))
                if d is False:
                    continue
                if d:
                    self._decided(at, at + len(raw), first + i)
                    continue
            self._parsed(raw, first + i, torn, at)
        return len(lines)

    def _line_decider(self, block: bytes):
        """``_decide``, with True made None (parse) when the record is wanted or the block
        holds a raw control byte."""
        decide = self._decide(block)
        if decide is None or not (self.need_record or has_control(block)):
            return decide
        return lambda buf, s, e: False if decide(buf, s, e) is False else None

    def _decide(self, block: bytes, low: bytes | None = None):
        """The decider's per-line call for this block, or None when it decides nothing."""
        decider = self.plan.decider
        if not decider.kinds:
            return None
        decider.begin(block, low)
        return decider.decide

    def time_block(self, block: bytes, start: int, first: int) -> int | None:
        """Time is the only filter: the block decided on raw timestamps in one pass
        (``canonical.block_times``), not split into lines; its line count, or None when
        some line needs a closer look.

        Measured against deciding each line (``benchmarks/bench_fastpaths.py``, CPU, 100k
        records): ``--since`` 1.80× (noise ±8%); against the proof before it, in
        ``canonical.block_times``."""
        if not self.plan.time_only or self.torn or not block.endswith(b"\n"):
            return None
        n = block.count(b"\n")
        found = block_times(block, n)
        if found is None:
            return None
        times, ends = found
        mask = time_mask(times, self.plan.raw_time)
        at = [start, *map(add, ends, repeat(start))] if start else [0, *ends]
        self._emit(None, at, mask, first)
        return n

    def leaf_block(self, block: bytes, lines: list[bytes], start: int, first: int) -> bool:
        """The query is one negated leaf (``rawleaf.LeafBlock``): in a block proven to be
        records only the lines that may hold the leaf are parsed, the others match; False
        when the block is not so proven (then every line is parsed)."""
        leaf = self.plan.leaf
        if leaf is None or self.torn or not lines:
            return False
        low, control = lower_checked(block)
        if block_records(block, len(lines), control) is None:
            return False
        at = offsets(lines, start)  # n+1 offsets
        mask = bytearray(b"\1" * len(lines))
        candidates = leaf.starts.lines(low, block, 0, len(block))
        if candidates:
            index = dict(zip(at, range(len(lines)), strict=False))
            for s in candidates:
                i = index[s + start]
                mask[i] = self.check(lines[i], first + i, False, at[i]) is not None
        self._emit(lines, at, bytes(mask), first)
        return True

    def field_span(self, start: int, end: int, first: int) -> int | None:
        """The query is ``format:``/``role:`` leaves only (``rawfields.FieldBlock``): a span
        proven records of one layout is decided on its bytes, the lines they leave open
        parsed. Returns its line count, or None when it is not so proven (``first`` 0:
        lines not counted). A span every line of which matches, or none, is one run of
        offsets (or none), not split into lines."""
        fields = self.plan.fields
        assert fields is not None
        buf = self.buf
        block = buf[start:end] if start or end != len(buf) else buf
        n = block.count(b"\n")  # whole lines, the last with its newline (not torn)
        decided = fields.block(block, n)
        if decided is None:
            return None
        mask, undecided = decided
        if self.plan.starts is not None and end - start >= _SAMPLE:  # the needle scan if sparse
            fields.dense = mask.count(1) >= DENSE * n
        if mask.count(0) == n and not undecided:
            return n
        if mask.count(1) == n and self.runs is not None and not self.need_record:
            self.runs.add(start, end - 1, first, n)
            return n
        lines = block.split(b"\n")
        lines.pop()  # after the last newline
        at = offsets(lines, start)  # n+1 offsets
        if undecided:
            found = bytearray(mask)
            for i in undecided:
                number = first + i if first else 0
                found[i] = self.check(lines[i], number, False, at[i]) is not None
            mask = bytes(found)
        self._emit(lines, at, mask, first)
        return n

    def _emit(self, lines: list[bytes] | None, at: list[int], mask: bytes, first: int) -> None:
        """The lines whose ``mask`` byte is 1 match (``at``: their offsets, one more;
        ``lines``: their bytes, or None to cut them from the buffer)."""
        if self.need_record:
            buf = self.buf
            for i in compress(range(len(mask)), mask):
                raw = lines[i] if lines is not None else buf[at[i] : at[i + 1] - 1]
                self._parsed(raw, first + i if first else 0, False, at[i])
        elif self.runs is not None:
            self.runs.add_mask(at, mask, first)
        else:
            for i in compress(range(len(mask)), mask):
                self._decided(at[i], at[i + 1] - 1, first + i if first else 0)

    def needles(self, start: int, end: int, first: int, lazy: bool) -> int:
        """Only lines holding a needle of the first kind (or a respelling) are looked at.

        ``lazy``: lines are not counted; matches get line 0, bad lines number 0, and the
        returned line count is 0. Returns the line count.
        """
        if lazy and self.value_span(start, end):
            return 0
        block = self.buf
        text_pass = lazy and self._text_pass()
        if text_pass:  # the control-byte check it needs, in the lowering's pass
            low, self._control = lower_checked(block)
        else:
            low = block.lower()
        decide = self._decide(block, low)
        if text_pass and self.text_block(low, start, end, decide):
            return 0
        ends, odd = self._candidates(low, start, end)
        if self.plan.fields is not None:
            if end - start >= _SAMPLE:  # the next span's way
                self.plan.fields.dense = _dense(ends, start, end)
            escapes = self.plan.starts.escapes if self.plan.starts is not None else True
            if lazy and self.field_lines(low, ends, odd, decide, escapes):
                return 0
        line_no, pos = first, start
        count = low.count
        for s, e in ends.items():
            if lazy:
                line_no = 0
            else:
                line_no += count(b"\n", pos, s)
                pos = s
            self._candidate(low, s, e, line_no, s in odd, decide)
        if lazy:
            return 0
        return line_no - first + count(b"\n", pos, end)

    def field_lines(self, low: bytes, ends: dict, odd: set, decide, escapes, control=True) -> bool:
        """``format:`` leaves only: the needle scan's candidates decided by their format
        values' bytes (``rawfields.FieldBlock.lines``), the others parsed. False: look
        at them one by one instead (records wanted, a torn line, a role read).
        ``escapes``: the lines may hold the escape of an ASCII character; ``control``:
        they may hold a raw control byte (False: their span was proven to hold none)."""
        fields, runs = self.plan.fields, self.runs
        if fields is None or runs is None or self.need_record or self.torn:
            return False
        starts, stops = list(ends), list(ends.values())
        decided = fields.lines(self.buf, starts, stops, escapes)
        if decided is None:
            return False
        if True in decided and control:
            cuts = map(slice, compress(starts, decided), compress(stops, decided))
            if has_control(b"".join(map(self.buf.__getitem__, cuts))):
                return False  # rare: a raw control byte (invalid JSON) in a line to pass on
        if None not in decided:
            runs.add_lines(list(compress(starts, decided)), list(compress(stops, decided)))
            return True
        for s, e, d in zip(starts, stops, decided, strict=True):
            if d:
                runs.add(s, e)
            elif d is None:
                self._candidate(low, s, e, 0, s in odd, decide)
        return True

    def value_span(self, start: int, end: int) -> bool:
        """``format:`` leaves naming plain values: the lines that may hold one found on the
        raw bytes (``rawfields.ValueLines``, measured there), not lower-cased, and decided
        as the needle scan's are (``field_lines``). False: another query, records wanted."""
        fields, passing = self.plan.fields, self.runs is not None and not self.need_record
        if fields is None or fields.values is None or self.plan.narrows or not passing:
            return False
        if self.torn:  # the needle scan reads a torn last line
            return False
        buf = self.buf
        kinds = found(buf, start, end)  # escapes, odd lines, control bytes: one pass
        ends, escapes = fields.values.lines(buf, start, end, kinds)
        ends, odd = with_odd_lines(buf, ends, start, end, kinds)  # (raw bytes: no letter read)
        if end - start >= _SAMPLE:  # the next span's way
            fields.dense = _dense(ends, start, end)
        control = kinds is None or bool(kinds & CONTROL)
        if self.field_lines(buf, ends, odd, None, escapes, control):
            return True
        for s, e in ends.items():  # rare: a raw control byte in a line to pass on
            self._candidate(buf, s, e, 0, s in odd, None)
        return True

    def _candidate(self, low: bytes, s: int, e: int, number: int, odd: bool, decide) -> None:
        """One line that may match: decided on its bytes, or parsed."""
        block = self.buf
        torn = self.torn and block[e : e + 1] != b"\n"
        if not odd:
            d = None if decide is None or torn else self._raw(decide, block, s, e)
            if d is False:
                return
            if d:
                self._decided(s, e, number)
                return
            if self.plan.narrows and not self.may_match(low, s, e):
                return
        self._parsed(block[s:e].rstrip(b"\r"), number, torn, s)

    def text_block(self, low: bytes, start: int, end: int, decide) -> bool:
        """One text word is the only filter: its lines found and mostly decided at once
        (``canonical.TextWord.block``), the others looked at one by one. False: scan
        the span line by line instead."""
        text, runs = self.plan.text_only, self.runs
        if text is None or runs is None or self._has_control():
            return False
        found = text.block(self.buf, low, start, end)
        if found is None:
            return False
        # The span holds no escape that may spell ASCII (``TextWord.block`` answers only
        # then): the decider need not look for one in the block again (on the benchmark
        # store's json.dumps copy that second look cost what the text pass's own did).
        self.plan.decider.escapes_known(False)
        starts, ends, decided, objects = found
        odd = [] if objects else odd_lines(low, start, end)
        if odd:  # lines that are not objects are parsed, so reported (rare)
            starts, ends, decided = _with_odd(low, end, found, odd)
        if None not in decided:
            runs.add_lines(list(compress(starts, decided)), list(compress(ends, decided)))
            return True
        odd_set = set(odd)
        add = runs.add
        for s, e, d in zip(starts, ends, decided, strict=True):
            if d:
                add(s, e)
            elif d is None:
                self._candidate(low, s, e, 0, s in odd_set, decide)
        return True

    def _text_pass(self) -> bool:
        """The span may be decided by ``text_block``: one text word is the only filter
        and the matches pass through as offsets."""
        text_only = self.plan.text_only is not None and self.runs is not None
        return text_only and not (self.torn or self.need_record)

    def _raw(self, decide, block: bytes, s: int, e: int) -> bool | None:
        """False: skip the line; True: pass its bytes on unparsed; None: parse it."""
        if block[e - 1 : e] == b"\r":
            return None
        d = decide(block, s, e)
        if not d:
            return d
        if self.need_record:
            return None
        if self._control is None:  # line by line while few lines are decided (rare names)
            self._checked += 1
            if self._checked < _LINES_CHECKED:
                return None if has_control(block, s, e) else d
        return None if self._has_control() and has_control(block, s, e) else d

    def _has_control(self) -> bool:
        """The buffer holds a raw control byte (looked for once)."""
        if self._control is None:
            self._control = has_control(self.buf)
        return self._control

    def _candidates(self, low: bytes, start: int, end: int) -> tuple[dict[int, int], set[int]]:
        """``{start: end}`` of the lines to look at, in order, and the odd ones among them."""
        assert self.plan.starts is not None
        ends = self.plan.starts.lines(low, self.buf, start, end)
        # The decider's per-block look for such escapes, answered by this one's: every
        # line it decides is in the span.
        self.plan.decider.escapes_known(self.plan.starts.escapes)
        return with_odd_lines(low, ends, start, end)

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
        if decider.has_u and respelling_escape(self.buf, s, e):
            return True  # a \u escape may spell a key another way: parse
        return decider.time(self.buf, s, e) is not False


# A ``format:`` span is decided a block at a time (``BlockScan.field_span``) when in the
# span before it the lines holding its word (the needle scan's), or the matches (the
# block decision's), were at least this share: the needle scan parses those lines, which
# on the benchmark store (100k records, CPU in process) cost what the block decision
# does at about a quarter of them (``format:slack``, a fifth of the lines: 187 ms
# against 229; four formats ORed, four fifths: 668 against 218).
DENSE = 0.3
# Spans shorter than this say nothing of the next (the line cut by a read comes alone).
_SAMPLE = 1 << 16


def _dense(ends: dict[int, int], start: int, end: int) -> bool:
    """The candidate lines ``ends`` are at least ``DENSE`` of ``[start, end)``'s bytes
    (their share of its lines, near enough)."""
    return sum(ends.values()) - sum(ends) >= DENSE * (end - start)


def _with_odd(low: bytes, end: int, found, odd: list[int]):
    """``found``'s lines and the odd ones (undecided), in order."""
    lines = {s: (e, d) for s, e, d in zip(found.starts, found.ends, found.decided, strict=True)}
    for s in odd:
        e = low.find(b"\n", s, end)
        lines[s] = (end if e < 0 else e, None)
    starts = sorted(lines)
    return starts, [lines[s][0] for s in starts], [lines[s][1] for s in starts]


def report(bad: list[Bad], name: str, on_error: ErrorHandler, locator: Any, at: int = 0) -> None:
    """Report bad lines in order: each as ``parse_record_line`` words it, at its line number
    (``locator`` finds the number of an uncounted line from its offset, ``at`` + ``b.at``)."""
    for b in bad:
        number = b.number or (locator.line_at(at + b.at) if locator is not None else 0)
        line = Line(number, b.raw, b.torn)
        try:
            parse_record_line(line, name)
        except RecordError as e:
            if on_error is not None:
                on_error(e, line)
