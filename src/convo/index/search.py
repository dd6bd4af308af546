"""Ranked full-text search: FTS5 over subject and text, BM25 (subject weighs double).

Query syntax is FTS5's: words (all must occur), ``"a phrase"``, ``prefix*``, ``OR``,
``NOT``, ``NEAR(a b, 10)``, parentheses, ``subject:word``. CJK runs in the query are
split into characters as the indexed text was (``rows.space_cjk``), a bare run becoming
a phrase, so ``東京`` finds ``東京タワーへ行く``. A syntax error is one ``UsageError``.

The FTS table is contentless (the text lives in the JSONL only), so snippets are cut
here from the record: a window of words around the first hit, hits marked.
"""

from __future__ import annotations

import os
import re
import sqlite3
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from convo.core import fields
from convo.core.errors import UsageError
from convo.index import schema
from convo.index.lookup import Reader, read_spans, reader
from convo.index.rows import has_cjk, parse, space_cjk
from convo.index.state import Track, refresh

HINT = 'FTS5 syntax: words, "a phrase", prefix*, a OR b, a NOT b, NEAR(a b, 10)'
# A quoted string, or a run of word characters and non-ASCII ones: the class is written
# as its ASCII complement, which compiles in microseconds (the same set as
# ``[\w\u0080-\U0010ffff]``; tests/index/test_search.py checks every code point).
WORDISH = r"[^\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]"
_QUOTED_OR_WORD = re.compile(rf'"(?:[^"]|"")*"|{WORDISH}+')
_OPERATORS = {"AND", "OR", "NOT", "NEAR"}
_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")
SNIPPET_WORDS = 24
RANKED = 10_000  # matches ranked by BM25 at most: the most recent ones (see _hits)
# The candidates' condition on ``messages m`` and its parameters, made on the open index
# (``convo.query.plan`` compiles a query's filters to it); "1": every message.
Narrow = Callable[[sqlite3.Connection], tuple[str, tuple[Any, ...]]]
# FTS5 merges the doclists of OR'd terms and BM25 scores every term for every match, so
# the time grows with the square of the terms (1,000 OR'd words: seconds on 8,000
# messages; 100 take a tenth of a second). A longer query is refused with these numbers.
MAX_TERMS = 100
MAX_QUERY_CHARS = 4_000


class Hit:
    """A search result: the original line, its record, score (higher is better: BM25,
    cosine similarity or the fused score), a snippet as ``(text, is_hit)`` pieces
    (untrusted text: escape before a terminal), and why it matched: ``keyword``,
    ``meaning`` or ``both``.

    The snippet is cut when first read, around the words of ``query`` (``snippet``),
    unless one is given: a search makes more hits than it shows (the keyword lists a
    fusion reads, JSONL output that has no snippet). A hybrid search cut 70 snippets
    to show 20 before, about 70 µs each on the benchmark's short messages."""

    __slots__ = ("_query", "_snippet", "raw", "record", "score", "why")

    def __init__(
        self, raw: bytes, record: dict[str, Any], score: float,
        snippet: list[tuple[str, bool]] | None = None, why: str = "keyword", *,
        query: str = "",
    ) -> None:  # fmt: skip
        self.raw = raw
        self.record = record
        self.score = score
        self.why = why
        self._snippet = snippet
        self._query = query

    @property
    def snippet(self) -> list[tuple[str, bool]]:
        if self._snippet is None:
            self._snippet = cut_snippet(self.record, terms(self._query), self._query)
        return self._snippet

    @snippet.setter
    def snippet(self, pieces: list[tuple[str, bool]]) -> None:
        self._snippet = pieces

    def __repr__(self) -> str:
        return f"Hit(record={self.record!r}, score={self.score!r}, why={self.why!r})"


def fts_query(query: str) -> str:
    """The query as FTS5 will read it: CJK runs spaced out, bare ones quoted."""
    if query.isascii():
        return query

    def fix(m: re.Match[str]) -> str:
        token = m.group(0)
        if not has_cjk(token):
            return token
        if token.startswith('"'):
            return space_cjk(token)
        return '"' + space_cjk(token).strip() + '"'

    return _QUOTED_OR_WORD.sub(fix, query)


def checked_query(query: str) -> str:
    """``query`` as FTS5 will read it (``fts_query``), once it is within ``MAX_TERMS``
    words and ``MAX_QUERY_CHARS`` characters (else one UsageError saying so)."""
    if not query.strip():
        raise UsageError("empty search query", hint=HINT)
    if len(query) > MAX_QUERY_CHARS:
        raise UsageError(
            f"the search query is too long ({len(query):,} characters; at most {MAX_QUERY_CHARS:,})",
            hint="search for fewer, more telling words",
        )
    words = len(terms(query))
    if words > MAX_TERMS:
        raise UsageError(
            f"too many search terms ({words:,}; at most {MAX_TERMS})",
            hint="search for fewer, more telling words",
        )
    return fts_query(query)


