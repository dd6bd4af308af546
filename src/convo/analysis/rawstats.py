"""Stats read from the raw bytes of convo's record layout, without parsing the lines.

``convo stats`` of a whole store used to parse every line with orjson to read five
fields; the parse alone cost more than DuckDB's whole GROUP BY. convo writes records as
``orjson.dumps(message.serialize())`` (``core/record.py``)::

    {"textChunks":[...],"metadata":{"speaker":...,"listeners":[...]},"tags":[...],
     "timestamp":"...","source_id":...,"id":"...","format":...,...}

``RawStats.block(block, n)`` counts a block of ``n`` lines in one regular-expression
pass (``findall``: the matched fields as tuples, no match objects) when every line is
in that layout; otherwise ``take(line)`` is asked line by line and a line it declines
is parsed (``convo.analysis.parallel.range_lines``). The counts are exactly those of
``Stats.add`` on the parsed records, because a line is counted only when its bytes
prove what ``orjson.loads`` and ``core.fields`` would read:

- It matches ``LINE`` whole: that layout, the timestamp in the canonical form (which
  ``fields.timestamp`` returns as it is), the keys after ``format`` string- or
  null-valued and none of them a key read before (orjson keeps the last of duplicates).
- Its block (else the line) holds no backslash, so no string holds an escape, every
  ``"`` delimits a string and ``"[^"]*"`` is exactly a string; no raw control byte
  (tab and CR included: JSON strings cannot hold them); and is valid UTF-8 (orjson
  rejects the line otherwise).
- A block is taken whole only when ``findall`` finds as many matches as it has lines:
  matches start at distinct line starts (each pattern begins with the newline before
  its line) and do not overlap, so each line is then one match.
- Words: the chunks' inside with ``","`` as a space is the chunks joined by a space;
  split as bytes it gives ``str.split``'s words unless it holds Unicode whitespace
  (``_WIDE``; then it is decoded first).

Tallies are kept by raw bytes (a store has few distinct speakers, tags and formats) and
become a ``Stats`` in ``to_stats``; a ``core.people.People`` maps each distinct speaker
there, as ``People.canonical_record`` maps a record's.
"""

from __future__ import annotations

import re
from typing import Any

from convo.analysis.stats import EPOCH_DAY, Stats, Tally, real_day
from convo.core.fields import NO_SPEAKER
from convo.query.canonical import has_control

_S = rb'"[^"]*"'  # a string, exactly, once the block holds no backslash
_LIST = rb"(?:" + _S + rb"(?:," + _S + rb")*)?"
_READ = rb'textChunks"|metadata"|tags"|timestamp"|format"'  # keys no later key may repeat
_FIELDS = (
    rb'\{"textChunks":\[(' + _LIST + rb')\],"metadata":\{"speaker":(' + _S + rb"|null),"
    rb'"listeners":\[' + _LIST + rb'\]\},"tags":\[(' + _LIST + rb")\],"
    rb'"timestamp":"((\d{4}-\d\d-\d\d)T\d\d:\d\d:\d\dZ)",'
    rb'"source_id":(?:' + _S + rb'|null),"id":' + _S + rb',"format":(' + _S + rb"|null)"
    rb'(?:,"(?!' + _READ + rb')[A-Za-z_]+":(?:' + _S + rb"|null))*\}"
)
LINE = re.compile(_FIELDS)  # one line (fullmatch)
_BLOCK = re.compile(rb"\n" + _FIELDS + rb"(?=\n)")  # every line of b"\n" + block
# Unicode whitespace beyond ASCII in UTF-8 (U+0085, U+00A0, U+1680, U+2000-U+200A,
# U+2028, U+2029, U+202F, U+205F, U+3000) by lead byte: the lead is looked for first
# (``bytes.find`` of one byte runs at memchr speed; a pattern, or ``in``, is slower).
_WIDE = (
    (b"\xc2", re.compile(rb"\xc2[\x85\xa0]")),
    (b"\xe1", re.compile(rb"\xe1\x9a\x80")),
    (b"\xe2", re.compile(rb"\xe2(?:\x80[\x80-\x8a\xa8\xa9\xaf]|\x81\x9f)")),
    (b"\xe3", re.compile(rb"\xe3\x80\x80")),
)
_NULL_NAMES = (b"null", b'""')  # what Stats.add counts as "(none)"
_EPOCH_DAY = EPOCH_DAY.encode()  # undated (see convo.analysis.stats)
_HI, _LO = b"~", b""  # above and below every canonical timestamp
_CACHE_MAX = 1 << 16


def clean(data: bytes) -> bool:
    """No backslash, no raw control byte but newlines, valid UTF-8."""
    if b"\\" in data or b"\t" in data or b"\r" in data or has_control(data):
        return False
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def wide_space(data: bytes) -> bool:
    """``data`` may hold whitespace beyond ASCII (see ``_WIDE``)."""
    if data.isascii():
        return False
    return any(data.find(lead) >= 0 and p.search(data) is not None for lead, p in _WIDE)


