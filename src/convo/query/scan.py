"""Filtering records: decide on raw bytes when possible, parse only what may match.

A filter that names a word (speaker, listener, tag, text) first checks whether that word
occurs in the raw line at all, ignoring ASCII case; a line without it cannot match and
is never parsed. Lines containing ``\\u`` escapes are always parsed, since the word may
be spelled with escapes there. Lines that pass are parsed with orjson and checked exactly.
Matching lines are returned with their original bytes, for pass-through output.

Semantics (DESIGN.md §2): repeating one filter ORs, different filters AND.
- ``speaker``/``listener``: case-insensitive match of the whole name, its display name,
  its address, or a run of whole words in it (``Alice`` matches ``Alice Smith
  <alice@x.org>`` and ``alice@x.org``, not ``Alicia``).
- ``tag``: case-insensitive equality with one of the message's tags.
- ``since``/``until``: ``since <= timestamp < until`` (until is exclusive).
- ``text``: every word of the value occurs in the text or subject (case-insensitive
  substring, so ``auth`` finds ``authentication``).
- ``regex``: Python regular expression searched in the text and subject.
- ``thread``: the message's ``thread`` equals the value, or its ``id`` does (the root).

Speed (the store is read in 1 MiB blocks without copies, never as line objects):
- Word filters: the block is lower-cased once (ASCII only) and the needles (the longest
  ASCII word of each value; for a tag the whole quoted JSON string) are found with a
  literal regex. Only lines holding a hit, a ``\\u`` escape, or one of the few non-ASCII
  letters whose case fold is ASCII (``ß``, ``ſ``, the Kelvin sign, ligatures...; only
  those that can spell the needle) are looked at further: other kinds' needles, the raw
  ``"speaker":"..."`` value when unambiguous, the raw time, then an orjson parse and the
  exact checks. A needle JSON would escape (``"``, ``\\``, controls) disables the
  prefilter for its kind. Lines are not counted in this scan of a regular file: an error
  is located by a second reader (``_LineLocator``) and matches carry line 0.
- ``--since``/``--until``: the raw ``"timestamp":"...Z"`` value is compared as bytes. When
  time is the only filter and the output is the original line (jsonl/json), a line whose
  raw timestamp decides it is passed through without a parse; it must look like an object
  (``{...}``). Decision: such a line is not validated further (``convo validate`` does),
  and a record whose only ``"timestamp"`` key is nested is judged by that key.
- Everything else is parsed with orjson and checked exactly; matches keep their bytes.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from convo.core import fields
from convo.core.io import BOM
from convo.core.jsonl import Line

_WORD = re.compile(r"\w+")
_FAST_TS = re.compile(rb'"timestamp":\s*"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"')
# A timestamp value fields.timestamp() would take as it is: 20 ASCII characters ending in Z.
_RAW_TS = re.compile(rb'"timestamp":\s*"([^"\\\x00-\x1f\x80-\xff]{19}Z)"')
BLOCK = 1 << 20
# Raw control bytes a JSON line cannot hold (tab, LF and CR may stand between tokens);
# one memchr per byte value is ~10x faster than a character-class regex over a block.
_RAW_CONTROL = tuple(bytes([c]) for c in range(0x20) if c not in (0x09, 0x0A, 0x0D))
# Lines holding these may spell an ASCII word differently: JSON escapes, and the only
# non-ASCII characters whose case fold contains ASCII letters (tests/test_query.py checks
# the list against unicodedata): ß İ ŉ ſ ǰ ẖ-ẚ ẞ K ﬀ-ﬆ.
CASEFOLD_ASCII = (
    "\u00df\u0130\u0149\u017f\u01f0\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9e\u212a"
    + "".join(chr(c) for c in range(0xFB00, 0xFB07))
)
_TRIGGER_CHARS = tuple(c.encode() for c in CASEFOLD_ASCII)
_ASCII = bytes(range(128))
_JSON_ESCAPED = re.compile(rb'["\\/\x00-\x1f]')  # characters JSON may write escaped


@dataclass
class Filters:
    speakers: list[str] = field(default_factory=list)
    listeners: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    since: str | None = None  # a record timestamp string (see timestamps.parse_when)
    until: str | None = None
    texts: list[str] = field(default_factory=list)
    regexes: list[str] = field(default_factory=list)
    threads: list[str] = field(default_factory=list)
    limit: int | None = None
    reverse: bool = False

    def is_empty(self) -> bool:
        return not (
            self.speakers or self.listeners or self.tags or self.since or self.until
            or self.texts or self.regexes or self.threads
        )  # fmt: skip


class Match:
    """A selected record: its line (for pass-through), where it came from, and the parsed dict.

    ``record`` is parsed on first use when the selector passed the line through unparsed.
    """

    __slots__ = ("_record", "line", "name", "raw")

    def __init__(self, raw: bytes, record: dict[str, Any] | None, name: str, line: int = 0):
        self.raw = raw
        self._record = record
        self.name = name
        self.line = line

    @property
    def where(self) -> str:
        return f"{self.name}:{self.line}" if self.line else self.name

    @property
    def record(self) -> dict[str, Any]:
        if self._record is None:
            from convo.core.jsonl import parse_line

            self._record = parse_line(Line(self.line, self.raw), self.name)
        return self._record


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def split_name(value: str) -> tuple[str, str]:
    """``"Alice Smith <alice@x.org>"`` -> (``"Alice Smith"``, ``"alice@x.org"``)."""
    value = value.strip()
    if value.endswith(">") and "<" in value:
        i = value.rfind("<")
        return value[:i].strip().strip('"').strip(), value[i + 1 : -1].strip()
    if "@" in value and " " not in value:
        return "", value
    return value, ""


class NameQuery:
    """One ``--speaker``/``--listener`` value, matched by DESIGN.md's name rule."""

    def __init__(self, query: str):
        self.query = query.strip()
        self.folded = self.query.casefold()
        self.tokens = words(self.query)

    def matches(self, value: str | None) -> bool:
        if not value:
            return False
        folded = value.casefold()
        if folded == self.folded:
            return True
        # Every other way to match puts each query word in the folded value: a cheap no.
        for t in self.tokens:
            if t not in folded:
                return False
        display, address = split_name(value)
        if self.folded in (display.casefold(), address.casefold()):
            return True
        if not self.tokens:
            return False
        vt = words(value)
        n = len(self.tokens)
        first = self.tokens[0]
        return any(vt[i] == first and vt[i : i + n] == self.tokens for i in range(len(vt) - n + 1))


