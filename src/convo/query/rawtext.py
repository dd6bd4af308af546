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

The same holds in Python's ``json.dumps`` layouts (``TEXT_LAYOUTS``: ``", "`` and
``": "`` separators, ``text_chunks`` or ``textChunks``), with ``\\u`` escapes of
characters that spell no ASCII (``prefilter.RESPELLING``; ``json.dumps`` escapes every
non-ASCII character): when every backslash opens such an escape no quote is escaped, so
the structure reads as without them, and a hit with no backslash in the 5 bytes before
it is in the text, not in an escape's digits (else the line is parsed). On the
benchmark store's ``json.dumps`` copy (``benchmarks/bench_query.py``, 100k records, one
process) ``--text budget`` took 0.59 s of CPU so, 1.12 s when every line holding the
word was parsed. The escapes are then checked in one regex pass (``_HARMFUL``, not two
counts and a search), and a span so proven tells the decider it holds no escape that
may spell ASCII (``linescan.BlockScan.text_block``), which it looked for again: the
scan of that copy 406 → 294 ms of CPU (5 alternating rounds, 1.39× ±10%, load 4-6);
the whole command on its 1M-record copy 4.55 → 3.59 s (2 rounds, load 6-7).
"""

from __future__ import annotations

import re
from itertools import compress, repeat
from operator import add, le, lt, not_, sub

from convo.query.filters import Filters, text_terms
from convo.query.prefilter import RESPELLED, TRIGGER_CHARS, ascii_needle, may_spell
from convo.query.rawkeys import after_metadata, only

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import NamedTuple
else:  # the same class syntax: an indexed read's check of its candidates imports this
    from convo.core.slotted import NamedTuple

TEXT_KEY = b'{"textChunks":['
TEXT_END = b'],"metadata":{'  # the "]" ends textChunks: followed by a key, not in a string
CHUNKS_NAME = b'"textChunks"'
_LOW_CHUNKS_NAME = CHUNKS_NAME.lower()
SUBJECT_KEY = b'"subject":"'
SUBJECT_NAME = b'"subject"'
_START = re.Match.start
_END = re.Match.end
# What a flat JSON array may hold outside its strings (numbers, literals, separators).
SCALAR = frozenset(b"0123456789+-.Eeflnrstu ,\t\r\n")


class TextLayout(NamedTuple):
    """The bytes one writer's record line opens with (``key``: its text array), and what
    follows the array (``end``: the metadata key), the subject key and the end of
    metadata, with that writer's separators; ``names``: the keys (lower case) that must
    not follow the array (a second text array, or ``textChunks``, which wins over
    ``text_chunks``: ``core.fields.is_record``); ``name``: the array's key as a JSON
    string (``"textChunks"`` or ``"text_chunks"``). ``canonical.LAYOUTS`` is made from
    these, so the writers' layouts are listed once."""

    name: bytes
    key: bytes
    end: bytes
    names: tuple[bytes, ...]
    subject: bytes
    comma: bytes
    meta_end: bytes
    line_break: re.Pattern[bytes]


def _text_layout(name: bytes, comma: bytes, colon: bytes) -> TextLayout:
    key = b"{" + name + colon + b"["
    names = (name.lower(), _LOW_CHUNKS_NAME) if name != CHUNKS_NAME else (_LOW_CHUNKS_NAME,)
    return TextLayout(
        name=name,
        key=key,
        end=b"]" + comma + b'"metadata"' + colon + b"{",
        names=names,
        subject=SUBJECT_NAME + colon + b'"',
        comma=comma,
        meta_end=b"}" + comma + b'"tags"' + colon + b"[",
        # A newline that does not close a line of the layout (``}``) or open the next one
        # (the last newline of a span is not looked at): a scan for newlines, as fast as
        # ``canonical.NOT_OBJECT``'s, proves both for every line.
        line_break=re.compile(rb"\n(?:(?<!\}\n)|(?!" + re.escape(key) + rb"))"),
    )


