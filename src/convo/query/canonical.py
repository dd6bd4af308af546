"""Exact decisions on the raw bytes of the record layout convo writes, without a parse.

convo writes every record as ``orjson.dumps(message.serialize())`` (``core/record.py``,
``core/jsonl.py``): ``{"textChunks":[...],"metadata":{"speaker":...,"listeners":[...]},
"tags":[...],"timestamp":"...",...}`` with no spaces. ``Decider.decide`` reads the
speaker, the tags, the timestamp and the text (``convo.query.rawtext``) of such a line
from its bytes and answers True (every filter matches), False (some filter does not) or
None (parse to know); ``block_times`` reads the timestamps of a whole block in one
regex pass. They answer only when the bytes prove what ``orjson.loads`` and
``core.fields`` would read, on a line that is valid JSON (the key and value lookups are
``convo.query.rawkeys``):

- A key is found by its raw spelling (``"speaker":``). Inside a JSON string every quote
  is escaped, so such a match is a key, unless a ``\\u`` escape could spell one another
  way: a line holding an escape that may spell ASCII (``prefilter.RESPELLING``) is
  always parsed. A second key is looked for as the bare
  string (``"speaker"``), so that ``"speaker" :`` (a space before the colon) counts too.
- A key counts only when it is the top-level one and the only one in the line (orjson
  keeps the last of duplicate keys): ``metadata`` must follow the top-level brace with
  no other ``{`` before it; keys after ``metadata`` need exactly two ``{`` and one ``}``
  before them, that ``}`` closing ``metadata`` (``]},"tags":[``, which cannot occur in
  a string). Braces in the text only send the line to the parser.
- A value is taken from its bytes when it holds no backslash (then the bytes are the
  string); an array only when it is plain strings. Names and tags are decoded and
  matched by the exact rule, once per distinct value (a store has few of them).
- ``--text`` is decided when it is one ASCII word (``rawtext.TextWord``).

A line counts as a record (``core.fields.is_record``) on its bytes only when it opens
with ``{"textChunks":[`` and holds ``"textChunks"`` once (in a string every quote is
escaped, so a second one is a second key or a string equal to the name: parsed), or
opens so in another writer's ``Layout`` (Python's ``json.dumps``: ``{"text_chunks": [``,
with ``"textChunks"`` absent). The timestamp is read in those layouts too (``", "``
and ``": "`` separators); the speaker, tag and text decisions read convo's only (on
another layout their keys are not found: parsed).

What is not proven is parsed, and so is a line holding a raw control byte (invalid JSON,
reported by the parser). Decision: a line decided here is not validated further
(as with the raw time pass-through of ``convo.query.scan``): a line of this layout that
is not valid UTF-8 is passed on as it is; ``convo validate`` reports it.

Measured against the same scan with the decider taken out (every candidate line parsed;
CPU time, one process, 100k records of convo's layout, 5 alternating rounds, noise =
half the spread of the rounds' ratios; ``benchmarks/bench_fastpaths.py``, two runs at
load 3-10): ``--since`` 1.92× (±7-9%), ``--text budget`` 1.72-1.74× (±12-20%),
``--speaker Alice --tag security`` 1.30× (±6%); three more runs at load 7-11: 1.31-1.45×
(±4-17%). Alone, a speaker or a tag decision gained nothing measurable in five runs
(``--speaker Quinn`` 0.85-1.06×, ``--speaker Wen`` 0.86-1.05×, ``--speaker Alice``
1.01-1.09×, ``--tag urgent`` 0.96-1.00×, ``--tag security`` 0.87-0.92×, each within
its noise of ±5-37% or below 1): the needle scan leaves few lines, and most of those are
decided as cheaply by the parse. So they are decided only beside another kind (a
speaker and a tag, a time, a text word); a filter of one speaker or one tag is parsed.
``tests/query/test_raw_decisions.py`` holds every decision equal to a parse.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from itertools import accumulate, repeat
from typing import NamedTuple

from convo.core.names import NameQuery
from convo.query.filters import Filters
from convo.query.prefilter import RawTime, ascii_escape, respelling_escape
from convo.query.rarebytes import CHUNKS, CONTROL, ESCAPE, ODD
from convo.query.rarebytes import found as rare_found
from convo.query.rawkeys import (
    META_KEY,
    META_NAME,
    SPEAKER_KEY,
    SPEAKER_NAME,
    TAGS_KEY,
    TAGS_NAME,
    TIME_NAME,
    after_metadata,
    has_control,
    only,
    string_at,
    strings,
)  # fmt: skip
from convo.query.rawtext import (
    CHUNKS_NAME,
    TEXT_KEY,
    TEXT_LAYOUTS,
    TextLayout,
    TextWord,
    text_layout_of,
)
from convo.query.rawtext import layout as text_lines

RECORD_START = TEXT_KEY  # convo's own record line opens so
_STAMP = rb'"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"'
TIME_RX = re.compile(rb',"timestamp":' + _STAMP)
SPACED_TIME_RX = re.compile(rb', "timestamp": ' + _STAMP)  # Python's json.dumps
# A canonical timestamp and the rest of its line up to a closing brace: per line, the
# value and what follows it, which ``block_times`` checks for the whole block at once.
TIME_TAIL = re.compile(rb',"timestamp":' + _STAMP + rb"([^\n]*)\}\n")
SPACED_TIME_TAIL = re.compile(rb', "timestamp": ' + _STAMP + rb"([^\n]*)\}\n")


class Layout(NamedTuple):
    """How a record line of one writer opens, and its timestamp key.

    ``start``: the line opens the object with its text array (``textChunks``, or
    TypeAgent's Python spelling ``text_chunks``, which ``core.fields.is_record`` reads
    when ``textChunks`` is absent); ``chunks``: that key as a bare JSON string, which the
    line must hold once (in a string every quote is escaped: a second one is a key or a
    string equal to the name); ``other``: a key that must be absent (``textChunks``,
    which would win over ``text_chunks``). The separators (``","``/``":"`` or Python's
    ``", "``/``": "``) are the layout's, in its time patterns."""

    start: bytes
    chunks: bytes
    other: bytes | None
    time: re.Pattern[bytes]
    tail: re.Pattern[bytes]
    lines: re.Pattern[bytes]  # ``tail``, then the next line opens so (or the block ends)


