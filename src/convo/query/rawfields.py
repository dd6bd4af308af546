"""``format:`` and ``role:`` decided a block at a time on the raw bytes of a record layout.

A query whose leaves are all ``format:`` and ``role:`` (joined by AND, OR, NOT) reads two
values of a record: its top-level ``format`` and its role (``core.fields.role``: the
top-level ``role`` when it names one, else metadata's speaker when that names one in
any case, else ``user``). In a block of records of one layout
(``canonical.block_records``: convo's own, or Python's ``json.dumps`` separators) both
are read from the bytes in a few passes over the whole block, no Python step per line,
and the query is answered once per distinct value by the tree's own check on a record
holding just that value (so the answer is the exact check's by construction). A block
the bytes do not prove is scanned as before (``format:``'s word by the needle scan, the
lines parsed); a line whose format they do not prove is parsed. On a line that is valid
JSON (as for the other raw decisions, a line decided on its bytes is not validated
further: ``convo validate`` reports it), with no escape of an ASCII character in the
block (``prefilter.ASCII_ESCAPE``: it could spell a key or a name another way):

- **format**: one regex pass finds in each line the first ``,"format":`` followed by a
  JSON string or ``null`` (escapes allowed: the value is decoded as JSON) and the rest
  of its line up to the closing ``}``; there must be one such match per line. After the
  key come the line's last ``}`` and no other (the rest holds none), so the object
  holding the key is the one that brace closes, the top-level one; and the rest holds
  no other ``"format"``, so the key is the last of its name (the one orjson keeps). A
  raw quote after a comma opens a string, so the match is a key. (The timestamps of
  ``canonical.block_times`` are read so.) A line whose rest holds a ``}`` (an ``extra``
  object, a brace in the subject) or ``"format"`` is parsed.
- **role**: the block, lower-cased (ASCII), holds no JSON string ``"system"``,
  ``"assistant"`` or ``"tool"``. Then neither a ``role`` value (matched exactly, so
  spelled so raw) nor a speaker (lower-cased: no non-ASCII character lower-cases to an
  ASCII letter of those names; ``K``, the Kelvin sign, is ``k`` and ``İ`` is ``i`` and a
  combining dot) names a role other than ``user``: every record's role is ``user``,
  whatever its keys, and the block has one answer. A block holding such a string (a
  chat export, a speaker named "System") is parsed.

While ``format:``'s word is sparse the needle scan finds the lines holding it (a format
value is a whole-value needle) and each such line is decided by its own bytes instead
(``lines_formats``: its format is the line's last key), so no line is parsed either.

Measured (the gain, and where the path's own time goes): ``FieldBlock`` and
``FieldBlock.lines``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import repeat
from operator import add, itemgetter, methodcaller, sub
from typing import Any, NamedTuple

import orjson

from convo.core.fields import ROLES
from convo.query.canonical import block_records, layout_of
from convo.query.prefilter import ASCII_ESCAPE, ascii_escape
from convo.query.rarebytes import ESCAPE
from convo.query.rawkeys import lower_checked
from convo.query.rawtext import text_layout_of
from convo.query.tree import And, Node, Not, Or, Term
from convo.query.tree import Compiled as Tree

FORMAT_NAME = b'"format"'
USER = "user"
# The roles a speaker may name that are not the default one, as JSON strings.
OTHER_ROLES = tuple(b'"' + r.encode() + b'"' for r in ROLES if r != USER)
_FIELDS = ("format", "role")
# A JSON string (escapes allowed) or null: the raw bytes of a value, decoded as JSON.
_VALUE = rb'(null|"[^"\\\n]*(?:\\.[^"\\\n]*)*")'
_FIRST = itemgetter(0)
_START = methodcaller("start")
_SECOND = itemgetter(1)
_CACHE_MAX = 1 << 16  # distinct values remembered (bounded memory)


def _format_tail(comma: bytes, colon: bytes) -> re.Pattern[bytes]:
    """A line's first ``format`` key with a string or null value, and the rest of the
    line up to its closing brace, in one layout's separators."""
    return re.compile(re.escape(comma + FORMAT_NAME + colon) + _VALUE + rb"(.*)\}\n")


_FORMAT_TAILS = {b",": _format_tail(b",", b":"), b", ": _format_tail(b", ", b": ")}


class Decided(NamedTuple):
    """``FieldBlock.block``'s answer: a 0/1 byte per line (1: it matches) and the lines
    the bytes did not decide (to parse; their byte is 0)."""

    mask: bytes
    undecided: list[int]