def _ascii_needle(word: str) -> bytes | None:
    """The raw bytes a word has in any line holding it, or None when JSON may escape it."""
    if not word or not word.isascii() or _JSON_ESCAPED.search(word.encode()):
        return None
    return word.lower().encode()


def _alternation(needles: list[bytes]) -> re.Pattern[bytes] | None:
    if not needles:
        return None
    return re.compile(b"|".join(re.escape(n) for n in needles), re.IGNORECASE)


class Selector:
    """A compiled ``Filters``: ``select(lines)`` yields the matching records."""

    def __init__(self, filters: Filters):
        self.filters = filters
        self.speakers = [NameQuery(s) for s in filters.speakers]
        self.listeners = [NameQuery(s) for s in filters.listeners]
        self.tags = {t.casefold() for t in filters.tags}
        self.texts = [words(t) for t in filters.texts]
        self.text_terms = [[t.casefold() for t in q.split()] for q in filters.texts]
        try:
            self.regexes = [re.compile(r) for r in filters.regexes]
        except re.error as e:
            from convo.core.errors import UsageError

            raise UsageError(
                f"bad --regex ({e})", hint="use Python regular expression syntax"
            ) from None
        self.since = filters.since
        self.until = filters.until
        self.threads = set(filters.threads)
        self.block_size = BLOCK
        # Per filter kind: its needles (lower-case ASCII), whether they match as substrings
        # (text) or whole words/tags, and which kind (0 speaker, 1 listener, 2 tag, 3 text).
        self._needles: list[list[bytes]] = []
        self._substring: list[bool] = []
        self._kinds: list[int] = []
        self._prefilters = self._build_prefilters()
        # What makes a line a candidate in the block scan: a needle of the first kind, a
        # \u escape, or a case-fold letter that could spell one of that needle's letters.
        first = self._needles[0] if self._needles else []
        self._starts = first
        # Searched from each needle's rarest letter on: the regex skips to that letter
        # with memchr, so a rare first byte scans fastest. Hits are checked per line.
        self._search = sorted({_from_rarest(n) for n in first})
        self._start_re = _literals(self._search) if first else None
        self._verify = set(self._search) != set(first)
        self._respell = [
            t for t in _TRIGGER_CHARS
            if any(_may_spell(t.decode().casefold(), n.decode(), self._substring[0]) for n in first)
        ]  # fmt: skip
        self._checks = self._build_checks()
        # Time is the only filter: a clean raw timestamp decides the line without a parse.
        self._time_only = (
            bool(since_or_until := (self.since or self.until)) and len(self._checks) == 1
        )
        self._timed = bool(since_or_until)
        self._since_b = self.since.encode() if self.since else None
        self._until_b = self.until.encode() if self.until else None

    def _build_prefilters(self) -> list[re.Pattern[bytes]]:
        """One pattern per filter kind; a line must contain a hit of each to be parsed."""
        pats: list[re.Pattern[bytes]] = []

        def longest_word_needles(groups: list[list[str]]) -> list[bytes] | None:
            needles = []
            for g in groups:
                if not g:
                    return None  # a value without words: no prefilter for this kind
                n = _ascii_needle(max(g, key=len))
                if n is None:
                    return None
                needles.append(n)
            return needles

        for kind, groups in enumerate(
            (
                [q.tokens for q in self.speakers],
                [q.tokens for q in self.listeners],
                [[t] for t in self.tags],
                [max(t, key=len, default="").split() for t in self.text_terms]
                if self.texts
                else [],
            )
        ):
            if groups:
                needles = longest_word_needles(groups)
                if kind == 2 and needles:
                    # A tag equals the value: its raw form is the whole JSON string.
                    needles = [b'"' + n + b'"' for n in needles]
                pat = _alternation(needles) if needles else None
                if pat is not None and needles:
                    pats.append(pat)
                    self._needles.append(sorted(set(needles)))
                    self._substring.append(groups is not None and kind == 3)
                    self._kinds.append(kind)
        return pats

    def _build_checks(self) -> list[Callable[[dict[str, Any]], bool]]:
        checks: list[Callable[[dict[str, Any]], bool]] = []
        if self.speakers:
            checks.append(lambda r: any(q.matches(fields.speaker(r)) for q in self.speakers))
        if self.listeners:
            checks.append(
                lambda r: any(q.matches(v) for v in fields.listeners(r) for q in self.listeners)
            )
        if self.tags:
            checks.append(
                lambda r: any(
                    isinstance(t, str) and t.casefold() in self.tags for t in r.get("tags") or ()
                )
            )
        if self.since or self.until:
            checks.append(self._time_ok)
        if self.text_terms:
            checks.append(self._text_ok)
        if self.regexes:
            checks.append(lambda r: any(p.search(fields.searchable_text(r)) for p in self.regexes))
        if self.threads:
            checks.append(lambda r: r.get("thread") in self.threads or r.get("id") in self.threads)
        return checks

    def _time_ok(self, record: dict[str, Any]) -> bool:
        return self._ts_ok(fields.timestamp(record))

    def _ts_ok(self, ts: str) -> bool:
        if self.since and ts < self.since:
            return False
        return not (self.until and ts >= self.until)

    def _text_ok(self, record: dict[str, Any]) -> bool:
        # No term holds whitespace, so "in subject + newline + chunks" is "in one of them":
        # each piece is folded and searched on its own, without building the joined text.
        chunks = record.get("textChunks")
        if chunks is None:
            chunks = record.get("text_chunks") or ()
        subject = record.get("subject")
        pieces = [subject, *chunks] if subject else chunks
        terms = self.text_terms
        if len(terms) == 1 and len(terms[0]) == 1:
            # One word (the common case): lower() first. A non-ASCII character whose
            # lower() holds ASCII has the same casefold() (tests check this), so a hit in
            # lower() is a hit; casefold() is needed only for pieces with no such hit.
            term = terms[0][0]
            strs = [p for p in pieces if isinstance(p, str)]
            for p in strs:
                if term in p.lower():
                    return True
            return any(term in p.casefold() for p in strs if not p.isascii())
        folded = [p.casefold() for p in pieces if isinstance(p, str)]
        return any(all(any(t in f for f in folded) for t in ts) for ts in terms)

    def raw_may_match(self, raw: bytes) -> bool:
        """False only when the line certainly does not match (no parse needed)."""
        if not self._prefilters and not self._timed:
            return True
        if self._prefilters and not _may_respell(raw):
            for p in self._prefilters:
                if p.search(raw) is None:
                    return False
        return not (self._timed and self._raw_time(raw) is False)

    def _raw_time(self, raw: bytes, single: bool = False) -> bool | None:
        """The time filters decided on the raw timestamp: True/False, or None (parse to know)."""
        m = _RAW_TS.search(raw)
        if m is None or not (single or raw.count(b'"timestamp"') == 1):
            return None
        ts = m.group(1)
        if self._since_b is not None and ts < self._since_b:
            return False
        return not (self._until_b is not None and ts >= self._until_b)

    def matches(self, record: dict[str, Any]) -> bool:
        return all(check(record) for check in self._checks)

    def select(self, lines: Iterable[tuple[Line, str]], on_error=None) -> Iterator[Match]:
        """Matching records from ``(line, source name)`` pairs, limit and order applied."""
        return self._limit(self._select(lines, on_error))

    def select_parts(self, parts: Iterable[Any], on_error=None, *, need_record=True):
        """Matching records from ``inputs.record_parts``, limit and order applied."""
        return self._limit(m for batch in self.batches(parts, on_error, need_record) for m in batch)

    def batches(
        self, parts: Iterable[Any], on_error=None, need_record: bool = True
    ) -> Iterator[list[Match]]:
        """Lists of matches (no limit or order): raw sources are scanned in blocks.

        ``need_record=False`` lets a line decided on raw bytes pass without a parse.
        """
        for part in parts:
            if hasattr(part, "open"):  # a raw JSONL source
                # Needle scans of a file that can be read again skip counting lines:
                # the few lines that need a number (errors) are located on demand.
                lazy = bool(self._needles) and getattr(part, "reopenable", False)
                locator = _LineLocator(part.open) if lazy else None
                with part.open() as stream:
                    first = 1
                    for buf, start, end, torn, at in iter_spans(stream, self.block_size):
                        locate = (
                            (lambda i, at=at, lc=locator: lc.line_at(at + i)) if locator else None
                        )
                        out, lines = self._scan_block(
                            buf, start, end, first, torn, part.name, on_error, need_record,
                            locate,
                        )  # fmt: skip
                        first += lines
                        yield out
                if locator is not None:
                    locator.close()
            else:
                batch: list[Match] = []
                for m in self._select(part, on_error):
                    batch.append(m)
                    if len(batch) >= 1000:
                        yield batch
                        batch = []
                if batch:
                    yield batch

    def _limit(self, out: Iterator[Match]) -> Iterator[Match]:
        limit = self.filters.limit
        if limit is not None and limit <= 0:
            return
        if self.filters.reverse:
            buf: deque[Match] = deque(out, maxlen=limit)
            while buf:
                yield buf.pop()
            return
        if limit is None:
            yield from out
            return
        if limit <= 0:
            return
        for i, m in enumerate(out, 1):
            yield m
            if i >= limit:
                return

    def _select(self, lines: Iterable[tuple[Line, str]], on_error) -> Iterator[Match]:
        from convo.core.errors import RecordError
        from convo.core.jsonl import parse_line

        may = self.raw_may_match
        checks = self._checks
        for line, name in lines:
            if not may(line.raw):
                continue
            try:
                record = parse_line(line, name)
            except RecordError as e:
                if on_error is not None:
                    on_error(e, line)
                continue
            if all(c(record) for c in checks):
                yield Match(line.raw, record, name, line.number)

    # -- block scanning ---------------------------------------------------------------

    def _scan_block(
        self,
        buf: bytes,
        start: int,
        end: int,
        first: int,
        torn: bool,
        name: str,
        on_error,
        need_record: bool,
        locate=None,
    ) -> tuple[list[Match], int]:
        """Matches in ``buf[start:end]``, and the number of lines it held (for the next)."""
        if self._needles:
            return self._scan_needles(buf, start, end, first, torn, name, on_error, locate)
        block = buf[start:end] if start or end != len(buf) else buf
        return self._scan_lines(block, first, torn, name, on_error, need_record)

    def _parse(self, raw: bytes, number: int, torn: bool, name: str, on_error):
        from convo.core.errors import RecordError
        from convo.core.jsonl import parse_line

        try:
            record = parse_line(Line(number, raw, torn), name)
        except RecordError as e:
            if on_error is not None:
                on_error(e, Line(number, raw, torn))
            return None
        return record if all(c(record) for c in self._checks) else None

    def _scan_lines(
        self, block: bytes, first: int, torn: bool, name: str, on_error, need_record: bool
    ) -> tuple[list[Match], int]:
        """Every line of the block; time filters first on the raw bytes."""
        lines = block.split(b"\n")
        if lines and not lines[-1]:
            lines.pop()
        if self._time_only and not need_record and b"\r" not in block:
            out = self._pass_through(lines, block, first, torn, name)
            if out is not None:
                return out, len(lines)
        out: list[Match] = []
        append = out.append
        last = len(lines) - 1
        crlf = b"\r" in block
        timed = self._timed
        checks = self._checks
        loads = orjson.loads
        for i, raw in enumerate(lines):
            if crlf:
                raw = raw.rstrip(b"\r")
            if timed and self._raw_time(raw) is False:
                continue
            try:
                record = loads(raw)
            except orjson.JSONDecodeError:
                record = None
            if type(record) is not dict:  # blank, bad or not an object: the careful path
                if not raw.strip():
                    continue
                record = self._parse(raw, first + i, torn and i == last, name, on_error)
                if record is not None:
                    append(Match(raw, record, name, first + i))
                continue
            for c in checks:
                if not c(record):
                    break
            else:
                append(Match(raw, record, name, first + i))
        return out, len(lines)

    def _pass_through(
        self, lines: list[bytes], block: bytes, first: int, torn: bool, name: str
    ) -> list[Match] | None:
        """Time is the only filter and lines go out as they are: decide on raw timestamps.

        Optimistic and without side effects: None (the block takes the careful path) as
        soon as a line has no clean raw timestamp, is not shaped ``{...}`` or is a torn
        last line, and when the block does not hold exactly one ``"timestamp"`` per line.
        """
        if any(c in block for c in _RAW_CONTROL):
            return None  # raw control bytes cannot be valid JSON: parse, reject and count
        search = _RAW_TS.search
        since, until = self._since_b, self._until_b
        out: list[Match] = []
        append = out.append
        found = 0
        last = len(lines) - 1
        for i, raw in enumerate(lines):
            m = search(raw)
            if m is None or raw[:1] != b"{" or raw[-1:] != b"}" or (torn and i == last):
                if not raw.strip():
                    continue
                return None
            found += 1
            ts = m.group(1)
            if (since is not None and ts < since) or (until is not None and ts >= until):
                continue
            append(Match(raw, None, name, first + i))
        if found != block.count(b'"timestamp"'):
            return None
        return out

    def _scan_needles(
        self,
        block: bytes,
        start: int,
        end: int,
        first: int,
        torn: bool,
        name: str,
        on_error,
        locate=None,
    ) -> tuple[list[Match], int]:
        """Only lines holding a needle of the first kind (or a respelling) are looked at.

        With ``locate`` (index in ``block`` -> line number) lines are not counted: matches
        get line 0 and errors ask ``locate``; the returned line count is then 0.
        """
        low = block.lower()
        # Two-byte finds are slow (no memchr): look for escapes only when a backslash
        # occurs, and for case-fold letters in the block's non-ASCII bytes only.
        extra = []
        if b"\\" in low and b"\\u" in low:
            extra.append(b"\\u")
        if self._respell and not block.isascii():
            rest = block.translate(None, _ASCII)
            extra.extend(t for t in self._respell if t in rest)
        # A literal regex finds faster than bytes.find here (it skips with memchr).
        pattern = self._start_re if not extra else _literals([*self._search, *extra])
        starts = self._starts
        verify = self._verify or bool(extra)
        ends: dict[int, int] = {}
        e = -1
        for m in pattern.finditer(low, start, end):
            p = m.start()
            if p < e:
                continue  # another hit on a line already taken
            s = low.rfind(b"\n", start, p) + 1 or start
            e = low.find(b"\n", p, end)
            if e < 0:
                e = end
            if verify:
                line = low[s:e]
                if not any(n in line for n in starts) and not _may_respell(line):
                    continue
            ends[s] = e
        out: list[Match] = []
        others = self._needles[1:]
        speaker_needles = self._needles[0] if self._kinds[0] == 0 else None
        timed = self._timed
        checks = self._checks
        loads = orjson.loads
        line_no, pos = first, start
        count = low.count
        for s, e in ends.items():
            if locate is None:
                line_no += count(b"\n", pos, s)
                pos = s
            else:
                line_no = 0
            if others:
                lowline = low[s:e]
                if not _may_respell(lowline) and not all(
                    any(n in lowline for n in kind) for kind in others
                ):
                    continue
            if speaker_needles is not None and not _speaker_may_match(low, s, e, speaker_needles):
                continue
            raw = block[s:e]
            if raw[-1:] == b"\r":
                raw = raw.rstrip(b"\r")
            if timed and self._raw_time(raw) is False:
                continue
            try:
                record = loads(raw)
            except orjson.JSONDecodeError:
                record = None
            if type(record) is not dict:  # blank, bad or not an object: the careful path
                if not raw.strip():
                    continue
                number = line_no or locate(s)
                record = self._parse(raw, number, torn and e == end, name, on_error)
                if record is not None:
                    out.append(Match(raw, record, name, line_no))
                continue
            for c in checks:
                if not c(record):
                    break
            else:
                out.append(Match(raw, record, name, line_no))
        if locate is not None:
            return out, 0
        return out, line_no - first + count(b"\n", pos, end)


