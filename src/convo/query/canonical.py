"""Exact decisions on the raw bytes of the record layout convo writes, without a parse.

convo writes every record as ``orjson.dumps(message.serialize())`` (``core/record.py``,
``core/jsonl.py``): ``{"textChunks":[...],"metadata":{"speaker":...,"listeners":[...]},
"tags":[...],"timestamp":"...",...}`` with no spaces. ``Decider.decide`` reads the
speaker, the tags and the timestamp of such a line from its bytes and answers True (every filter matches), False (some filter does not) or
None (parse to know). It answers only when the bytes prove what ``orjson.loads`` and
``core.fields`` would read, on a line that is valid JSON:

- A key is found by its raw spelling (``"speaker":``). Inside a JSON string every quote
  is escaped, so such a match is a key, unless a ``\\u`` escape could spell one another
  way: a line holding ``\\u`` is always parsed. A second key is looked for as the bare
  string (``"speaker"``), so that ``"speaker" :`` (a space before the colon) counts too.
- A key counts only when it is the top-level one and the only one in the line (orjson
  keeps the last of duplicate keys): ``metadata`` must follow the top-level brace with
  no other ``{`` before it; keys after ``metadata`` need exactly two ``{`` and one ``}``
  before them, that ``}`` closing ``metadata`` (``]},"tags":[``, which cannot occur in
  a string). Braces in the text only send the line to the parser.
- A value is taken from its bytes when it holds no backslash (then the bytes are the
  string); an array only when it is plain strings. Names and tags are decoded and
  matched by the exact rule, once per distinct value (a store has few of them).
- ``--text`` (one ASCII word, ``TextWord``) is decided in the text array when it is the
  line's first key (``{"textChunks":[``), flat (no ``[``/``{`` before the ``],"metadata"``
  that ends it) and free of escapes; a word with a letter no JSON number or literal
  holds can then only occur inside its strings, and ASCII case is all that
  ``str.lower()`` changes in ASCII letters. Not there: the top-level ``subject`` decides.
  A line holding a non-ASCII letter whose case fold could spell part of the word
  (``prefilter.TRIGGER_CHARS``) is parsed when the word is not found.

What is not proven is parsed, and so is a line holding a raw control byte (invalid JSON,
reported by the parser). Decision: a line decided here is not validated further
(as with the raw time pass-through of ``convo.query.scan``): a line of this layout that
is not valid UTF-8 is passed on as it is; ``convo validate`` reports it.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from itertools import accumulate, repeat
from typing import NamedTuple

from convo.core.names import NameQuery
from convo.query.filters import Filters, text_terms
from convo.query.prefilter import TRIGGER_CHARS, RawTime, ascii_needle, may_spell

META_KEY = b'"metadata":{'
SPEAKER_KEY = b'"speaker":'
# The keys as bare JSON strings: a duplicate may have spaces before its colon.
SPEAKER_NAME = b'"speaker"'
META_NAME = b'"metadata"'
TAGS_NAME = b'"tags"'
TIME_NAME = b'"timestamp"'
META_END = b'},"tags":['  # the "}" closes metadata: followed by a key, it is not in a string
TAGS_KEY = b'"tags":['
TIME_RX = re.compile(rb',"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"')
# A canonical timestamp followed by plain ``,"key":"value"`` pairs (no other timestamp)
# up to the line's closing brace: per line, what ``time_value`` proves (``block_times``).
TIME_TAIL = re.compile(
    rb',"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"'
    rb'(?:,"(?!timestamp")[^"]*":(?:"[^"]*"|null))*\}\n'
)
NOT_OBJECT = re.compile(rb"\n[^{]")  # a line that does not open a JSON object
TEXT_KEY = b'{"textChunks":['
TEXT_END = b'],"metadata":{'  # the "]" ends textChunks: followed by a key, not in a string
CHUNKS_NAME = b'"textChunks"'
_LOW_CHUNKS_NAME = CHUNKS_NAME.lower()
LINE_JOIN = b"}\n" + TEXT_KEY  # a line closing its object and the next opening in this layout
SUBJECT_KEY = b'"subject":"'
SUBJECT_NAME = b'"subject"'
_FIRST = operator.itemgetter(0)
# What a flat JSON array may hold outside its strings (numbers, literals, separators).
_SCALAR = frozenset(b"0123456789+-.Eeflnrstu ,\t\r\n")
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


def _after_metadata(buf: bytes, s: int, k: int) -> bool:
    """The key whose quote is at ``k`` (preceded by a comma, so not in a string) is a
    top-level key after the ``metadata`` object: one ``{`` besides the top-level one and
    one ``}`` before it, the one closing ``metadata`` (which may end just before ``k``).

    (Finds, not counts: ``bytes.find`` runs at memchr speed, ``bytes.count`` does not.)
    """
    if buf[k - 1 : k] != b",":
        return False
    o = buf.find(b"{", s + 1, k)
    if o < 0 or buf.find(b"{", o + 1, k) >= 0:
        return False
    c = buf.find(b"}", s, k)
    return c > o and buf.startswith(META_END, c) and buf.find(b"}", c + 1, k) < 0


def _only(buf: bytes, name: bytes, k: int, e: int) -> bool:
    """No second key ``name`` (a bare JSON string, see ``SPEAKER_NAME``) after the one at ``k``."""
    return buf.find(name, k + len(name), e) < 0


def _strings(region: bytes) -> list[bytes] | None:
    """The items of a JSON array's inside when they are plain strings, else None."""
    if not region:
        return []
    if b"\\" in region:
        return None
    parts = region.split(b'"')
    if len(parts) % 2 == 0 or parts[0] or parts[-1]:
        return None
    for sep in parts[2:-1:2]:
        if sep != b",":
            return None
    return parts[1::2]