def _layout(text: TextLayout) -> Layout:
    """The ``Layout`` of the writer ``text`` describes (its key and separators)."""
    spaced = text.comma != b","
    tail = SPACED_TIME_TAIL if spaced else TIME_TAIL
    return Layout(
        text.key,
        text.name,
        None if text.name == CHUNKS_NAME else CHUNKS_NAME,
        SPACED_TIME_RX if spaced else TIME_RX,
        tail,
        re.compile(tail.pattern + rb"(?=" + re.escape(text.key) + rb"|\Z)"),
    )


# convo's own (orjson) first, then the other spellings and Python's json.dumps separators.
LAYOUTS = tuple(_layout(text) for text in TEXT_LAYOUTS)


def layout_of(buf: bytes, s: int = 0) -> Layout | None:
    """The layout whose record start opens the line at ``s``, if one does."""
    if not buf.startswith(b'{"text', s):
        return None
    for layout in LAYOUTS:
        if buf.startswith(layout.start, s):
            return layout
    return None


def is_record_line(buf: bytes, s: int, e: int) -> bool:
    """The line ``buf[s:e]`` (a JSON object closed by its last byte, valid JSON, no
    escape that may spell ASCII) is a record (``core.fields.is_record``) by its bytes:
    a ``Layout``'s start, its text array key once, the other spelling absent."""
    layout = layout_of(buf, s)
    return (
        layout is not None
        and buf[e - 1 : e] == b"}"
        and buf.count(layout.chunks, s, e) == 1
        and (layout.other is None or buf.find(layout.other, s, e) < 0)
    )


# A line that does not open a JSON object; a lookahead, so that a blank line does not
# consume the newline of the line after it (which was then never reported).
NOT_OBJECT = re.compile(rb"\n(?=[^{])")