def _speaker_may_match(low: bytes, s: int, e: int, needles: list[bytes]) -> bool:
    """False when the line's one raw ``"speaker":"..."`` value holds no needle.

    Inside JSON strings every quote is escaped, so ``"speaker":"`` is a key; with one
    such key and no backslash in its value the raw value is the speaker (or, when it is
    not metadata's, the record has no speaker to match). Anything else: maybe.
    """
    k = low.find(b'"speaker":"', s, e)
    if k < 0 or low.find(b'"speaker":', k + 1, e) >= 0:
        return True
    q = low.find(b'"', k + 11, e)
    value = low[k + 11 : q]
    if q < 0 or b"\\" in value or _may_respell(value):
        return True
    return any(n in value for n in needles)


# Letters from most to least frequent in English text; anything else counts as common.
_FREQ = {c: i for i, c in enumerate(b"etaoinsrhldcumfpgwybvkxjqz")}


def _from_rarest(needle: bytes) -> bytes:
    """The needle from its rarest letter on (a substring, so every hit line is found)."""
    i = max(range(len(needle)), key=lambda k: _FREQ.get(needle[k], -1))
    return needle[i:] if len(needle) - i >= 3 or len(needle) < 3 else needle[-3:]


def _literals(needles: list[bytes]) -> re.Pattern[bytes]:
    return re.compile(b"|".join(re.escape(n) for n in needles))


