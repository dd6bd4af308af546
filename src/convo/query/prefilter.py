"""Deciding on raw bytes: which lines cannot match, so they are never parsed.

A filter that names a word (speaker, listener, tag, text) first checks whether that word
occurs in the raw line at all, ignoring ASCII case; a line without it cannot match.
Needles are the longest ASCII word of each value (for a tag the whole quoted JSON
string). Lines holding a ``\\u`` escape of an ASCII character or of one of the few
non-ASCII letters whose case fold is ASCII (``ß``, ``ſ``, the Kelvin sign, ligatures...),
or such a letter itself (only those that can spell a needle), may spell the word another
way and are always parsed (``RESPELLING``; the block scan looks only for the escapes
that may spell its needle, ``LineStarts``). Other escapes (``\\u00e9``, as Python's
``json.dumps`` writes every non-ASCII character) spell no ASCII: such a line is skipped
like any other when it lacks the needle. A needle JSON would escape (``"``, ``\\``,
controls) disables the prefilter for its kind.

``RawTime`` holds ``--since``/``--until`` as bytes, to compare with a raw canonical
timestamp (``convo.query.canonical`` decides when a line's raw timestamp is its time).
"""

from __future__ import annotations

import re

from convo.core.names import NameQuery
from convo.core.slotted import Slotted
from convo.query.filters import Filters, text_terms

# The only non-ASCII characters whose case fold contains ASCII letters
# (tests/query/test_query.py checks the list against unicodedata): ß İ ŉ ſ ǰ ẖ-ẚ ẞ K ﬀ-ﬆ.
CASEFOLD_ASCII = (
    "\u00df\u0130\u0149\u017f\u01f0\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9e\u212a"
    + "".join(chr(c) for c in range(0xFB00, 0xFB07))
)
TRIGGER_CHARS = tuple(c.encode() for c in CASEFOLD_ASCII)
ASCII = bytes(range(128))
# A ``\\u`` escape that may spell ASCII: an ASCII character (``\\u0000``-``\\u007f``: a key,
# a quote, a letter of a needle) or a character whose case fold holds ASCII letters (all
# in the BMP, so one escape each). Any other escape is of a character that is neither.
# Hex digits in either case, factored by their heads (no IGNORECASE, which would cost
# the regex engine its fast search for the literal ``\\u``): on 1 MiB of a ``json.dumps``
# store (18k escapes, none of them these) a search takes 1.6 ms of CPU, a flat
# alternation of the escapes 3.5 ms.
_H = rb"[0-9a-fA-F]"
RESPELLED = (  # the hex digits of such an escape, after its ``\\u``
    rb"(?:00(?:[0-7]" + _H + rb"|[dD][fF])|01(?:30|49|7[fF]|[fF]0)|1[eE]9[6-9aAeE]"
    rb"|212[aA]|[fF][bB]0[0-6])"
)
RESPELLING = re.compile(rb"\\u" + RESPELLED)
# An escape of an ASCII character (``\\u0000``-``\\u007f``): the only escapes that can spell
# a key, a quote, a brace or an ASCII letter (keys are matched exactly, not by case fold).
# Its literal head ``\\u00`` is what the regex engine searches for, so it stops only there
# (these and Latin-1's escapes), not at every ``\\u``: on 1 MiB of a ``json.dumps`` store 0.48 ms of CPU,
# ``RESPELLING`` 0.97-1.10 ms (each the best of 7 to 9 searches of 8 MiB). Looking for
# these alone where no case-fold letter may spell the needle (``LineStarts``) and in the
# block time pass (``canonical.block_times``), the copy's 100k-record scan took (CPU in
# process, 5 alternating rounds, load 4-6) ``--tag urgent`` 145 → 113 ms (1.23× ±6%),
# ``--since`` 284 → 263 ms (1.04× ±6%: within noise; the narrower look is kept since it
# is no more code); the whole commands on the 1M-record copy (2 rounds, load 6-8)
# ``--tag urgent`` 1.82 → 1.41 s of CPU, ``--speaker Quinn`` 1.60 → 1.35 s,
# ``NOT tag:urgent`` 3.60 → 3.07 s, ``--since`` 3.66 → 3.23 s.
ASCII_ESCAPE = re.compile(rb"\\u00[0-7]")
_JSON_ESCAPED = re.compile(rb'["\\/\x00-\x1f]')  # characters JSON may write escaped
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")
SPEAKER, LISTENER, TAG, TEXT = range(4)


