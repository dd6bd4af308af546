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
exact check do (measured on the benchmark store, ``benchmarks/bench_query.py``). One
regex finds the lines holding the word (a match from the first hit to the line's end),
one more proves every line of the span in the layout (``layout``), and one C loop per
condition proves all their text arrays plain at once (``_plain``); a span where that
fails is decided line by line (``_flat``). On that store's ``--text budget`` a 16 MiB
range took 74 ms of CPU with a find loop per line and counts for the layout, 46 ms so.
"""

from __future__ import annotations

import re
from itertools import compress, repeat
from operator import add, le, not_, sub
from typing import NamedTuple

from convo.query.filters import Filters, text_terms
from convo.query.prefilter import TRIGGER_CHARS, ascii_needle, may_spell
from convo.query.rawkeys import after_metadata, only

TEXT_KEY = b'{"textChunks":['
TEXT_END = b'],"metadata":{'  # the "]" ends textChunks: followed by a key, not in a string
CHUNKS_NAME = b'"textChunks"'
_LOW_CHUNKS_NAME = CHUNKS_NAME.lower()
SUBJECT_KEY = b'"subject":"'
SUBJECT_NAME = b'"subject"'
_START = re.Match.start
_END = re.Match.end
# A newline that does not close a line of the layout (``}``) or open the next one (the
# last newline of a span is not looked at): a scan for newlines, as fast as
# ``canonical.NOT_OBJECT``'s, proves both for every line.
_LINE_BREAK = re.compile(rb'\n(?:(?<!\}\n)|(?!\{"textChunks":\[))')
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
        self.size = len(needle)
        # The word may start in a line's key (``--text chunk``): a line's first hit then
        # says nothing of its text, so a block is decided line by line.
        self.in_key = in_key(needle)
        # The word and the rest of its line: one match per line holding it, its first hit
        # (the next search starts at the line's end), all in the regex engine.
        self.held = re.compile(re.escape(needle) + rb"[^\n]*")

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
        the span holds an escape, a carriage return or a respelling.

        Measured against deciding each candidate line (``benchmarks/bench_fastpaths.py``,
        CPU, 100k records): ``--text budget`` 1.67× (noise ±9%)."""
        if self.in_key or low.find(b"\\", start, end) >= 0 or low.find(b"\r", start, end) >= 0:
            return None
        if self.respell and holds_any(buf, self.respell, start, end):
            return None
        starts, ends, hits = self._holding(low, start, end)
        texts = list(map(add, starts, repeat(15)))
        # The first "{" after the key is metadata's when the array is plain: the array
        # ends 13 bytes before it (a memchr, not a find of ``TEXT_END``).
        closes = list(map(sub, map(low.find, repeat(b"{"), texts, ends), repeat(13)))
        lines = layout(buf, start, end)
        # The first hit ends in the array: it is in one of its strings (the word holds a
        # byte no number or literal does, and no quote). Else none is: the subject decides.
        tails = list(map(add, hits, repeat(self.size)))
        if not (lines and _plain(buf, low, ends, texts, closes)):
            flat = _flat(buf, low, starts, ends, texts, closes)
            return TextBlock(starts, ends, [
                (h <= r or self.subject(buf, low, s, r, e)) if ok else None
                for ok, s, e, h, r in zip(flat, starts, ends, tails, closes, strict=True)
            ], lines)  # fmt: skip
        decided: list[bool | None] = list(map(le, tails, closes))  # the word in the array
        for i in compress(range(len(decided)), map(not_, decided)):  # else the subject
            decided[i] = self.subject(buf, low, starts[i], closes[i], ends[i])
        return TextBlock(starts, ends, decided, lines)

    def _holding(self, low: bytes, start: int, end: int) -> tuple[list[int], list[int], list[int]]:
        """Start, end and first hit of each line of ``low[start:end]`` holding the word."""
        found = list(self.held.finditer(low, start, end))
        hits = list(map(_START, found))
        if start and low[start - 1] == 10:  # the span follows a newline: each line has one
            before = map(low.rfind, repeat(b"\n"), repeat(start - 1), hits)
            starts = list(map(add, before, repeat(1)))
        else:  # -1: the span's first line
            before = map(low.rfind, repeat(b"\n"), repeat(start), hits)
            starts = list(map(max, repeat(start), map(add, before, repeat(1))))
        return starts, list(map(_END, found)), hits

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


def _plain(buf: bytes, low: bytes, ends: list[int], texts: list[int], closes: list[int]) -> bool:
    """In a span of the layout (``layout``), every line's text array is a plain one (what
    ``_flat`` asks of each line), in a C loop per condition: the common case, where a
    Python step per line cost twice as much. A line's first ``{`` after the key found
    (not -14), an array closed by ``TEXT_END`` there cannot start before the key's end
    (that would put the key's ``[`` inside ``TEXT_END``, which holds none)."""
    return (
        -14 not in closes
        and all(map(buf.startswith, repeat(TEXT_END), closes))
        and max(map(low.find, repeat(b"["), texts, closes), default=-1) < 0
        and max(map(low.find, repeat(_LOW_CHUNKS_NAME), closes, ends), default=-1) < 0
    )


def _flat(
    buf: bytes, low: bytes, starts: list[int], ends: list[int], texts: list[int],
    closes: list[int],
) -> list[bool]:  # fmt: skip
    """Per line, its text array (``texts[i]`` to ``closes[i]``, where the first ``{``
    after the key, less 13) is a plain one: the key in its case first, the array closed
    by ``TEXT_END`` (so no ``{`` in it) with no ``[`` in it, no second key of its name,
    and the line closes an object (as ``canonical.Decider.decide`` asks of a line)."""
    find = low.find
    keys = map(buf.startswith, repeat(TEXT_KEY), starts)
    closed = map(buf.endswith, repeat(b"}"), starts, ends)
    shut = map(buf.startswith, repeat(TEXT_END), closes)
    lists = map(find, repeat(b"["), texts, closes)
    again = map(find, repeat(_LOW_CHUNKS_NAME), closes, ends)
    rows = zip(keys, closed, texts, closes, shut, lists, again, strict=False)  # maps
    return [
        key and brace and t <= r and end and nested < 0 and dup < 0
        for key, brace, t, r, end, nested, dup in rows
    ]


def holds_any(buf: bytes, pieces: list[bytes], start: int, end: int) -> bool:
    """``buf[start:end]`` holds one of ``pieces``: each one's first byte looked for first
    (a memchr; a three-byte find over 1 MiB of the benchmark store took 70 times as
    long, most of the text has no such lead byte)."""
    find = buf.find
    return any(find(p[:1], start, end) >= 0 and find(p, start, end) >= 0 for p in pieces)


def in_key(needle: bytes) -> bool:
    """Can ``needle`` (lower-case) start inside a line's ``{"textChunks":[``: all of it
    there, or its head the key's tail?"""
    key = TEXT_KEY.lower()
    return any(needle.startswith(key[i:]) or key[i:].startswith(needle) for i in range(len(key)))


def layout(buf: bytes, start: int, end: int) -> bool:
    """Every line of ``buf[start:end]`` (whole lines, each with its newline) opens with
    ``{"textChunks":[`` and closes with ``}``: one regex pass over its newlines."""
    return (
        buf.startswith(TEXT_KEY, start)
        and buf.startswith(b"}\n", end - 2)
        and _LINE_BREAK.search(buf, start, end - 1) is None
    )


__all__ = ["TextBlock", "TextWord", "holds_any", "in_key", "layout"]
