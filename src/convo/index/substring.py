"""Case-folded substrings (``-q``, ``text:``, a phrase's words) as a full-text superset.

``candidates(conn, words, column)`` is a condition on ``messages m`` selecting every
message whose folded text holds each of ``words``, and a few more: the exact check then
decides each candidate line (``convo.query.plan``). Per word (``folding`` says why):

- one piece (``budget``, ``auth``): the tokens containing it are looked up in
  ``fts_terms`` (every token the index holds; a substring, so ``auth`` finds ``oauth``
  and ``authentication``), and the query is their OR;
- several pieces (``e-mail``, ``v1.2.3``): the pieces after the first as a phrase, the
  last one a prefix (``"mail" *``, ``"2 3" *``);
- no piece (``--``), or a piece in more than ``MAX_TERMS`` tokens (``e``): nothing said
  (every message is a candidate for that word).

The words' queries are ANDed into one FTS5 ``MATCH``; a word that can meet a ``SPECIAL``
character's folding adds the messages that hold one (``messages_unfolded``).

Measured on the 1M-message benchmark store (benchmarks/bench_query.py, 264 tokens):
``convo query --count -q quinn`` (0.3% of the lines) reads its 2.9k candidates in 0.23 s
of CPU, the whole command, where the scan took 1.68 s (paired runs); ``-q budget`` (36%)
would read 362k, so the planner scans instead (``store/select.py``). Beside a filter
that selects fewer (``-s Quinn -q budget``), the word's rows are read only among that
filter's messages (``FullText.source(within)``, chosen by ``convo.query.drive``). The lookup reads
all of ``fts_terms`` once per one-piece word: about 70 ms of CPU for a vocabulary of
1M tokens (a synthetic table), nothing to see on the benchmark's.
"""

from __future__ import annotations

import sqlite3

from convo.index.folding import pieces, reaches_special

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any

MAX_TERMS = 500  # more tokens than this hold a word: it narrows too little to OR them
UNFOLDED = "SELECT message_id FROM messages_unfolded"


def _quoted(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def word_query(conn: sqlite3.Connection, word: str) -> str | None:
    """The FTS5 query every message holding ``word`` (case-folded) matches, unless it has
    a ``SPECIAL`` character; ``""``: no such message; None: no narrowing."""
    cut = pieces(word)
    if not cut:
        return None
    if len(cut) > 1:
        return _quoted(" ".join(cut[1:])) + " *"
    rows = conn.execute(
        "SELECT term FROM fts_terms WHERE instr(term, ?) > 0 LIMIT ?", (cut[0], MAX_TERMS + 1)
    ).fetchall()
    if len(rows) > MAX_TERMS:
        return None
    return "(" + " OR ".join(_quoted(t) for (t,) in rows) + ")" if rows else ""


class FullText:
    """The candidates of some words in the full-text index: the messages the FTS5
    ``match`` finds (None: none) and, when ``unfolded``, those of ``messages_unfolded``."""

    __slots__ = ("match", "unfolded")

    def __init__(self, match: str | None, unfolded: bool):
        self.match = match
        self.unfolded = unfolded

    def source(self, within: str | None = None) -> str:
        """A SELECT of the candidates' ids (its parameters: ``params``). ``within``: a
        SELECT of ids; only the candidates among them: the full-text rows are read in
        order and each looked up in that list, built once (``+rowid``: SQLite would
        otherwise seek the full-text index once per id, about 19 µs each on the
        1M-message benchmark store, where the read costs about 0.15 µs a row;
        ``convo.query.drive`` says when that pays)."""
        parts: list[str] = []
        if self.match is not None:
            sql = "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?"
            parts.append(f"{sql} AND +rowid IN ({within})" if within else sql)
        if self.unfolded:
            parts.append(UNFOLDED)
        return " UNION ".join(parts)

    def params(self, within: tuple[Any, ...] = ()) -> tuple[Any, ...]:
        """The parameters of ``source`` (``within``: those of its ``within``)."""
        return () if self.match is None else (self.match, *within)

    def count(self, conn: sqlite3.Connection, cap: int) -> int:
        """How many candidates, counted up to ``cap`` (a message in both sources twice)."""
        sources: list[tuple[str, tuple[Any, ...]]] = []
        if self.match is not None:
            sources.append(("SELECT 1 FROM messages_fts WHERE messages_fts MATCH ?", (self.match,)))
        if self.unfolded:
            sources.append((UNFOLDED, ()))
        n = 0
        for source, params in sources:
            sql = f"SELECT count(*) FROM ({source} LIMIT {int(cap) - n})"
            n += int(conn.execute(sql, params).fetchone()[0])
            if n >= cap:
                break
        return n

    def cond(self) -> str:
        """The condition on ``messages m`` selecting the candidates."""
        return f"m.message_id IN ({self.source()})" if self.match or self.unfolded else "0"


def lookup(
    conn: sqlite3.Connection, words: list[str], column: str | None = None
) -> FullText | None:
    """The full-text candidates of the messages whose folded text (``column`` of the FTS
    table, else any) holds every one of ``words`` (case-folded): a superset of them; an
    empty ``FullText`` when no message holds them; None when the index narrows nothing."""
    queries: list[str] = []
    special = nothing_plain = False
    for word in words:
        q = word_query(conn, word)
        if q is None:
            continue
        if q == "" and not reaches_special(word):
            return FullText(None, False)  # in no message at all
        special = special or reaches_special(word)
        if q == "":
            nothing_plain = True  # in no message without a SPECIAL character
        else:
            queries.append(q)
    if nothing_plain:
        queries = []
    elif not queries:
        return None
    match = None
    if queries:
        match = " AND ".join(queries)
        if column:
            match = "{" + column + "} : (" + match + ")"
    return FullText(match, special)


def candidates(
    conn: sqlite3.Connection, words: list[str], column: str | None = None
) -> tuple[str, tuple[str, ...]] | None:
    """``lookup``'s candidates as a condition on ``messages m`` and its parameters."""
    found = lookup(conn, words, column)
    return None if found is None else (found.cond(), found.params())
