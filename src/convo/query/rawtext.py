"""One ``--text`` word decided on the raw bytes of convo's record layout, per line and a
block at a time.

The word (lower-case ASCII, ``TextWord.of``) is looked for in the text array when it is
the line's first key (``{"textChunks":[``), plain (no ``[``/``{`` before the
``],"metadata"`` that ends it, which cannot occur in a string) and free of escapes: a
word with a letter no JSON number or literal holds can then only occur inside its
strings, and ASCII case is all that ``str.lower()`` changes in ASCII letters (so a hit
in the lower-cased bytes is a hit of the exact check, ``query.filters``). Not there: the
top-level ``subject`` decides. A line holding a non-ASCII letter whose case fold could
spell part of the word (``prefilter.TRIGGER_CHARS``) is parsed when the word is not
found. ``TextWord.block`` decides a whole span in a few passes that are C loops over
its lines: a decision per line in Python costs about what orjson's parse and the
exact check do (measured on the benchmark store, ``benchmarks/bench_query.py``).
"""

from __future__ import annotations

from itertools import repeat
from typing import NamedTuple

from convo.query.filters import Filters, text_terms
from convo.query.prefilter import TRIGGER_CHARS, ascii_needle, may_spell
from convo.query.rawkeys import after_metadata, only

TEXT_KEY = b'{"textChunks":['
TEXT_END = b'],"metadata":{'  # the "]" ends textChunks: followed by a key, not in a string
CHUNKS_NAME = b'"textChunks"'
_LOW_CHUNKS_NAME = CHUNKS_NAME.lower()
LINE_JOIN = b"}\n" + TEXT_KEY  # a line closing its object and the next opening in this layout
SUBJECT_KEY = b'"subject":"'
SUBJECT_NAME = b'"subject"'
# What a flat JSON array may hold outside its strings (numbers, literals, separators).
_SCALAR = frozenset(b"0123456789+-.Eeflnrstu ,\t\r\n")


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
            or not after_metadata(buf, s, k)
            or not only(buf, SUBJECT_NAME, k, e)
        ):
            return None
        q = buf.find(b'"', k + 11, e)
        if q < 0 or buf.find(b"\\", k + 11, q) >= 0:
            return None
        return low.find(self.needle, k + 11, q) >= 0


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

    (Every newline but the last is one of a line join: two counts and no copy, where
    removing the joins copied the span piece by piece, about three times as long.)
    """
    if not (buf.startswith(TEXT_KEY, start) and buf.startswith(b"}\n", end - 2)):
        return 0
    joins = buf.count(LINE_JOIN, start, end)
    return joins + 1 if buf.count(b"\n", start, end) == joins + 1 else 0


__all__ = ["LINE_JOIN", "TextBlock", "TextWord", "layout_lines"]