def _string_at(buf: bytes, v: int, e: int) -> bytes | None:
    """The bytes of a string value starting at ``v`` (its quote), if it has no escape."""
    if buf[v : v + 1] != b'"':
        return None
    q = buf.find(b'"', v + 1, e)
    if q < 0:
        return None
    value = buf[v + 1 : q]
    return None if b"\\" in value else value


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
        self.complete = bool(self.kinds) and not undecided
        self.has_u = False
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
        """Per block: is there a ``\\u`` escape (then lines holding one are parsed);
        ``low``: ``block.lower()`` when the caller has it."""
        self.has_u = b"\\" in block and b"\\u" in block  # a two-byte find is slow
        if self.text is not None:
            self.low = block.lower() if low is None else low

    def decide(self, buf: bytes, s: int, e: int) -> bool | None:
        """True/False for the line ``buf[s:e]`` (no line ending), or None: parse it."""
        if buf[s : s + 1] != b"{" or buf[e - 1 : e] != b"}":
            return None
        if self.has_u and buf.find(b"\\u", s, e) >= 0:
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
            or not _only(buf, SPEAKER_NAME, k, e)
            or buf.find(META_NAME, k, e) >= 0
        ):
            return None
        v = k + 10
        if buf.startswith(b"null", v):
            return False
        value = _string_at(buf, v, e)
        return None if value is None else self.speakers[value]

    def tag(self, buf: bytes, s: int, e: int) -> bool | None:
        k = buf.find(TAGS_KEY, s, e)
        if k < 0 or not _after_metadata(buf, s, k) or not _only(buf, TAGS_NAME, k, e):
            return None
        r = buf.find(b"]", k + 8, e)
        values = _strings(buf[k + 8 : r]) if r >= 0 else None
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


class TextBlock(NamedTuple):
    """``TextWord.block``'s answer: the lines holding the word (start, end without the
    newline), in order, and for each whether it matches (None: look closer);
    ``objects``: every line of the span opens an object (none needs a parse to report)."""

    starts: list[int]
    ends: list[int]
    decided: list[bool | None]
    objects: bool