# convo's own (orjson), then Python's json.dumps defaults (", ", ": "), each spelling.
TEXT_LAYOUTS = tuple(
    _text_layout(name, comma, colon)
    for comma, colon in ((b",", b":"), (b", ", b": "))
    for name in (CHUNKS_NAME, b'"text_chunks"')
)
CONVO_TEXT = TEXT_LAYOUTS[0]


def text_layout_of(buf: bytes, s: int) -> TextLayout | None:
    """The ``TextLayout`` whose key opens the line at ``s``, if one does."""
    if not buf.startswith(b'{"text', s):
        return None
    for text in TEXT_LAYOUTS:
        if buf.startswith(text.key, s):
            return text
    return None


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
        self.in_key = {text.key: in_key(needle, text.key) for text in TEXT_LAYOUTS}
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
        if needle is None or needle.decode() != terms[0][0] or set(needle) <= SCALAR:
            return None
        return cls(needle)

    def chunks_end(self, buf: bytes, s: int, e: int, text: TextLayout | None = None) -> int:
        """Where the text array of the line ``buf[s:e]`` ends (its ``]``) when it can be
        read from its bytes, else -1; ``text``: the line's layout, found when not given.
        Escapes in the array must all be ``\\u`` ones (every backslash one's first
        byte: then every raw quote is a string's delimiter), none that may spell ASCII
        (``prefilter.RESPELLING``)."""
        text = text or text_layout_of(buf, s)
        if text is None:
            return -1
        k = s + len(text.key)
        r = buf.find(text.end, k, e)
        if (
            r < 0
            or buf.find(b"[", k, r) >= 0
            or buf.find(b"{", k, r) >= 0
            or any(buf.find(name, r, e) >= 0 for name in text.names)
            or (buf.find(b"\\", k, r) >= 0 and not _only_harmless_escapes(buf, k, r))
        ):
            return -1
        return r

    def decide(self, buf: bytes, low: bytes, s: int, e: int) -> bool | None:
        """Does the word occur in the line's text or subject (None: parse to know)."""
        text = text_layout_of(buf, s)
        if text is None:
            return None
        r = self.chunks_end(buf, s, e, text)
        if r < 0:
            return None
        k = s + len(text.key)
        h = low.find(self.needle, k, r)
        if h >= 0:  # in a string (the word holds a byte no number or literal does)
            return True if low.find(b"\\", max(k, h - 5), h) < 0 else None  # not in an escape
        if self.respell and any(buf.find(t, s, e) >= 0 for t in self.respell):
            return None
        return self.subject(buf, low, s, r, e, text)

    def block(self, buf: bytes, low: bytes, start: int, end: int) -> TextBlock | None:
        """The lines of ``[start, end)`` holding the word, each decided when its text
        array is plain (in C loops over the lines, not a Python step each): the word in
        it, else the subject, answers; a line not in this layout is left undecided. None:
        the span holds an escape other than a harmless ``\\u`` one, a carriage return
        or a respelling. The layout is the span's first line's (``TEXT_LAYOUTS``;
        convo's when it has none): lines of another are decided one by one (``_flat``).

        Measured against deciding each candidate line (``benchmarks/bench_fastpaths.py``,
        CPU, 100k records): ``--text budget`` 1.67× (noise ±9%)."""
        text = text_layout_of(buf, start) or CONVO_TEXT  # the others' lines: per line
        escapes = self._escapes(buf, low, start, end, text)
        if escapes is None:
            return None
        starts, ends, hits = self._holding(low, start, end)
        texts = list(map(add, starts, repeat(len(text.key))))
        # The first "{" after the key is metadata's when the array is plain: the array
        # ends ``len(text.end) - 1`` bytes before it (a memchr, not a find of its end).
        back = len(text.end) - 1
        closes = list(map(sub, map(low.find, repeat(b"{"), texts, ends), repeat(back)))
        lines = layout(buf, start, end, text)
        # The first hit ends in the array: it is in one of its strings (the word holds a
        # byte no number or literal does, and no quote). Else none is: the subject decides.
        tails = list(map(add, hits, repeat(self.size)))
        if not (lines and _plain(buf, low, ends, texts, closes, text)):
            flat = _flat(buf, low, starts, ends, texts, closes, text)
            decided: list[bool | None] = [
                (h <= r or self.subject(buf, low, s, r, e, text)) if ok else None
                for ok, s, e, h, r in zip(flat, starts, ends, tails, closes, strict=True)
            ]
        else:
            decided = list(map(le, tails, closes))  # the word in the array
            for i in compress(range(len(decided)), map(not_, decided)):  # else the subject
                decided[i] = self.subject(buf, low, starts[i], closes[i], ends[i], text)
        if escapes:
            decided = _unless_escaped(low, start, hits, tails, closes, decided)
        return TextBlock(starts, ends, decided, lines)

    def _escapes(
        self, buf: bytes, low: bytes, start: int, end: int, text: TextLayout
    ) -> bool | None:
        """Whether the span holds escapes, all harmless ``\\u`` ones; None when it
        cannot be decided at once: an escape that is not, a carriage return, a
        respelling, or a word that may start in the key."""
        if self.in_key[text.key] or low.find(b"\r", start, end) >= 0:
            return None
        if self.respell and holds_any(buf, self.respell, start, end):
            return None
        escapes = low.find(b"\\", start, end) >= 0
        if escapes and not _only_harmless_escapes(buf, start, end):
            return None
        return escapes

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

    def subject(
        self, buf: bytes, low: bytes, s: int, r: int, e: int, text: TextLayout = CONVO_TEXT
    ) -> bool | None:
        """Does the top-level subject hold the word (None: parse to know); ``r``: where
        the line's text array ends."""
        k = buf.find(SUBJECT_NAME, r, e)
        if k < 0:
            return False
        if (
            not buf.startswith(text.subject, k)
            or not after_metadata(buf, s, k, text.comma, text.meta_end)
            or not only(buf, SUBJECT_NAME, k, e)
        ):
            return None
        v = k + len(text.subject)
        q = buf.find(b'"', v, e)
        if q < 0 or buf.find(b"\\", v, q) >= 0:
            return None
        return low.find(self.needle, v, q) >= 0