def odd_lines(low: bytes, start: int, end: int, kinds: int | None = None) -> list[int]:
    """Starts of the lines in ``low[start:end]`` that are not blank and do not open ``{``.
    ``kinds``: what ``rarebytes.found`` found in that span, when it looked."""
    # One regex pass (it skips to each newline with memchr; bytes.count does not).
    if low.startswith(b"{", start) and (
        NOT_OBJECT.search(low, start, end) is None if kinds is None else not kinds & ODD
    ):
        return []
    starts = [start] if low[start : start + 1] != b"{" else []
    starts.extend(m.start() + 1 for m in NOT_OBJECT.finditer(low, start, end))
    out = []
    for s in starts:  # rare: only lines not starting with "{" get here
        e = low.find(b"\n", s, end)
        line = low[s : end if e < 0 else e].lstrip()
        if line and line[:1] != b"{":
            out.append(s)
    return out


_GROUP = re.Match.group
_END = re.Match.end
_CACHE_MAX = 1 << 16  # distinct values remembered per filter (bounded memory)


class _Cache(dict):
    """Raw value bytes -> the exact answer, computed once per distinct value."""

    def __init__(self, decide: Callable[[str], bool]):
        super().__init__()
        self.decide = decide

    def __missing__(self, raw: bytes) -> bool | None:
        try:
            value: bool | None = self.decide(raw.decode())
        except UnicodeDecodeError:
            value = None  # not UTF-8: the parser reports it
        if len(self) >= _CACHE_MAX:
            self.clear()
        self[raw] = value
        return value


class Decider:
    """The raw-byte decisions for one ``Filters`` (see the module docstring)."""

    def __init__(self, filters: Filters):
        self.kinds: list[Callable[[bytes, int, int], bool | None]] = []
        self._words(filters)
        self.raw_time = RawTime(filters.since, filters.until)
        if filters.since or filters.until:
            self.kinds.append(self.time)
        # Text last: the dearest. (Per line it costs about what a parse does; it pays in
        # lines decided with others, and in ``TextWord.block``.)
        self.text = TextWord.of(filters) if filters.tree is None else None
        if self.text is not None:
            self.kinds.append(self.text_kind)
        # Every filter is decided here: True means the line matches.
        undecided = (
            filters.listeners or filters.regexes or filters.threads
            or (filters.texts and self.text is None)
            or filters.tree is not None  # flat fields are then hints: the tree decides
        )  # fmt: skip
        if self.kinds in ([self.speaker], [self.tag]):
            # Alone, a speaker or a tag decision gains nothing measurable (module
            # docstring): such a line is parsed, the plain path.
            self.kinds = []
        self.complete = bool(self.kinds) and not undecided
        self._block = b""
        self._has_u: bool | None = False
        self.low = b""  # the block lower-cased (ASCII), for the text decision

    def _words(self, filters: Filters) -> None:
        """Speakers and tags: matched once per distinct raw value."""
        if filters.speakers:
            queries = [NameQuery(q) for q in filters.speakers]
            self.speakers = _Cache(lambda v: any(q.matches(v) for q in queries))
            self.kinds.append(self.speaker)
        if filters.tags:
            wanted = {t.casefold() for t in filters.tags}
            self.tags = _Cache(lambda v: v.casefold() in wanted)
            self.kinds.append(self.tag)

    def begin(self, block: bytes, low: bytes | None = None) -> None:
        """Per block: is there a ``\\u`` escape that may spell ASCII (then lines holding
        one are parsed, ``prefilter.RESPELLING``); ``low``: ``block.lower()`` when the
        caller has it."""
        self._block = block
        self._has_u = None  # looked for when a line needs it (never, off this layout)
        if self.text is not None:
            self.low = block.lower() if low is None else low

    def escapes_known(self, found: bool) -> None:
        """The lines to be decided in this block hold (``found``) an escape that may
        spell ASCII or not, as the caller's scan of them saw: ``has_u`` is not looked for
        again (on a ``json.dumps`` store, a second pass over its many escapes)."""
        self._has_u = found

    @property
    def has_u(self) -> bool:
        """The block holds an escape that may spell ASCII (looked for once)."""
        if self._has_u is None:
            self._has_u = respelling_escape(self._block)
        return self._has_u

    def decide(self, buf: bytes, s: int, e: int) -> bool | None:
        """True/False for the line ``buf[s:e]`` (no line ending), or None: parse it."""
        if not is_record_line(buf, s, e):
            return None
        if self.has_u and respelling_escape(buf, s, e):
            return None
        unknown = False
        for kind in self.kinds:
            d = kind(buf, s, e)
            if d is False:
                return False
            if d is None:
                unknown = True
        return None if unknown or not self.complete else True

    def speaker(self, buf: bytes, s: int, e: int) -> bool | None:
        k = buf.find(SPEAKER_KEY, s, e)
        if (
            k < 0
            or not buf.startswith(META_KEY, k - 12)
            or buf[k - 13 : k - 12] != b","  # so the quote of "metadata" is not in a string
            or buf.find(b"{", s + 1, k - 12) >= 0
            or not only(buf, SPEAKER_NAME, k, e)
            or buf.find(META_NAME, k, e) >= 0
        ):
            return None
        v = k + 10
        if buf.startswith(b"null", v):
            return False
        value = string_at(buf, v, e)
        return None if value is None else self.speakers[value]

    def tag(self, buf: bytes, s: int, e: int) -> bool | None:
        k = buf.find(TAGS_KEY, s, e)
        if k < 0 or not after_metadata(buf, s, k) or not only(buf, TAGS_NAME, k, e):
            return None
        r = buf.find(b"]", k + 8, e)
        values = strings(buf[k + 8 : r]) if r >= 0 else None
        if values is None:
            return None
        seen = self.tags
        answers = [seen[v] for v in values]
        if True in answers:
            return True
        return None if None in answers else False

    def time(self, buf: bytes, s: int, e: int) -> bool | None:
        ts = time_value(buf, s, e)  # None when not canonical (core.fields normalizes it)
        return None if ts is None else self.raw_time.ok(ts)

    def text_kind(self, buf: bytes, s: int, e: int) -> bool | None:
        assert self.text is not None
        return self.text.decide(buf, self.low, s, e)


