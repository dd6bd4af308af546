"""A phrase (``"forecast quarter"``) decided on the raw bytes of a record line, per line
(``TextPhrase.decide``: an indexed read's candidates, ``store.select``) and a block at a
time when it is the only filter (``TextPhrase.block``: the scan, ``linescan.BlockScan.
text_block``). The text array's layouts and the text word's decisions it builds on are
``query.rawtext``'s.
"""

from __future__ import annotations

import re

from convo.query.prefilter import TRIGGER_CHARS, may_spell, respelling_escape
from convo.query.rawtext import (
    CONVO_TEXT,
    SCALAR,
    TextBlock,
    TextWord,
    holds_any,
    layout,
    text_layout_of,
)  # fmt: skip


class TextPhrase:
    """A phrase of two or more words (``"quinn wrote"``: the words in order, white space
    between, in the case-folded subject and text: ``query.field_table._phrase``) found
    on the bytes of a line of a ``TEXT_LAYOUTS`` layout: True when it is in the line's
    text array, None otherwise (parse to know; a phrase may also span two chunks or the
    subject and the text, which are joined by a newline).

    Its words are lower-case ASCII letters and digits, so a hit of ``word\\s+word...``
    in the lower-cased bytes holds no quote: it lies in one string of the array. With no
    backslash in the line every byte of it is the character it spells, ASCII, whose
    ``casefold()`` is its ``lower()``: the exact check's pattern matches there too."""

    def __init__(self, words: list[str]):
        self.first = TextWord(words[0].encode())
        self.pattern = re.compile(rb"\s+".join(re.escape(w.encode()) for w in words))
        heads = [re.escape(w.encode()) for w in words]
        # ``block``: the lines whose bytes may hold the phrase (``_GAP`` between its
        # words), and those whose subject may begin it.
        self.held = re.compile(_GAP.join(heads) + rb"[^\n]*")
        # (``ject"``: the key's rarest head, ``"subject"`` itself cost 0.59 ms of CPU per
        # MiB of the benchmark store, ``ject"`` 0.39, ``ect"`` 0.98: the search stops at
        # each byte equal to its first)
        self.in_subject = re.compile(rb'ject"[^\n]*' + heads[0] + rb"[^\n]*")
        self.respell = [
            t for t in TRIGGER_CHARS
            if any(may_spell(t.decode().casefold(), w, True) for w in words)
        ]  # fmt: skip
        # A hit of the words outside a string (``true 1``): a block cannot tell.
        self.blocks = not all(set(w.encode()) <= SCALAR for w in words)

    @classmethod
    def of(cls, value: str) -> TextPhrase | None:
        """The decision for the phrase ``value`` when its words allow one."""
        words = value.casefold().split()
        if len(words) < 2 or not all(w.isascii() and w.isalnum() for w in words):
            return None
        return cls(words)

    def decide(self, buf: bytes, low: bytes, s: int, e: int) -> bool | None:
        """True: the phrase is in the text of the line ``buf[s:e]``; None: parse."""
        if buf.find(b"\\", s, e) >= 0:
            return None
        text = text_layout_of(buf, s)
        r = -1 if text is None else self.first.chunks_end(buf, s, e, text)
        if text is None or r < 0:
            return None
        return True if self.pattern.search(low, s + len(text.key), r) else None

    def block(self, buf: bytes, low: bytes, start: int, end: int) -> TextBlock | None:
        """The lines of ``[start, end)`` that may hold the phrase, each decided when its
        bytes allow (``TextWord.block``'s answer): the others cannot hold it. None: the
        span holds a carriage return, an escape that may spell ASCII or a letter whose
        case fold may spell a word (``prefilter.RESPELLING``, ``respell``).

        A line may hold the phrase only if its bytes hold the words joined by ``_GAP``
        (every way JSON writes white space inside a string, and the end of one string
        and the start of a later one, which the text joins with a newline), or if its
        ``"subject"`` is followed by the first word (the subject may hold the phrase, or
        begin it: the text follows it after a newline). Such a line is True when the
        phrase, its words one string's spaces apart, is in its plain text array
        (``decide``), False when it is a line of a ``TEXT_LAYOUTS`` layout whose array
        holds no hit and whose subject may not begin the phrase, else undecided (parsed).

        Measured against the needle scan it replaces (every line holding the first word
        parsed, a third of the lines; ``benchmarks/bench_fastpaths.py``'s pair, 200k
        records of ``benchmarks/bench_query.py``'s store, CPU in process, 7 alternating
        rounds, load 6-7): ``"forecast quarter"`` 539 → 276 ms (1.95× ±6%), on the
        ``json.dumps`` copy 687 → 408 ms (1.68× ±13%); instructions of one scan of 40k
        records (cachegrind) 1,047M → 631M and 1,373M → 978M. docs/query.md, "A
        phrase without an index"."""
        if not self.blocks or low.find(b"\r", start, end) >= 0:
            return None
        if self.respell and holds_any(buf, self.respell, start, end):
            return None
        if respelling_escape(buf, start, end):
            return None
        lines: dict[int, tuple[int, bool | None]] = {}
        rfind = low.rfind
        for m in self.held.finditer(low, start, end):
            h = m.start()
            s = rfind(b"\n", start, h) + 1 or start
            e = m.end()
            lines[s] = (e, self._hit(buf, low, s, e, h))
        for m in self.in_subject.finditer(low, start, end):
            s = rfind(b"\n", start, m.start()) + 1 or start
            e = m.end()
            if lines.get(s, (e, None))[1] is not True:
                lines[s] = (e, None)
        starts = sorted(lines)
        found = list(map(lines.__getitem__, starts))
        text = text_layout_of(buf, start) or CONVO_TEXT
        objects = layout(buf, start, end, text)
        return TextBlock(starts, [f[0] for f in found], [f[1] for f in found], objects)

    def _hit(self, buf: bytes, low: bytes, s: int, e: int, h: int) -> bool | None:
        """The line ``buf[s:e]`` whose first hit of ``held`` starts at ``h``: True when the
        phrase is in its text array, False when no hit is (its subject aside), None:
        parse to know."""
        text = text_layout_of(buf, s)
        if text is None or not buf.endswith(b"}", s, e):
            return None
        r = self.first.chunks_end(buf, s, e, text)
        if r < 0:
            return None
        if h >= r:  # the first hit lies after the array: none is in it
            return False
        k = s + len(text.key)
        m = self.pattern.search(low, k, r)
        if m is None or low.find(b"\\", max(k, m.start() - 5), m.start()) >= 0:
            return None  # words across strings or escapes, or a hit in an escape's digits
        return True


# White space between a phrase's words, in the bytes of a JSON line (lower-cased): a
# character ``str.isspace()`` holds written raw (UTF-8) or escaped (``\\n``, ``\\u00a0``),
# or the end of a string and the start of a later one (with anything between them).
# ``tests/query/test_phrase_block.py`` checks the list against ``str.isspace``.
_SPACE = (
    rb"[\t-\r\x1c-\x1f ]|\\[nrtf]"
    rb"|\\u(?:000[9a-d]|001[c-f]|0020|0085|00a0|1680|200[0-9a]|202[89f]|205f|3000)"
    rb"|\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80"
)
_GAP = rb"(?:" + _SPACE + rb")*(?:\"[^\n]*\"(?:" + _SPACE + rb")*)?"


__all__ = ["TextPhrase"]
