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
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .jsonl import Line
from .timestamps import normalize_timestamp

_WORD = re.compile(r"\w+")
_FAST_TS = re.compile(rb'"timestamp":\s*"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"')


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


@dataclass(slots=True)
class Match:
    """A selected record: its line (for pass-through), where it came from, and the parsed dict."""

    raw: bytes
    record: dict[str, Any]
    where: str


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
        display, address = split_name(value)
        if self.folded in (display.casefold(), address.casefold()):
            return True
        if not self.tokens:
            return False
        vt = words(value)
        n = len(self.tokens)
        first = self.tokens[0]
        return any(vt[i] == first and vt[i : i + n] == self.tokens for i in range(len(vt) - n + 1))


def record_text(record: dict[str, Any]) -> str:
    chunks = record.get("textChunks")
    if chunks is None:
        chunks = record.get("text_chunks") or []
    text = "\n".join(c for c in chunks if isinstance(c, str))
    subject = record.get("subject")
    return f"{subject}\n{text}" if isinstance(subject, str) and subject else text


def _meta(record: dict[str, Any]) -> dict[str, Any]:
    meta = record.get("metadata")
    return meta if isinstance(meta, dict) else {}


def record_speaker(record: dict[str, Any]) -> str | None:
    s = _meta(record).get("speaker")
    return s if isinstance(s, str) else None


def record_listeners(record: dict[str, Any]) -> list[str]:
    meta = _meta(record)
    ls = meta.get("listeners")
    if ls is None:
        ls = meta.get("recipients")
    return [x for x in ls if isinstance(x, str)] if isinstance(ls, list) else []


def record_timestamp(record: dict[str, Any]) -> str:
    ts = record.get("timestamp")
    if isinstance(ts, str) and len(ts) == 20 and ts.endswith("Z"):
        return ts
    try:
        return normalize_timestamp(ts if isinstance(ts, str) else None)
    except ValueError:
        return "1970-01-01T00:00:00Z"


def _ascii_needle(word: str) -> bytes | None:
    return word.encode() if word.isascii() and word else None


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
            from .errors import UsageError

            raise UsageError(
                f"bad --regex ({e})", hint="use Python regular expression syntax"
            ) from None
        self.since = filters.since
        self.until = filters.until
        self.threads = set(filters.threads)
        self._prefilters = self._build_prefilters()
        self._checks = self._build_checks()

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

        for groups in (
            [q.tokens for q in self.speakers],
            [q.tokens for q in self.listeners],
            [[t] for t in self.tags],
            [max(t, key=len, default="").split() for t in self.text_terms] if self.texts else [],
        ):
            if groups:
                needles = longest_word_needles(groups)
                pat = _alternation(needles) if needles else None
                if pat is not None:
                    pats.append(pat)
        return pats

    def _build_checks(self) -> list[Callable[[dict[str, Any]], bool]]:
        checks: list[Callable[[dict[str, Any]], bool]] = []
        if self.speakers:
            checks.append(lambda r: any(q.matches(record_speaker(r)) for q in self.speakers))
        if self.listeners:
            checks.append(
                lambda r: any(q.matches(v) for v in record_listeners(r) for q in self.listeners)
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
            checks.append(lambda r: any(p.search(record_text(r)) for p in self.regexes))
        if self.threads:
            checks.append(lambda r: r.get("thread") in self.threads or r.get("id") in self.threads)
        return checks

    def _time_ok(self, record: dict[str, Any]) -> bool:
        return self._ts_ok(record_timestamp(record))

    def _ts_ok(self, ts: str) -> bool:
        if self.since and ts < self.since:
            return False
        return not (self.until and ts >= self.until)

    def _text_ok(self, record: dict[str, Any]) -> bool:
        text = record_text(record).casefold()
        return any(all(t in text for t in terms) for terms in self.text_terms)

    def raw_may_match(self, raw: bytes) -> bool:
        """False only when the line certainly does not match (no parse needed)."""
        if not self._prefilters and not (self.since or self.until):
            return True
        if b"\\u" not in raw:
            for p in self._prefilters:
                if p.search(raw) is None:
                    return False
        if (self.since or self.until) and raw.count(b'"timestamp"') == 1:
            m = _FAST_TS.search(raw)
            if m is not None and not self._ts_ok(m.group(1).decode()):
                return False
        return True

    def matches(self, record: dict[str, Any]) -> bool:
        return all(check(record) for check in self._checks)

    def select(self, lines: Iterable[tuple[Line, str]], on_error=None) -> Iterator[Match]:
        """Matching records from ``(line, source name)`` pairs, limit and order applied."""
        out = self._select(lines, on_error)
        limit = self.filters.limit
        if self.filters.reverse:
            buf: deque[Match] = deque(out, maxlen=limit) if limit else deque(out)
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
        from .errors import RecordError
        from .jsonl import parse_line

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
                yield Match(line.raw, record, f"{name}:{line.number}")


def select(records: Iterable[dict[str, Any]], filters: Filters) -> Iterator[dict[str, Any]]:
    """Library form: filter already-parsed records (or ``serialize()`` dicts)."""
    sel = Selector(filters)
    matched = (r for r in records if sel.matches(r))
    limit = filters.limit
    if filters.reverse:
        buf: deque[dict[str, Any]] = deque(matched, maxlen=limit) if limit else deque(matched)
        while buf:
            yield buf.pop()
        return
    for i, r in enumerate(matched, 1):
        yield r
        if limit is not None and i >= limit:
            return