def time_value(raw: bytes, k: int = 0, e: int | None = None) -> bytes | None:
    """The top-level canonical timestamp of the line ``raw[k:e]``, if its bytes prove it.

    The last ``,"timestamp":"...Z"`` (or Python's ``, "timestamp": "...Z"``) whose value
    is canonical, with no ``{``, exactly one ``}`` (the line's last byte, closing the
    top-level object) and no other timestamp key after it: the key is then a top-level
    one and the last of them, which is the one orjson keeps. (The comma before the
    quote, and valid JSON, make that quote open a string.) (The caller has ruled out
    ``\\u`` escapes that may spell ASCII.)
    """
    end = len(raw) if e is None else e
    if raw[end - 1 : end] != b"}":
        return None
    m = TIME_RX.search(raw, k, end) or SPACED_TIME_RX.search(raw, k, end)
    if m is None:
        return None
    j = m.end()
    if raw.find(b"{", j, end) >= 0 or raw.count(b"}", j, end) != 1:
        return None
    if raw.find(TIME_NAME, j, end) >= 0:
        return None
    return m.group(1)


def with_odd_lines(low: bytes, ends: dict, start: int, end: int, kinds: int | None = None):
    """``ends`` with the span's lines that do not open an object (parsed: reported);
    ``kinds``: what ``rarebytes.found`` found in the span, when it looked."""
    odd = set(odd_lines(low, start, end, kinds))
    if odd - ends.keys():
        for s in odd:
            e = low.find(b"\n", s, end)
            ends.setdefault(s, end if e < 0 else e)
        ends = dict(sorted(ends.items()))
    return ends, odd


def _plain_block(block: bytes, layout: Layout) -> bool:
    """``block`` holds no escape of an ASCII character, no raw control byte and not the
    other spelling of the text array key: looked for in one pass when the engine is in
    use (``rarebytes``), else by the regexes and searches."""
    other = layout.other
    look = ESCAPE | CONTROL | (CHUNKS if other == CHUNKS_NAME else 0)
    kinds = rare_found(block, look=look)
    if kinds is not None:
        if other is not None and not look & CHUNKS and block.find(other) >= 0:
            return False
        return not kinds
    if ascii_escape(block):  # the only escapes that may spell a key (matched exactly)
        return False
    if other is not None and block.find(other) >= 0:
        return False
    return not has_control(block)