class TextWord:
    """One ``--text`` word (lower-case ASCII) decided on the bytes of the canonical
    layout (see the module docstring); ``low`` is the buffer lower-cased (ASCII)."""

    def __init__(self, needle: bytes):
        self.needle = needle
        word = needle.decode()
        self.respell = [t for t in TRIGGER_CHARS if may_spell(t.decode().casefold(), word, True)]

    @classmethod
    def of(cls, filters: Filters) -> TextWord | None:
        """The decision for ``filters``' text, when it is one word that can be decided."""
        terms = text_terms(filters)
        if len(terms) != 1 or len(terms[0]) != 1:
            return None
        needle = ascii_needle(terms[0][0])
        if needle is None or needle.decode() != terms[0][0] or set(needle) <= _SCALAR:
            return None
        return cls(needle)

    def chunks_end(self, buf: bytes, s: int, e: int) -> int:
        """Where the text array of the line ``buf[s:e]`` ends (its ``]``) when it can be
        read from its bytes, else -1."""
        if not buf.startswith(TEXT_KEY, s):
            return -1
        r = buf.find(TEXT_END, s + 15, e)
        if (
            r < 0
            or buf.find(b"\\", s + 15, r) >= 0
            or buf.find(b"[", s + 15, r) >= 0
            or buf.find(b"{", s + 15, r) >= 0
            or buf.find(CHUNKS_NAME, r, e) >= 0
        ):
            return -1
        return r

    def decide(self, buf: bytes, low: bytes, s: int, e: int) -> bool | None:
        """Does the word occur in the line's text or subject (None: parse to know)."""
        r = self.chunks_end(buf, s, e)
        if r < 0:
            return None
        if low.find(self.needle, s + 15, r) >= 0:
            return True
        if self.respell and any(buf.find(t, s, e) >= 0 for t in self.respell):
            return None
        return self.subject(buf, low, s, r, e)

    def block(self, buf: bytes, low: bytes, start: int, end: int) -> TextBlock | None:
        """The lines of ``[start, end)`` holding the word, each decided when its text
        array is plain (in C loops over the lines, not a Python step each): the word in
        it, else the subject, answers; a line not in this layout is left undecided. None:
        the span holds an escape, a carriage return or a respelling."""
        if low.find(b"\\", start, end) >= 0 or low.find(b"\r", start, end) >= 0:
            return None
        if self.respell and any(buf.find(t, start, end) >= 0 for t in self.respell):
            return None
        starts, ends, hits = self._holding(low, start, end)
        texts = [s + 15 for s in starts]
        closes = list(map(low.find, repeat(TEXT_END), texts, ends))
        n = layout_lines(buf, start, end)
        only = n > 0 and low.count(_LOW_CHUNKS_NAME, start, end) == n  # each line's key, only
        flat = _flat(buf, low, only, starts, ends, texts, closes)
        decided: list[bool | None] = [
            (h < r or self.subject(buf, low, s, r, e)) if ok else None
            for ok, s, e, h, r in zip(flat, starts, ends, hits, closes, strict=True)
        ]  # the word in the text array, else the subject decides
        return TextBlock(starts, ends, decided, n > 0)

    def _holding(self, low: bytes, start: int, end: int) -> tuple[list[int], list[int], list[int]]:
        """Start, end and first hit of each line of ``low[start:end]`` holding the word."""
        starts: list[int] = []
        ends: list[int] = []
        hits: list[int] = []
        rfind, find, needle = low.rfind, low.find, self.needle
        p = find(needle, start, end)
        while p >= 0:  # one step per line holding the word, not per hit
            s = rfind(b"\n", start, p) + 1 or start
            e = find(b"\n", p, end)
            e = end if e < 0 else e
            starts.append(s)
            ends.append(e)
            hits.append(p)
            p = find(needle, e, end)
        return starts, ends, hits

    def subject(self, buf: bytes, low: bytes, s: int, r: int, e: int) -> bool | None:
        """Does the top-level subject hold the word (None: parse to know); ``r``: where
        the line's text array ends."""
        k = buf.find(SUBJECT_NAME, r, e)
        if k < 0:
            return False
        if (
            not buf.startswith(SUBJECT_KEY, k)
            or not _after_metadata(buf, s, k)
            or not _only(buf, SUBJECT_NAME, k, e)
        ):
            return None
        q = buf.find(b'"', k + 11, e)
        if q < 0 or buf.find(b"\\", k + 11, q) >= 0:
            return None
        return low.find(self.needle, k + 11, q) >= 0


# Raw control bytes a JSON line cannot hold (tab, LF and CR may stand between tokens);
# one memchr per byte value is ~10x faster than a character-class regex.
_RAW_CONTROL = tuple(bytes([c]) for c in range(0x20) if c not in (0x09, 0x0A, 0x0D))
_CONTROL_BYTES = b"".join(_RAW_CONTROL)