def ascii_needle(word: str) -> bytes | None:
    """The raw bytes a word has in any line holding it, or None when JSON may escape it."""
    if not word or not word.isascii() or _JSON_ESCAPED.search(word.encode()):
        return None
    return word.lower().encode()


def literals(needles: list[bytes], flags: int = 0) -> re.Pattern[bytes]:
    return re.compile(b"|".join(re.escape(n) for n in needles), flags)


def may_spell(folded: str, needle: str, substring: bool) -> bool:
    """Could a character folding to ``folded`` be part of a match of ``needle``?

    A whole word or tag holds the fold entirely; a substring may also overlap either end.
    """
    if folded in needle:
        return True
    if not substring:
        return False
    return any(
        needle.startswith(folded[i:]) or needle.endswith(folded[:i]) for i in range(1, len(folded))
    )


def respelling_escape(buf: bytes, s: int = 0, e: int | None = None) -> bool:
    """``buf[s:e]`` holds a ``\\u`` escape that may spell ASCII (``RESPELLING``); a
    backslash is looked for first (a memchr)."""
    end = len(buf) if e is None else e
    return buf.find(b"\\", s, end) >= 0 and RESPELLING.search(buf, s, end) is not None


def ascii_escape(buf: bytes) -> bool:
    """``buf`` holds the escape of an ASCII character (``ASCII_ESCAPE``); a backslash is
    looked for first (a memchr)."""
    return buf.find(b"\\") >= 0 and ASCII_ESCAPE.search(buf) is not None


def may_respell(raw: bytes) -> bool:
    """The line may spell an ASCII word another way: an escape that may spell ASCII or
    a case-fold letter."""
    if respelling_escape(raw):
        return True
    return not raw.isascii() and any(t in raw for t in TRIGGER_CHARS)


def speaker_may_match(low: bytes, s: int, e: int, needles: list[bytes]) -> bool:
    """False when the line's one raw ``"speaker"`` value holds no needle.

    Inside JSON strings every quote is escaped, so ``"speaker"`` followed by a colon is
    a key. With one ``"speaker"`` in the line, followed by ``:"`` (convo's layout), no
    escape of an ASCII character in the line (``ASCII_ESCAPE``: it might spell another
    such key) and no backslash in the value, the raw value is the speaker (or, when it
    is not metadata's, the record has no speaker to match). Anything else: maybe. (The
    first ``"speaker"`` of the line is the one read: a later ``"speaker":"`` in another
    object says nothing when metadata's key is spaced, ``"speaker" :``, or escaped.)

    Reading Python's ``json.dumps`` spelling too (``: "``), so that a candidate of that
    layout naming the needle only as a listener is not parsed, measured within noise
    (``--speaker Quinn`` on the benchmark store's copy, 100k records, scan CPU in
    process, 5 alternating rounds at load 5-6: 1.03× ±18%; 1.7k such lines per 100k):
    not added; such a line is parsed.
    """
    k = low.find(b'"speaker"', s, e)
    if k < 0 or low.find(b'"speaker"', k + 9, e) >= 0:  # none, or another (any spacing)
        return True
    if not low.startswith(b':"', k + 9):
        return True
    if low.find(b"\\", s, e) >= 0 and ASCII_ESCAPE.search(low, s, e) is not None:
        return True  # an escape may spell a second speaker key
    v = k + 11
    q = low.find(b'"', v, e)
    value = low[v:q]
    if q < 0 or b"\\" in value or may_respell(value):
        return True
    return any(n in value for n in needles)


def _longest_word_needles(groups: list[list[str]]) -> list[bytes] | None:
    needles = []
    for g in groups:
        if not g:
            return None  # a value without words: no prefilter for this kind
        n = ascii_needle(max(g, key=len))
        if n is None:
            return None
        needles.append(n)
    return needles


def _name_words(query: str) -> list[str]:
    """The words of a name any of which a match holds: for an address, those before the
    ``@``, since many people share a domain's words (``example``, ``com``) and a needle
    that is on most lines skips none of them."""
    local, at, _ = query.rpartition("@")
    return (at and NameQuery(local).tokens) or NameQuery(query).tokens


def _word_groups(filters: Filters) -> list[list[list[str]]]:
    """Per kind (SPEAKER, LISTENER, TAG, TEXT), the words of each value."""
    return [
        [_name_words(s) for s in filters.speakers],
        [_name_words(s) for s in filters.listeners],
        [[t.casefold()] for t in filters.tags],
        [max(t, key=len, default="").split() for t in text_terms(filters)],
    ]