class _Answers(dict):
    """(raw format, role) -> the tree's answer, computed once per distinct pair (None:
    the value is not valid UTF-8 or JSON; the parse reports the line)."""

    def __init__(self, check: Callable[[dict[str, Any]], bool]):
        super().__init__()
        self.check = check

    def __missing__(self, key: tuple[bytes | None, str | None]) -> bool | None:
        fmt, role = key
        record: dict[str, Any] = {"textChunks": []}
        if role is not None:
            record["role"] = role
        answer: bool | None
        try:
            if fmt is not None:
                record["format"] = orjson.loads(fmt)
        except orjson.JSONDecodeError:
            answer = None
        else:
            answer = bool(self.check(record))
        if len(self) >= _CACHE_MAX:
            self.clear()
        self[key] = answer
        return answer


class FieldBlock:
    """A query of ``format:``/``role:`` leaves answered a block at a time (see the module
    docstring).

    Measured against the same scan without it, which parses every line (``role:``,
    ``NOT format:``) or every line holding ``format:``'s word (``benchmarks/
    bench_fastpaths.py``'s pairing: CPU of the scan in process, the 100k-record benchmark
    store's ranges one after another, 5 alternating rounds, noise = half the spread of
    the ratios; load average 6-7 on 2 cores), convo's layout / its ``json.dumps`` copy:
    ``role:user`` 1.76× ±3% (190 against 335 ms) / 1.42× ±5%, ``role:assistant`` 1.49×
    ±1% / 1.18× ±1%, ``NOT format:slack`` 1.58× ±2% / 1.27× ±3%, four formats ORed (their
    words on four lines in five) 1.91× ±2% / 1.91× ±2%; ``format:slack`` (its word on a
    fifth of the lines, so the needle scan is kept, ``linescan.DENSE``) 0.98× ±6% / 0.99×
    ±1%. Whole commands on the 1M-record store (CPU user+sys of every process, 5
    alternating pairs, load 4-7): ``role:user`` 4.60 → 2.80 s, ``NOT format:slack`` 3.62
    → 2.54 s, the same output. What the path costs per 100k lines (load 7): the records
    proof (``block_records``) ~60 ms, the lowering with its control-byte check ~50, the
    three role names looked for ~85 (a ``bytes.find`` each: their letters are common in
    JSON), the format regex pass ~55."""

    def __init__(self, node: Node, fields: set[str]):
        self.format = "format" in fields
        # ``format:``'s candidate lines found on the raw bytes (``ValueLines``), when the
        # query reads no role and every match has one of a few plain format values.
        values = None if "role" in fields else format_values(node)
        self.values = ValueLines.of(values) if values else None
        # The last span's lines holding ``format:``'s word were dense (``linescan.DENSE``):
        # decide the next at once, else let the needle scan parse them (as the first
        # span is: a sparse word costs then what it did without this path). Per process.
        self.dense = False
        self.role = "role" in fields
        self._answers = _Answers(Tree.of(node).check)

    @classmethod
    def of(cls, node: Node | None) -> FieldBlock | None:
        """The block decision for a tree of ``format:``/``role:`` leaves, else None."""
        if node is None:
            return None
        fields: set[str] = set()
        if not _leaves(node, fields):
            return None
        return cls(node, fields)

    def block(self, block: bytes, n: int) -> Decided | None:
        """The answer for each of the ``n`` lines of ``block`` (each ending with a
        newline, the last too), or None when the block is not proven (see the module
        docstring)."""
        if not self._proven(block, n):
            return None
        role = USER if self.role else None
        if not self.format:
            answer = self._answers[None, role]
            return None if answer is None else Decided(b"\1" * n if answer else bytes(n), [])
        return self._by_format(block, n, role)

    def lines(
        self, buf: bytes, starts: list[int], ends: list[int], escapes: bool
    ) -> list[bool | None] | None:
        """The answers of a needle scan's candidate lines ``buf[s:e]`` (no line end),
        each from its format value's bytes (``lines_formats``): True/False, or None to
        parse the line. None for a query that reads the role (proven a block at a time
        only, ``block``).

        Measured against parsing those lines (``format:slack`` on the benchmark store,
        its word on a fifth of the lines; with the whole-value needles of
        ``compiled.Compiled.of``): the 100k store's scan in process 197 → 154 ms of CPU
        (3 alternating rounds, load 5), 1,841M → 1,177M instructions (cachegrind; the
        ``json.dumps`` copy 2,195M → 2,012M, where the escape search dominates); whole
        commands 0.35 → 0.27 s of CPU at 100k (1.33× both pairs) and 2.46 → 1.73 s on
        the 1M store (1.37-1.47× per pair, load 11-14; BENCHMARKS.md)."""
        if self.role:
            return None
        answers = self._answers
        return [
            None if v is None else answers[v, None]
            for v in lines_formats(buf, starts, ends, escapes)
        ]

    def _proven(self, block: bytes, n: int) -> bool:
        """Every line of ``block`` is a record of one layout, no escape may spell a key or
        a name, and (for ``role:``) no record's role can be other than user."""
        if self.role:
            low, control = lower_checked(block)
            if block_records(block, n, control) is None:
                return False
            if any(low.find(r) >= 0 for r in OTHER_ROLES):
                return False  # a record's role may not be user
        elif block_records(block, n) is None:
            return False
        return not ascii_escape(block)  # an escape may spell a key or a name: parsed

    def _by_format(self, block: bytes, n: int, role: str | None) -> Decided | None:
        """Each line's answer from its top-level ``format`` value; lines whose key may be
        nested or not the last are left undecided (parsed)."""
        text = text_layout_of(block, 0)
        assert text is not None  # block_records proved the layout
        found = _FORMAT_TAILS[text.comma].findall(block)
        if len(found) != n:  # a line without such a key (each match ends its line)
            return None
        answers = list(map(self._answers.__getitem__, zip(map(_FIRST, found), repeat(role))))
        undecided = []
        tails = b"".join(map(_SECOND, found))
        if b"}" in tails or FORMAT_NAME in tails:  # the key may be nested, or not the last
            undecided = [
                i for i, (_, tail) in enumerate(found) if b"}" in tail or FORMAT_NAME in tail
            ]
            for i in undecided:
                answers[i] = False
        if None in answers:
            undecided = sorted({*undecided, *(i for i, a in enumerate(answers) if a is None)})
        mask = bytes(map(bool, answers))
        return Decided(mask, undecided)