def _unless_escaped(
    low: bytes, start: int, hits: list[int], tails: list[int], closes: list[int],
    decided: list[bool | None],
) -> list[bool | None]:  # fmt: skip
    """``decided``, a line whose first hit is in its array but may be in an escape's
    digits (a backslash in the 5 bytes before it: ``\\u00e9budget`` holds "e9b")
    made undecided: such a hit says nothing, the line is parsed."""
    inside = [h - 5 if h - 5 > start else start for h in hits]
    clean = map(lt, map(low.find, repeat(b"\\"), inside, hits), repeat(0))
    return [
        None if d and not ok and t <= r else d
        for d, ok, t, r in zip(decided, clean, tails, closes, strict=True)
    ]


# A backslash that does not open a harmless ``\\u`` escape: one not followed by ``u``
# (an escaped quote or backslash, ``\\n``...), one that ends the span, or an escape that
# may spell ASCII (``prefilter.RESPELLING``).
_HARMFUL = re.compile(rb"\\(?:[^u]|u" + RESPELLED + rb"|\Z)")


def _only_harmless_escapes(buf: bytes, start: int, end: int) -> bool:
    """Every backslash of ``buf[start:end]`` opens a ``\\u`` escape (so none is escaped
    and no quote is) and none of those may spell ASCII (``prefilter.RESPELLING``):
    Python's ``json.dumps`` writes every non-ASCII character so. One regex pass that
    stops at each backslash (``_HARMFUL``): on 1 MiB of the benchmark store's
    ``json.dumps`` copy 1.32 ms of CPU, where counting backslashes and ``\\u`` and
    then looking for ``RESPELLING`` took 2.46 ms (best of 9 searches of 8 MiB)."""
    return _HARMFUL.search(buf, start, end) is None