class Needles(Slotted):
    """Per filter kind its needles (lower-case ASCII) and whether they match as substrings.

    The scan looks only at lines holding a needle: against looking at every line
    (``benchmarks/bench_fastpaths.py``, CPU, 100k records) ``--tag urgent`` 5.37× (noise
    ±12%), ``--speaker Quinn`` 4.95× (±8%)."""

    __slots__ = ("kinds", "needles", "patterns", "substring")
    kinds: list[int]
    needles: list[list[bytes]]
    substring: list[bool]
    patterns: list[re.Pattern[bytes]]

    def __init__(
        self,
        kinds: list[int] | None = None,
        needles: list[list[bytes]] | None = None,
        substring: list[bool] | None = None,
        patterns: list[re.Pattern[bytes]] | None = None,
    ) -> None:
        # (a ``Slotted`` class, not a dataclass: an indexed read's check of its
        # candidates imports this module, docs/startup.md)
        self.kinds = [] if kinds is None else kinds
        self.needles = [] if needles is None else needles
        self.substring = [] if substring is None else substring
        self.patterns = [] if patterns is None else patterns

    @classmethod
    def of(cls, filters: Filters) -> Needles:
        out = cls()
        for kind, groups in enumerate(_word_groups(filters)):
            needles = _longest_word_needles(groups) if groups else None
            if not needles:
                continue
            if kind == TAG:  # a tag equals the value: its raw form is the whole JSON string
                needles = [b'"' + n + b'"' for n in needles]
            out.kinds.append(kind)
            out.needles.append(sorted(set(needles)))
            out.substring.append(kind == TEXT)
            out.patterns.append(literals(needles, re.IGNORECASE))
        return out

    def raw_may_match(self, raw: bytes) -> bool:
        """False only when the line certainly lacks a needle of some kind."""
        if not self.patterns or may_respell(raw):
            return True
        return all(p.search(raw) is not None for p in self.patterns)


class LineStarts:
    """What makes a line a candidate in the block scan: a needle of the first kind, a
    ``\\u`` escape of an ASCII character (``ASCII_ESCAPE``) or of a case-fold letter
    that could spell one of that needle's letters (``RESPELLING``), or such a letter.

    A name (``--speaker``/``--listener``) matches by whole words (``core.names``), so its
    needle counts only as a whole word of the lower-cased bytes: no ASCII letter, digit
    or ``_`` on either side. (A character next to the word in the name is a non-word
    character: ASCII, it is one in the bytes too; otherwise its bytes are not ASCII. A
    case-fold letter that could spell the word makes the line a candidate anyway.)
    A hit right after an escape (``\\u2014wen``: "—Wen") counts, whatever the escape.
    So ``--speaker Wen`` skips the lines that only say "went", in the regex engine
    (``needle(?![a-z0-9_])``): on the benchmark store ("went" in ~40% of its lines) a
    ``bytes.find`` and a Python step per such hit cost a fifth of the query's CPU time.
    """

    def __init__(self, needles: Needles):
        first = needles.needles[0]
        self.starts = first
        # The last span ``lines`` scanned may hold a RESPELLING escape (True also when
        # only ``ASCII_ESCAPE`` was looked for and it holds a backslash: each line then
        # is looked at by whoever needs to know).
        self.escapes = False
        self.words = needles.kinds[0] in (SPEAKER, LISTENER)
        self.word_patterns = [re.compile(re.escape(n) + rb"(?![a-z0-9_])") for n in first]
        self.respell = [
            t for t in TRIGGER_CHARS
            if any(may_spell(t.decode().casefold(), n.decode(), needles.substring[0]) for n in first)
        ]  # fmt: skip
        # The escapes that may spell a needle or hide a key: an ASCII character's, and
        # when a case-fold letter may spell one of its letters, those letters' too
        # (``RESPELLING``, which holds them all). The escape of a case-fold letter that
        # cannot (``\\u017f``, "ſ", for ``urgent``) is as harmless as the letter itself,
        # which ``respell`` leaves out the same way; keys are ASCII and matched exactly.
        self.escape_pattern = RESPELLING if self.respell else ASCII_ESCAPE

    def _extra(self, low: bytes, block: bytes) -> list[bytes]:
        """Respellings present in the block: case-fold letters."""
        # Look for case-fold letters in the block's non-ASCII bytes only, and only for a
        # letter whose every byte the block holds (a memchr each: a byte the text lacks,
        # such as the lead byte of ``K``, rules the letter out at once). Gathering the
        # non-ASCII bytes of every block cost 0.7 ms of CPU per MiB of the benchmark
        # store (``format:slack``: ``ſ`` and ``K`` may spell its letters), the memchrs
        # 0.06 ms.
        extra: list[bytes] = []
        held = [t for t in self.respell if all(map(block.__contains__, t))]
        if held and not block.isascii():
            rest = block.translate(None, ASCII)
            extra.extend(t for t in held if t in rest)
        return extra

    def lines(self, low: bytes, block: bytes, start: int, end: int) -> dict[int, int]:
        """``{line start: line end}`` of the candidate lines in ``low[start:end]``, in order."""
        # bytes.find, not a regex: it skips ahead (a fraction of the instructions per
        # byte of a literal regex's search), and after a candidate it resumes at the
        # line's end.
        ends: dict[int, int] = {}
        if self.words:
            for pattern in self.word_patterns:
                _word_lines(low, pattern, start, end, ends)
        else:
            for needle in self.starts:
                _lines_of(low, needle, start, end, ends)
        extra = self._extra(low, block)
        for respelling in extra:
            _lines_of(low, respelling, start, end, ends)
        pattern = self.escape_pattern
        backslash = low.find(b"\\", start, end) >= 0
        escapes = backslash and _escape_lines(low, start, end, ends, pattern)
        # The span holds (or, when only ASCII_ESCAPE was looked for, may hold) an escape
        # that may spell ASCII or a case-fold letter (``RESPELLING``).
        self.escapes = escapes or (backslash and pattern is not RESPELLING)
        if len(self.starts) + len(extra) == 1 and not escapes:
            return ends
        return dict(sorted(ends.items()))