def _may_spell(folded: str, needle: str, substring: bool) -> bool:
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


def _may_respell(raw: bytes) -> bool:
    """The line may spell an ASCII word another way: an escape or a case-fold letter."""
    if b"\\u" in raw:
        return True
    return not raw.isascii() and any(t in raw for t in _TRIGGER_CHARS)


class _LineLocator:
    """Line numbers of stream offsets, counted on demand from a second reader.

    Offsets are asked for in increasing order (errors come in file order), so the whole
    file is read at most once more however many errors there are.
    """

    def __init__(self, opener):
        self.opener = opener
        self.stream = None
        self.at = 0
        self.line = 1

    def line_at(self, offset: int) -> int:
        if self.stream is None or offset < self.at:
            self.close()
            self.stream, self.at, self.line = self.opener(), 0, 1
        while self.at < offset:
            chunk = self.stream.read(min(BLOCK, offset - self.at))
            if not chunk:
                break
            self.line += chunk.count(b"\n")
            self.at += len(chunk)
        return self.line

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None


def iter_spans(stream, size: int = BLOCK) -> Iterator[tuple[bytes, int, int, bool, int]]:
    """``(buf, start, end, torn, offset)``: ``buf[start:end]`` is whole lines, BOM removed.

    Big reads are not copied: the line cut by the end of the previous read is yielded on
    its own (joined with its tail), then the rest of the read as a span. ``torn`` marks
    a final line without a newline; ``offset`` is where ``buf`` starts in the stream.
    """
    carry = b""
    carry_at = 0
    at = 0  # stream offset of the next read
    head = True
    while True:
        data = stream.read(size)
        if not data:
            break
        if head:
            head = False
            while len(data) < len(BOM) and (more := stream.read(size)):
                data += more  # tiny reads: see the whole BOM before removing it
            if data.startswith(BOM):
                data = data[3:]
                at = 3
        data_at = at
        at += len(data)
        cut = data.rfind(b"\n")
        if cut < 0:
            if not carry:
                carry_at = data_at
            carry += data
            continue
        start = 0
        if carry:
            nl = data.find(b"\n")
            piece = carry + data[: nl + 1]
            yield piece, 0, len(piece), False, carry_at
            start = nl + 1
        if start <= cut:
            yield data, start, cut + 1, False, data_at
        carry = data[cut + 1 :]
        carry_at = data_at + cut + 1
    if carry:
        yield carry, 0, len(carry), True, carry_at