def terms(query: str) -> list[str]:
    """The words of the query, folded, for marking hits (operators left out)."""
    out: list[str] = []
    for m in _QUOTED_OR_WORD.finditer(query):
        token = m.group(0)
        if token in _OPERATORS:
            continue
        out.extend(_fold(w) for w in _WORD.findall(token.strip('"')))
    return [t for t in out if t]


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def snippet(record: dict[str, Any], query_terms: list[str], query: str) -> list[tuple[str, bool]]:
    """A window of the subject and text around the first word matching a term."""
    text = fields.searchable_text(record)
    spans = [m.span() for m in _WORD.finditer(text)]
    prefixes = tuple(_prefixes(query))
    wanted = set(query_terms)  # a word is looked up, not compared with every term

    def hit(word: str) -> bool:
        w = _fold(word)
        if w in wanted or w.startswith(prefixes):
            return True
        return has_cjk(word) and any(t in w for t in wanted)

    hits = {i for i, (s, e) in enumerate(spans) if hit(text[s:e])}
    first = min(hits) if hits else 0
    lo = max(0, first - SNIPPET_WORDS // 3)
    hi = min(len(spans), lo + SNIPPET_WORDS)
    if not spans:
        return [(" ".join(text.split())[:200], False)]
    pieces: list[tuple[str, bool]] = [("…" if lo else "", False)]
    # from the start of the text, what comes before its first word too ("@bob", "[draft]")
    pos = spans[lo][0] if lo else len(text) - len(text.lstrip())
    for i in range(lo, hi):
        s, e = spans[i]
        pieces.append((_cut(_SPACES.sub(" ", text[pos:s])), False))
        pieces.append((_cut(text[s:e]), i in hits))
        pos = e
    # the end: an ellipsis, or the text after the last word ("sessions?")
    end = "…" if hi < len(spans) else _cut(_SPACES.sub(" ", text[pos:]).rstrip())
    pieces.append((end, False))
    return [(t, h) for t, h in pieces if t]


# A "word" may be a base64 image of a megabyte, or a letter under 200,000 combining
# accents: 24 words were then a snippet of that size (a search table of 400 KB for one
# message). A piece longer than this is cut, an ellipsis saying so.
SNIPPET_PIECE = 80


def _cut(piece: str) -> str:
    return piece if len(piece) <= SNIPPET_PIECE else piece[:SNIPPET_PIECE] + "…"


cut_snippet = snippet  # what ``Hit.snippet`` calls (its own name is the property's)


def _prefixes(query: str) -> list[str]:
    return [_fold(p) for p in re.findall(r"(\w+)\*", query)]


class Hits(list):
    """The hits, best first; ``window``: when more than ``ranked`` records matched, how
    many of the most recent matches were ranked (0: every match was); ``note``: why the
    persistent index was not used (empty when it was); ``mode``: how they were ranked
    (``fts``, ``semantic`` or ``hybrid``); ``fallback``: why a search that would have
    used meaning ranked by keyword only (empty when it did not); ``notice``: anything
    else the search did that a person should hear of once (the vectors upgraded)."""

    window = 0
    note = ""
    mode = "fts"
    fallback = ""
    notice = ""
    dropped = 0  # pieces of a typed search beyond the bound (query.search_text.MAX_PIECES)


def _bad_query(e: sqlite3.OperationalError) -> UsageError:
    """FTS5's error for a query, as one line a user can act on. FTS5 reads ``NAME:`` and
    ``-NAME`` as a column filter, so ``-budget`` would say "no such column: budget"."""
    msg = str(e).removeprefix("fts5: ")
    if msg.startswith("no such column: "):
        name = msg.removeprefix("no such column: ")
        return UsageError(
            f"bad search query: {name!r} is read as a field name (FTS5 reads NAME: and"
            " -NAME so; the fields are subject and text)",
            hint='leave a word out with "a NOT word"; quote a word with - or : ("-word")',
        )
    return UsageError(f"bad search query ({msg})", hint=HINT)


def _run(r: Reader, sql: str, params: list[Any]) -> list[Any]:
    try:
        return r.conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as e:
        raise _bad_query(e) from None


def _hits(
    r: Reader, match: str, narrow: Narrow | None, limit: int, ranked: int | None
) -> tuple[list[tuple[int, int, float]], int]:
    """``(offset, length, rank)`` of the best ``limit`` matches, and the window (0: all
    ranked). BM25 costs a few microseconds a match, so a word in a third of a large store
    would cost seconds: beyond ``ranked`` matches only the ``ranked`` most recent ones
    (highest rowids, found without ranking) are ranked."""
    cond, params = narrow(r.conn) if narrow is not None else ("1", ())
    if cond == "0":
        return [], 0
    base = "FROM messages_fts f WHERE messages_fts MATCH ?"
    if cond != "1":
        base = (
            "FROM messages_fts f JOIN messages m ON m.message_id = f.rowid"
            f" WHERE messages_fts MATCH ? AND {cond}"
        )
    args: list[Any] = [match, *params]
    window = 0
    if ranked:
        past = _run(
            r, f"SELECT f.rowid {base} ORDER BY f.rowid DESC LIMIT 1 OFFSET ?", [*args, ranked]
        )
        if past:
            base += " AND f.rowid > ?"
            args.append(past[0][0])
            window = ranked
    # bm25() with the weights spelt out: the table's configured `rank` is parsed per row
    score = f"bm25(messages_fts, {schema.WEIGHTS})"
    best = _run(r, f"SELECT f.rowid, {score} AS s {base} ORDER BY s LIMIT ?", [*args, limit])
    spans = dict(
        (mid, (o, n))
        for mid, o, n in r.conn.execute(
            "SELECT message_id, byte_offset, byte_length FROM messages"
            " WHERE message_id IN (SELECT value FROM json_each(?))",
            (orjson.dumps([mid for mid, _ in best]).decode(),),
        )
    )
    return [(*spans[mid], rank) for mid, rank in best if mid in spans], window


def search(
    store_path: str | os.PathLike[str],
    query: str,
    narrow: Narrow | None = None,
    limit: int = 20,
    *,
    track: Track | None = None,
    ranked: int | None = RANKED,
) -> tuple[Hits, str]:
    """The best ``limit`` records for the FTS5 ``query`` among those ``narrow`` selects.

    Returns ``(hits, note)``: ``note`` is empty, or says why the persistent index could
    not be used and the search ran on a temporary in-memory index instead. ``ranked``:
    at most this many matches are ranked, the most recent ones (None: all; see ``_hits``
    and ``Hits.window``).
    """
    match = checked_query(query)
    note = ""
    if os.environ.get("CONVO_NO_INDEX") != "1":
        result = refresh(store_path, create=True, track=track)
        note = "" if result.available else result.reason
    else:
        note = "disabled by CONVO_NO_INDEX=1"
    if not note:
        with reader(store_path, update=False) as r:
            if not isinstance(r, str):
                return _collect(r, match, query, narrow, limit, ranked), ""
            note = r
    return _in_memory(Path(store_path), match, query, narrow, limit, track, ranked), note


def _collect(
    r: Reader, match: str, query: str, narrow: Narrow | None, limit: int,
    ranked: int | None,
) -> Hits:  # fmt: skip
    rows, window = _hits(r, match, narrow, max(0, limit), ranked)
    out = Hits()
    out.window = window
    for (_, _, rank), raw in zip(rows, read_spans(r.f, [(o, n) for o, n, _ in rows]), strict=True):
        record = parse(raw)
        if record is not None:
            out.append(Hit(raw, record, round(-float(rank), 6), query=query))
    return out


def _in_memory(
    path: Path, match: str, query: str, narrow: Narrow | None, limit: int, track,
    ranked: int | None,
) -> Hits:  # fmt: skip
    """Search without the index file: build one in memory from the store (a full read)."""
    from convo.index.build import index_lines

    if not path.exists():
        return Hits()
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed by the with below
    except OSError as e:  # the store unreadable (permissions): one located line
        from convo.core.io import os_error

        raise os_error(e, str(path), "the store cannot be read") from None
    conn = schema.connect(":memory:")
    try:
        with f:
            conn.execute("BEGIN")
            schema.create(conn)
            index_lines(conn, path, f, 0, track)
            conn.execute("COMMIT")
            return _collect(Reader(conn, f), match, query, narrow, limit, ranked)
    finally:
        conn.close()


def count_matches(store_path: str | os.PathLike[str], query: str) -> int | str:
    """How many records match ``query`` (all of them, unranked), or why the index cannot say."""
    with reader(store_path) as r:
        if isinstance(r, str):
            return r
        try:
            sql = "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?"
            return int(r.conn.execute(sql, (checked_query(query),)).fetchone()[0])
        except sqlite3.OperationalError as e:
            raise _bad_query(e) from None