def has_control(buf: bytes, s: int = 0, e: int | None = None) -> bool:
    """``buf[s:e]`` holds a raw control byte: not valid JSON, so it must be parsed (and
    reported), never passed on as decided."""
    if s == 0 and e is None:
        return any(c in buf for c in _RAW_CONTROL)
    part = buf[s:e]  # a line: one pass deleting them beats 29 calls on a few hundred bytes
    return len(part.translate(None, _CONTROL_BYTES)) != len(part)


def time_value(raw: bytes, k: int = 0, e: int | None = None) -> bytes | None:
    """The top-level canonical timestamp of the line ``raw[k:e]``, if its bytes prove it.

    The last ``,"timestamp":"...Z"`` whose value is canonical, with no ``{``, exactly one
    ``}`` (the line's last byte, closing the top-level object) and no other timestamp
    key after it: the key is then a top-level one and the last of them, which is the one
    orjson keeps. (The caller has ruled out ``\\u`` escapes.)
    """
    end = len(raw) if e is None else e
    m = TIME_RX.search(raw, k, end)
    if m is None or raw[end - 1 : end] != b"}":
        return None
    j = m.end()
    if raw.find(b"{", j, end) >= 0 or raw.count(b"}", j, end) != 1:
        return None
    if raw.find(TIME_NAME, j, end) >= 0:
        return None
    return m.group(1)


def _flat(
    buf: bytes, low: bytes, only: bool, starts: list[int], ends: list[int], texts: list[int],
    closes: list[int],
) -> list[bool]:  # fmt: skip
    """Per line, its text array (``texts[i]`` to ``closes[i]``) is a plain one: no ``[``
    or ``{`` in it; unless ``only`` (every line opens with the key, the only one of its
    name), also the key in its case first and no second one."""
    find = low.find
    lists = map(find, repeat(b"["), texts, closes)
    objects = map(find, repeat(b"{"), texts, closes)
    if only:
        rows = zip(texts, closes, lists, objects, strict=False)  # maps
        return [t <= r and nested < 0 and obj < 0 for t, r, nested, obj in rows]
    keys = map(buf.startswith, repeat(TEXT_KEY), starts)
    again = map(find, repeat(_LOW_CHUNKS_NAME), closes, ends)
    rows6 = zip(keys, texts, closes, lists, objects, again, strict=False)
    return [
        key and t <= r and nested < 0 and obj < 0 and dup < 0
        for key, t, r, nested, obj, dup in rows6
    ]


def layout_lines(buf: bytes, start: int, end: int) -> int:
    """The number of lines of ``buf[start:end]`` (whole lines, each with its newline)
    when every one opens with ``{"textChunks":[`` and closes with ``}``, else 0.

    (Removing each line join leaves one newline, the last: a few instructions a byte,
    where counting the newlines takes a loop over every byte.)
    """
    if not (buf.startswith(TEXT_KEY, start) and buf.startswith(b"}\n", end - 2)):
        return 0
    body = buf[start:end]
    rest = body.replace(LINE_JOIN, b"")
    if rest.find(b"\n") != len(rest) - 1:
        return 0
    return (len(body) - len(rest)) // len(LINE_JOIN) + 1


def block_times(block: bytes, lines: list[bytes]) -> list[bytes] | None:
    """The raw timestamp of each line of ``block`` (``lines``: its lines, each of which
    ends with a newline in ``block``) when the bytes prove every one, else None.

    One regex pass finds in each line a canonical timestamp followed only by plain
    ``,"key":"value"`` pairs and the brace that closes the line: the one structural
    ``}`` after the key closes the top-level object, so the key is a top-level one, and
    the last of its name (the one orjson keeps). Every line must open an object.
    """
    if b"\r" in block or (b"\\" in block and b"\\u" in block) or has_control(block):
        return None
    try:
        firsts = bytes(map(_FIRST, lines))
    except IndexError:  # a blank line
        return None
    if firsts.strip(b"{"):
        return None
    times = TIME_TAIL.findall(block)
    return times if len(times) == len(lines) else None


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
    "Decider", "TextBlock", "TextWord", "block_times", "has_control", "layout_lines", "offsets",
    "time_mask",
]  # fmt: skip