def words(chunks: bytes, wide: bool) -> int:
    """The words (``str.split``) of a chunks array (``"a b","c"``) that ``LINE`` matched
    in a clean block; ``wide``: it may hold Unicode whitespace."""
    joined = chunks[1:-1].replace(b'","', b" ")
    if wide and wide_space(joined):
        return len(joined.decode().split())
    return len(joined.split())  # bytes split on ASCII whitespace: a clean block has spaces only


def _new(table: dict[bytes, list[Any]], key: bytes) -> list[Any]:
    t = table[key] = [0, 0, _HI, _LO]  # messages, words, first, last
    return t


class RawStats:
    """Tallies of the lines counted from their bytes (see the module docstring)."""

    def __init__(self) -> None:
        self.total: list[Any] = [0, 0, _HI, _LO]
        self.undated = 0
        self.speakers: dict[bytes, list[Any]] = {}  # raw JSON values: b'"Ann"', b"null"
        self.formats: dict[bytes, list[Any]] = {}
        self.tags: dict[bytes, list[Any]] = {}  # the tags themselves
        self.days: dict[bytes, int] = {}
        self._tagsets: dict[bytes, tuple[list[Any], ...]] = {}  # array -> its tags' tallies
        self._clean = False  # the current block is clean
        self._wide = True  # the current block may hold Unicode whitespace

    def block(self, block: bytes, lines: int) -> bool:
        """Count a block of ``lines`` whole lines and say True, or say False: nothing
        was counted, ask ``take`` line by line."""
        self._clean = clean(block)
        self._wide = self._clean and wide_space(block)
        if not self._clean:
            return False
        found = _BLOCK.findall(b"\n" + block if block[-1:] == b"\n" else b"\n" + block + b"\n")
        if len(found) != lines:
            return False
        self._count(found, self._wide)
        return True

    def take(self, line: bytes) -> bool:
        """Count one line of the last block and say True, or say False: parse it."""
        m = LINE.fullmatch(line)
        if m is None or not (self._clean or clean(line)):
            return False
        wide = self._wide if self._clean else wide_space(line)
        self._count([m.groups()], wide)
        return True

    def _count(self, rows: list[tuple[bytes, ...]], wide: bool) -> None:
        """``Stats.add`` for ``LINE``'s groups of each line, on lists (``wide``: the
        lines may hold Unicode whitespace)."""
        total, speakers, formats, days = self.total, self.speakers, self.formats, self.days
        tagsets = self._tagsets
        for chunks, speaker, tags, ts, day, fmt in rows:
            # words(), inlined (the split is most of this loop)
            n = words(chunks, True) if wide else len(chunks[1:-1].replace(b'","', b" ").split())
            tallies = [
                total,
                speakers.get(speaker) or _new(speakers, speaker),
                formats.get(fmt) or _new(formats, fmt),
            ]
            if tags:
                tallies.extend(tagsets.get(tags) or self._tag_tallies(tags))
            seen = days.get(day)
            if seen is None and (day == _EPOCH_DAY or not real_day(day.decode())):
                self.undated += 1  # as Stats.add: no first, last or timeline
                for t in tallies:
                    t[0] += 1
                    t[1] += n
                continue
            days[day] = (seen or 0) + 1
            for t in tallies:
                t[0] += 1
                t[1] += n
                if ts < t[2]:
                    t[2] = ts
                if ts > t[3]:
                    t[3] = ts

    def _tag_tallies(self, tags: bytes) -> tuple[list[Any], ...]:
        """The tallies of the distinct tags of a tags array's inside (remembered)."""
        if len(self._tagsets) >= _CACHE_MAX:
            self._tagsets.clear()
        table = self.tags
        found = tuple(
            table.get(t) or _new(table, t) for t in dict.fromkeys(tags[1:-1].split(b'","'))
        )
        self._tagsets[tags] = found
        return found

    def to_stats(self, people: Any = None) -> Stats:
        """The tallies as a ``Stats`` (speakers as their persons' names with ``people``)."""
        stats = Stats(total=_as_tally(self.total), undated=self.undated)
        for key, t in self.speakers.items():
            name = "" if key in _NULL_NAMES else key[1:-1].decode()
            if people is not None and name:
                name = people.canonical(name)
            _merge(stats.speakers, name or NO_SPEAKER, t)
        for key, t in self.formats.items():
            _merge(stats.formats, "(none)" if key in _NULL_NAMES else key[1:-1].decode(), t)
        for key, t in self.tags.items():
            _merge(stats.tags, key.decode(), t)
        stats.days = {day.decode(): n for day, n in self.days.items()}
        return stats


def _merge(table: dict[str, Tally], name: str, t: list[Any]) -> None:
    tally = _as_tally(t)
    have = table.get(name)
    if have is None:
        table[name] = tally
    else:
        have.merge(tally)


def _as_tally(t: list[Any]) -> Tally:
    first = t[2].decode() if t[2] != _HI else None
    last = t[3].decode() if t[3] != _LO else None
    return Tally(t[0], t[1], first, last)