def iter_blocks(
    stream, size: int = BLOCK, *, count: bool = True
) -> Iterator[tuple[bytes, int, bool]]:
    """``(block, number of its first line, torn)``: whole lines, BOM removed.

    Every block but a torn last one ends with a newline; ``torn`` marks a final line that
    has none (an interrupted write, or just a missing newline). ``count=False`` leaves
    line numbers to the caller (the number is then always 0), saving a pass.
    """
    carry = b""
    number = 1
    start = True
    while True:
        data = stream.read(size)
        if not data:
            break
        if start:
            start = False
            if data.startswith(BOM):
                data = data[3:]
        buf = carry + data if carry else data
        cut = buf.rfind(b"\n")
        if cut < 0:
            carry = buf
            continue
        block, carry = buf[: cut + 1], buf[cut + 1 :]
        yield block, number, False
        if count:
            number += block.count(b"\n")
    if carry:
        yield carry, number, True


def select(records: Iterable[dict[str, Any]], filters: Filters) -> Iterator[dict[str, Any]]:
    """Library form: filter already-parsed records (or ``serialize()`` dicts)."""
    sel = Selector(filters)
    matched = (r for r in records if sel.matches(r))
    limit = filters.limit
    if limit is not None and limit <= 0:
        return
    if filters.reverse:
        buf: deque[dict[str, Any]] = deque(matched, maxlen=limit)
        while buf:
            yield buf.pop()
        return
    for i, r in enumerate(matched, 1):
        yield r
        if limit is not None and i >= limit:
            return
