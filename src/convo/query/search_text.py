"""What a person types into ``convo search``: field terms that filter, and words that rank.

    convo search 'what did alice decide about tokens? from:bob date:2024-03..'

- A term of the query language whose field is known (``from:bob``, ``tag:security``,
  ``-tag:system``, ``date:2024-03..``, a quoted value ``from:"Bob Jones"``) filters, as
  in ``convo query``.
- Every other piece is free text, ranked by BM25: each whitespace-separated piece is cut
  into its words (punctuation, question marks, colons and hyphens separate words and
  are otherwise ignored), and a piece of several words (``MENFORCER-276``, ``1.2.3``,
  ``"a quoted phrase"``) must find them adjacent. Pieces are ORed, so a question finds
  the messages holding most of its words first; question and function words (``what``,
  ``did``, ``about``) are left out of the ranking when other words remain. ``-word``
  leaves out the messages
  holding the word (a filter, as in ``convo query``).
- ``OR`` between two field terms ORs them, as in ``convo query``: ``from:alice OR
  from:bob`` (AND binds tighter: ``from:alice OR from:bob tag:x`` is alice's messages or
  bob's tagged x). Anywhere else ``OR`` is a word (pieces are ORed anyway).
- ``word:`` with an unknown field is text (``undefined symbol: SetWarningHandler``);
  nothing a person types is a syntax error: a field term with an unclosed quote in its
  value is read as text too. Parentheses around field terms group them, as in ``convo
  query`` (``(from:alice OR from:bob) -jwt``); when they do not pair up among the field
  terms (``(from:alice jwt)``), they are left out.

FTS5's own syntax (``NEAR``, ``prefix*``, column filters) stays available behind
``convo search --fts``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from convo.query.field_table import LANGUAGE

_PIECE = re.compile(r'-?[A-Za-z_]+:"[^"]*"|"[^"]*"|\S+')
_FIELD = re.compile(r"(-?)([A-Za-z_]+):(.+)", re.S)
# Words as the index tokenises them: runs of letters, digits and non-ASCII characters.
_WORDS = re.compile(r"[^\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]+")
# Question and function words: a piece that is one of these is left out of the ranking
# when the text holds other words ("what did alice decide about tokens" ranks by alice,
# decide and tokens; BM25 would otherwise favour short messages full of "what" and
# "about"). Kept here, not in the knowledge analysis's lists, because it serves the
# ranking of questions in any language a person types questions in, mostly English.
QUESTION_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "just",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
MAX_PIECES = 64  # ranked pieces at most (each is a term BM25 scores on every match)


@dataclass
class SearchText:
    """``filters``: query-language text (``from:bob -tag:system``); ``pieces``: the free
    text, each piece as its words; ``dropped``: pieces beyond ``MAX_PIECES``; ``free``: the
    free text as typed (every piece that is not a filter), what search by meaning embeds."""

    filters: str = ""
    pieces: list[list[str]] = field(default_factory=list)
    dropped: int = 0
    free: str = ""

    def match(self) -> str:
        """The pieces as an FTS5 query: each a quoted phrase, ORed."""
        return " OR ".join('"' + " ".join(words) + '"' for words in self.pieces)


def _value_ok(value: str) -> bool:
    """A field value the language reads: not empty, its quotes closed."""
    return bool(value.strip('"').strip()) and value.count('"') % 2 == 0


def _one_term(piece: str) -> bool:
    """The query language reads ``piece`` as one field term (``-`` allowed before it):
    not ``from:bob)`` (a term and a parenthesis), which would be a syntax error."""
    from convo.core.errors import UsageError
    from convo.query.language import tokens

    try:
        kinds = [t.kind for t in tokens(piece)]
    except UsageError:
        return False
    return kinds in (["field"], ["-", "field"])


def _filter(piece: str) -> bool:
    f = _FIELD.fullmatch(piece)
    return f is not None and f[2].lower() in LANGUAGE and _value_ok(f[3]) and _one_term(piece)


def _piece(piece: str) -> tuple[str, list[str]]:
    """One piece as ``("filter", texts)`` or ``("words", words)``; the parentheses around
    a field term (``(from:alice``, ``from:bob)``) are their own texts."""
    core = piece.lstrip("(")
    opened = len(piece) - len(core)
    core = core.rstrip(")")
    closed = len(piece) - opened - len(core)
    if _filter(core):
        return "filter", ["("] * opened + [core] + [")"] * closed
    if _negation(piece):
        return "filter", ['NOT "' + " ".join(_WORDS.findall(piece[1:])) + '"']
    return "words", [w.casefold() for w in _WORDS.findall(piece)]


def _negation(piece: str) -> bool:
    """``-word`` leaves the word out; ``--flag`` (a command-line option pasted from a
    message) and ``-1`` (a number) are text to rank."""
    return (
        piece.startswith("-")
        and len(piece) > 1
        and not piece.startswith("--")
        and not piece[1].isdigit()
        and bool(_WORDS.search(piece))
    )


def _balanced(filters: list[str]) -> bool:
    depth = 0
    for f in filters:
        depth += (f == "(") - (f == ")")
        if depth < 0:
            return False
    return depth == 0


def _between_filters(kinds: list[tuple[str, list[str]]], i: int) -> bool:
    """The piece at ``i`` has a filter just before and just after it."""
    return 0 < i < len(kinds) - 1 and kinds[i - 1][0] == kinds[i + 1][0] == "filter"


def _filters(typed: list[str], kinds: list[tuple[str, list[str]]]) -> str:
    """The filter pieces as query-language text: an ``OR`` between two of them kept,
    their parentheses kept when they pair up."""
    filters: list[str] = []
    for i, (piece, (kind, found)) in enumerate(zip(typed, kinds, strict=True)):
        if kind == "filter":
            filters.extend(found)
        elif piece == "OR" and _between_filters(kinds, i):
            filters.append("OR")
    if not _balanced(filters):  # (from:alice jwt): the parentheses group no filters
        filters = [f for f in filters if f not in ("(", ")")]
    return " ".join(filters)


def split(text: str) -> SearchText:
    """``text`` as filters and ranked words (see the module docstring)."""
    out = SearchText()
    free: list[str] = []
    seen: set[tuple[str, ...]] = set()
    typed = [m.group(0) for m in _PIECE.finditer(text)]
    kinds = [_piece(p) for p in typed]
    for i, (piece, (kind, found)) in enumerate(zip(typed, kinds, strict=True)):
        if kind == "filter" or (piece == "OR" and _between_filters(kinds, i)):
            continue
        free.append(piece)
        if found and tuple(found) not in seen:
            seen.add(tuple(found))
            out.pieces.append(found)
    content = [p for p in out.pieces if not (len(p) == 1 and p[0] in QUESTION_WORDS)]
    if content:
        out.pieces = content
    if len(out.pieces) > MAX_PIECES:
        out.dropped = len(out.pieces) - MAX_PIECES
        del out.pieces[MAX_PIECES:]
    out.filters = _filters(typed, kinds)
    out.free = " ".join(free)
    return out