def block_times(block: bytes, n: int) -> tuple[list[bytes], list[int]] | None:
    """The raw timestamp of each of the ``n`` lines of ``block`` (each ending with a
    newline, the last too) and where each line ends (the offset after its newline), when
    the bytes prove every one, else None.

    One regex pass (``Layout.lines``) finds in each line its first canonical
    ``,"timestamp":"...Z"`` and what follows it up to the line's closing brace
    (``[^\n]*``: the cheapest loop of the regex engine), followed by the start of the
    next record line of the first line's ``Layout`` or by the block's end; then all the
    tails at once must hold no ``}`` and no ``"timestamp"``. So the brace that ends the
    line is the first ``}`` after the key and closes the object that holds it: the key
    is a top-level one, and the last of its name (the one orjson keeps). A match ends
    its line, so ``n`` matches are one per line, and then every line opens and closes
    as a record of the layout (what ``rawtext.layout``'s newline pass proves) and the
    match ends are the line ends: the block is not split into lines. Each line holds
    its text array key once (``n`` in the block) and the other spelling nowhere, and the
    block no raw control byte (``block_records``' other proofs). No line may hold the
    escape of an ASCII character (``prefilter.ASCII_ESCAPE``), the only escapes that can
    spell a key, a quote or a brace; the escape of a case-fold letter (in
    ``prefilter.RESPELLING`` too) cannot, and no time is read by case fold.

    Measured against the proof it replaced (the block split into lines, its newlines
    proven by a regex pass, the offsets summed from the lines' lengths; ``--since`` on
    the benchmark store of ``benchmarks/bench_query.py``, load 9-14 on 2 cores, output
    identical): the scan of 200k records in process 1.15× (1.09-1.26 over 7 alternating
    pairs) on convo's layout, 1.10× (1.01-1.23) on the ``json.dumps`` copy; instructions
    688M → 674M and 899M → 876M (cachegrind, 40k records); whole commands on the
    1M-record store 0.99-1.19× and 1.02-1.11× per pair, at load 2 (output to /dev/null)
    2.22 → 2.06 s (1.06-1.09×) and 2.90 → 2.53 s (1.12-1.18×) (``docs/query.md``).
    """
    layout = layout_of(block)
    if layout is None or not _plain_block(block, layout):
        return None
    if block.count(layout.chunks) != n:
        return None
    found = list(layout.lines.finditer(block))
    if len(found) != n:
        return None
    tails = b"".join(map(_GROUP, found, repeat(2)))
    if b"}" in tails or TIME_NAME in tails:
        return None
    return list(map(_GROUP, found, repeat(1))), list(map(_END, found))


def block_records(block: bytes, n: int, control: bool | None = None) -> Layout | None:
    """The ``Layout`` of ``block`` when its ``n`` lines (each ending with a newline, the
    last too) are records by their bytes (``is_record_line``), in passes over the whole
    block, not a Python step per line: every line opens with the first line's layout's
    start and closes with ``}`` (one regex pass over the newlines, ``rawtext.layout``),
    holds its text array key once (``n`` in all, one at each start), the other spelling
    nowhere; no raw control byte (``control``: whether the block holds one, when the
    caller knows). Else None. A line holding an escape that may spell ASCII
    (``prefilter.RESPELLING``) may hide a key of its own, such as a second text array:
    the caller rules those lines out, or the whole block (``block_times``)."""
    layout = layout_of(block)
    text = text_layout_of(block, 0)
    if layout is None or text is None or not text_lines(block, 0, len(block), text):
        return None  # a line that may not be a record: parsed
    if block.count(layout.chunks) != n:
        return None
    if layout.other is not None and block.find(layout.other) >= 0:
        return None
    if has_control(block) if control is None else control:
        return None
    return layout


def time_mask(times: list[bytes], raw_time: RawTime) -> bytes:
    """Which of the raw canonical timestamps are in ``raw_time``'s bounds (a 0/1 byte each)."""
    since, until = raw_time.since, raw_time.until
    if until is None:
        return bytes(map(since.__le__, times)) if since is not None else b"\1" * len(times)
    if since is None:
        return bytes(map(until.__gt__, times))
    return bytes([since <= t < until for t in times])


def offsets(lines: list[bytes], start: int = 0) -> list[int]:
    """Where each of ``lines`` starts, the first at ``start`` (they were split at
    newlines), and where a line after the last would start."""
    return list(accumulate(map(operator.add, map(len, lines), repeat(1)), initial=start))


__all__ = [
    "Decider", "block_records", "block_times", "odd_lines", "offsets", "time_mask", "time_value",
    "with_odd_lines",
]  # fmt: skip