def format_values(node: Node) -> set[str] | None:
    """The format values (casefolded) one of which every record ``node`` matches has, or
    None when there is no such set (a ``NOT``, a ``role:`` leaf beside an OR)."""
    if isinstance(node, Term):
        return {node.value.casefold()} if node.field == "format" else None
    if isinstance(node, Or):
        out: set[str] = set()
        for child in node.children:
            values = format_values(child)
            if values is None:
                return None
            out |= values
        return out
    if isinstance(node, And):
        found = [v for v in map(format_values, node.children) if v is not None]
        return min(found, key=len) if found else None
    return None


# A format value that is its own bytes and its own case fold (no escape, no upper case,
# no non-ASCII byte): a raw value of these bytes is a value the query does not name
# when its bytes are not a named one.
_PLAIN = rb"[a-z0-9_.-]"
_PLAIN_VALUE = re.compile(_PLAIN + rb"+")


class ValueLines:
    """The lines of a span that may hold a top-level format one of ``values`` names
    (plain values, ``_PLAIN``), found on its raw bytes, not lower-cased: a line holding
    a raw ``"format"`` that is not a key followed by a plain value of another name (in
    either layout's separators), or the escape of an ASCII character (which may spell
    the key, ``prefilter.ASCII_ESCAPE``). Any other line cannot match: its top-level
    format, if it has one, is spelled ``"format"`` (only an ASCII escape spells a key's
    letters another way) and each such key holds a plain value the query does not
    name; a value the query names in another case, with a case-fold letter (``ſ``, the
    Kelvin sign) or an escape is not plain, so its line is a candidate. The candidates
    are decided by ``FieldBlock.lines`` or parsed, as the needle scan's were.

    Against the needle scan (which lower-cases the block and, on a ``json.dumps`` store,
    looks at every ``\\u`` escape for those that may spell ``s`` or ``k``; both decide
    the lines found alike), ``format:slack`` on the benchmark store of
    ``benchmarks/bench_query.py`` (its value on a fifth of the lines; load 9-12 on 2
    cores, output identical): instructions of one scan of 40k records (cachegrind) on
    the ``json.dumps`` copy 809M → 656M, on convo's layout 474M → 466M (there the raw
    search costs what the lowering and the word's search did: within noise); the whole
    command on the 1M-record copy 2.83 → 2.25 s of CPU (3 alternating pairs,
    1.24-1.28×), on convo's layout 2.06 → 1.73 s (1.16-1.23×); at load 2, output to
    /dev/null: 2.28 → 1.80 s (1.24-1.29×) and 1.54 → 1.44 s (1.04-1.10×). ``docs/query.md``."""

    def __init__(self, values: set[str]):
        names = b"|".join(re.escape(v.encode()) for v in sorted(values))
        self.pattern = re.compile(rb'"format"(?!: ?"(?!(?:' + names + rb')")' + _PLAIN + rb'*")')

    @classmethod
    def of(cls, values: set[str]) -> ValueLines | None:
        """The finder for ``values``, or None when one is not plain (or is empty)."""
        if not all(_PLAIN_VALUE.fullmatch(v.encode()) for v in values):
            return None
        return cls(values)

    def lines(
        self, buf: bytes, start: int, end: int, kinds: int | None = None
    ) -> tuple[dict[int, int], bool]:
        """``{line start: line end}`` of the candidate lines of ``buf[start:end]``, in
        order, and whether the span holds the escape of an ASCII character (``kinds``:
        what ``rarebytes.found`` found in the span, when it looked)."""
        at = list(map(_START, self.pattern.finditer(buf, start, end)))
        if kinds is None:
            escapes = buf.find(b"\\", start, end) >= 0 and (
                ASCII_ESCAPE.search(buf, start, end) is not None
            )
        else:
            escapes = bool(kinds & ESCAPE)
        if escapes:  # (rare) their lines too
            at = sorted([*at, *map(_START, ASCII_ESCAPE.finditer(buf, start, end))])
        # Each hit's line, in C loops (hits in one line give one entry).
        starts = map(add, map(buf.rfind, repeat(b"\n"), repeat(start), at), repeat(1))
        stops = map(buf.find, repeat(b"\n"), at, repeat(end))
        ends = dict(zip(starts, stops, strict=True))
        if -1 in ends.values() or 0 in ends:  # the span's first line, or its last unended
            ends = {(s or start): (end if e < 0 else e) for s, e in ends.items()}
        return ends, escapes