def _plain(
    buf: bytes, low: bytes, ends: list[int], texts: list[int], closes: list[int],
    text: TextLayout = CONVO_TEXT,
) -> bool:  # fmt: skip
    """In a span of the layout (``layout``), every line's text array is a plain one (what
    ``_flat`` asks of each line), in a C loop per condition: the common case, where a
    Python step per line cost twice as much. A line's first ``{`` after the key found
    (not -1 less the back step), an array closed by ``text.end`` there cannot start
    before the key's end (that would put the key's ``[`` inside ``text.end``, which
    holds none)."""
    return (
        -len(text.end) not in closes
        and all(map(buf.startswith, repeat(text.end), closes))
        and max(map(low.find, repeat(b"["), texts, closes), default=-1) < 0
        and all(
            max(map(low.find, repeat(name.lower()), closes, ends), default=-1) < 0
            for name in text.names
        )
    )


def _flat(
    buf: bytes, low: bytes, starts: list[int], ends: list[int], texts: list[int],
    closes: list[int], text: TextLayout = CONVO_TEXT,
) -> list[bool]:  # fmt: skip
    """Per line, its text array (``texts[i]`` to ``closes[i]``, where the first ``{``
    after the key, less the back step) is a plain one: the key in its case first, the
    array closed by ``text.end`` (so no ``{`` in it) with no ``[`` in it, no second key
    of its name, and the line closes an object (as ``canonical.Decider.decide`` asks of
    a line)."""
    find = low.find
    keys = map(buf.startswith, repeat(text.key), starts)
    closed = map(buf.endswith, repeat(b"}"), starts, ends)
    shut = map(buf.startswith, repeat(text.end), closes)
    lists = map(find, repeat(b"["), texts, closes)
    finds = [map(find, repeat(name.lower()), closes, ends) for name in text.names]
    again = finds[0] if len(finds) == 1 else map(max, *finds)
    rows = zip(keys, closed, texts, closes, shut, lists, again, strict=False)  # maps
    return [
        key and brace and t <= r and end and nested < 0 and dup < 0
        for key, brace, t, r, end, nested, dup in rows
    ]


def holds_any(buf: bytes, pieces: list[bytes], start: int, end: int) -> bool:
    """``buf[start:end]`` holds one of ``pieces``: each one's bytes looked for first, the
    last first (a memchr each; a three-byte find over 1 MiB of the benchmark store took
    70 times as long). A lead byte alone is common in text that is not English (``ſ``
    and ``Ł`` share theirs): on 1 MiB of the benchmark store, the five letters that may
    spell ``forecast quarter`` took 0.96 ms of CPU with their first bytes looked for,
    0.05 ms with every byte (best of 5 searches of 8 MiB)."""
    find = buf.find
    return any(
        all(find(p[i : i + 1], start, end) >= 0 for i in range(len(p) - 1, -1, -1))
        and find(p, start, end) >= 0
        for p in pieces
    )


def in_key(needle: bytes, text_key: bytes = TEXT_KEY) -> bool:
    """Can ``needle`` (lower-case) start inside a line's ``{"textChunks":[`` (or another
    layout's ``text_key``): all of it there, or its head the key's tail?"""
    key = text_key.lower()
    return any(needle.startswith(key[i:]) or key[i:].startswith(needle) for i in range(len(key)))


def layout(buf: bytes, start: int, end: int, text: TextLayout = CONVO_TEXT) -> bool:
    """Every line of ``buf[start:end]`` (whole lines, each with its newline) opens with
    ``{"textChunks":[`` (``text.key``) and closes with ``}``: one regex pass over its
    newlines."""
    return (
        buf.startswith(text.key, start)
        and buf.startswith(b"}\n", end - 2)
        and text.line_break.search(buf, start, end - 1) is None
    )


__all__ = [
    "SCALAR", "TEXT_LAYOUTS", "TextBlock", "TextLayout", "TextWord", "holds_any", "in_key", "layout",
    "text_layout_of",
]  # fmt: skip