def _lines_of(low: bytes, needle: bytes, start: int, end: int, ends: dict) -> None:
    """Add to ``ends`` the lines of ``low[start:end]`` holding ``needle``."""
    find, rfind = low.find, low.rfind
    p = find(needle, start, end)
    while p >= 0:
        s = rfind(b"\n", start, p) + 1 or start
        e = find(b"\n", p, end)
        if e < 0:
            e = end
        ends[s] = e
        p = find(needle, e, end)


def _escape_lines(
    low: bytes, start: int, end: int, ends: dict, pattern: re.Pattern[bytes] = RESPELLING
) -> bool:
    """Add to ``ends`` the lines of ``low[start:end]`` holding an escape that may spell
    ASCII (``pattern``: ``RESPELLING``, or ``ASCII_ESCAPE`` for a needle no case-fold
    letter may spell); True when there was one."""
    find, rfind = low.find, low.rfind
    e = -1
    for m in pattern.finditer(low, start, end):
        p = m.start()
        if p < e:
            continue  # in a line already taken
        s = rfind(b"\n", start, p) + 1 or start
        e = find(b"\n", p, end)
        if e < 0:
            e = end
        ends[s] = e
    return e >= 0


def _word_lines(low: bytes, pattern: re.Pattern[bytes], start: int, end: int, ends: dict) -> None:
    """Add to ``ends`` the lines of ``low[start:end]`` holding ``pattern``'s needle as a
    whole word (the pattern rules out a word byte after it; this, one before it)."""
    find, rfind = low.find, low.rfind
    e = -1
    for m in pattern.finditer(low, start, end):
        p = m.start()
        if p < e or (
            p > start
            and low[p - 1] in _WORD_BYTES
            and not (p >= 6 and low[p - 6 : p - 4] == b"\\u")
        ):
            # In a line already taken, or not a word's start: a word byte before it,
            # unless the last of a ``\\u`` escape's digits. (A needle is all word bytes,
            # ``core.names``' ASCII ``\w``: no whole word overlaps a hit.)
            continue
        s = rfind(b"\n", start, p) + 1 or start
        e = find(b"\n", p, end)
        if e < 0:
            e = end
        ends[s] = e


class RawTime:
    """``--since``/``--until`` decided on a line's raw timestamp bytes."""

    def __init__(self, since: str | None, until: str | None):
        self.since = since.encode() if since else None
        self.until = until.encode() if until else None

    def ok(self, ts: bytes) -> bool:
        if self.since is not None and ts < self.since:
            return False
        return not (self.until is not None and ts >= self.until)
