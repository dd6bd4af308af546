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
- ``--text`` is not decided here (see ``Decider.__init__``): its candidates are parsed.

What is not proven is parsed, and so is a line holding a raw control byte (invalid JSON,
reported by the parser). Decision: a line decided here is not validated further
(as with the raw time pass-through of ``convo.query.scan``): a line of this layout that
is not valid UTF-8 is passed on as it is; ``convo validate`` reports it.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from itertools import accumulate, compress, repeat

from convo.core.names import NameQuery
from convo.query.filters import Filters
from convo.query.prefilter import RawTime

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
        # Every filter is decided here: True means the line matches. Text is not decided
        # on bytes: measured, finding the chunks and the subject in Python cost more than
        # orjson's parse and the exact check (1.5-1.8 s against 1.3-1.8 s per 200k lines).
        undecided = (
            filters.listeners or filters.regexes or filters.threads or filters.texts
            or filters.tree is not None  # flat fields are then hints: the tree decides
        )  # fmt: skip
        self.complete = bool(self.kinds) and not undecided
        self.has_u = False

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

    def begin(self, block: bytes) -> None:
        """Per block: is there a ``\\u`` escape (then lines holding one are parsed)."""
        self.has_u = b"\\" in block and b"\\u" in block  # a two-byte find is slow

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


# Raw control bytes a JSON line cannot hold (tab, LF and CR may stand between tokens);
# one memchr per byte value is ~10x faster than a character-class regex.
_RAW_CONTROL = tuple(bytes([c]) for c in range(0x20) if c not in (0x09, 0x0A, 0x0D))


def has_control(buf: bytes, s: int = 0, e: int | None = None) -> bool:
    """``buf[s:e]`` holds a raw control byte: not valid JSON, so it must be parsed (and
    reported), never passed on as decided."""
    part = buf if s == 0 and e is None else buf[s:e]
    return any(c in part for c in _RAW_CONTROL)


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


def time_mask(times: list[bytes], raw_time: RawTime) -> list[bool]:
    """Which of the raw canonical timestamps are in ``raw_time``'s bounds."""
    since, until = raw_time.since, raw_time.until
    if until is None:
        return [t >= since for t in times] if since is not None else [True] * len(times)
    if since is None:
        return [t < until for t in times]
    return [since <= t < until for t in times]


def offsets(lines: list[bytes]) -> list[int]:
    """Where each of ``lines`` starts in the block they were split from (at newlines)."""
    return list(accumulate(map(operator.add, map(len, lines), repeat(1)), initial=0))


__all__ = ["Decider", "compress", "has_control", "offsets", "time_mask", "time_value"]