# The ``format`` key as it ends a record line, per layout (its separator after a value).
FORMAT_KEYS = {b",": b',"format":', b", ": b', "format": '}
_VALUE_END = b'"}'  # a string value, then the brace closing the line's object


def lines_formats(
    buf: bytes, starts: list[int], ends: list[int], escapes: bool
) -> list[bytes | None]:
    """Per line ``buf[s:e]`` (no line end), the raw top-level ``format`` value (a JSON
    string, its quotes included) when the bytes prove it, else None (parse it).

    A record line of one layout (``canonical.is_record_line``: that of the first line)
    that ends with ``,"format":"VALUE"}`` (the layout's separators), ``VALUE`` holding no
    quote (a quote in a string is escaped, so the one before ``VALUE`` opens it, and the
    comma before the key is no string's): the brace right after the value closes the
    object holding the key, and the last ``}`` of a valid JSON line closes the top-level
    object, so the key is a top-level one and the last of that object (the one orjson
    keeps, whatever keys of that name or escapes come before it). ``escapes``: the lines
    may hold the escape of an ASCII character (``prefilter.ASCII_ESCAPE``), which could
    spell a second text array key: such a line is not proven a record (None).
    """
    if not starts:
        return []
    layout = layout_of(buf, starts[0])
    text = text_layout_of(buf, starts[0])
    if layout is None or text is None:
        return [None] * len(starts)
    key, chunks, other = FORMAT_KEYS[text.comma], layout.chunks, layout.other
    # The value's opening quote: the last quote before the one closing it.
    quotes = list(map(buf.rfind, repeat(b'"'), starts, map(sub, ends, repeat(2))))
    rows = zip(
        map(buf.startswith, repeat(layout.start), starts),
        map(buf.endswith, repeat(_VALUE_END), starts, ends),
        map(buf.endswith, repeat(key), starts, quotes),
        map(buf.count, repeat(chunks), starts, ends),
        map(buf.__getitem__, map(slice, quotes, map(sub, ends, repeat(1)))),
        strict=True,
    )
    found = [v if r and c and k and n == 1 else None for r, c, k, n, v in rows]
    if other is not None:  # the other spelling of the text array key: it would win
        absent = map(buf.find, repeat(other), starts, ends)
        found = [v if a < 0 else None for v, a in zip(found, absent, strict=True)]
    if escapes:
        plain = map(ASCII_ESCAPE.search, repeat(buf), starts, ends)
        found = [v if p is None else None for v, p in zip(found, plain, strict=True)]
    return found


def _leaves(node: Node, fields: set[str]) -> bool:
    """``node`` is made of ``format:``/``role:`` leaves only (their fields into ``fields``)."""
    if isinstance(node, Term):
        fields.add(node.field)
        return node.field in _FIELDS
    if isinstance(node, Not):
        return _leaves(node.child, fields)
    if isinstance(node, And | Or):
        return all(_leaves(c, fields) for c in node.children)
    return False


__all__ = ["OTHER_ROLES", "Decided", "FieldBlock", "ValueLines", "format_values", "lines_formats"]
