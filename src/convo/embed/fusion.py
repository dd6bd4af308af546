"""Keyword and meaning together: reciprocal rank fusion, and the keyword queries of a
question.

``fuse`` is reciprocal rank fusion (each list adds ``weight / (K + rank)`` to an id's
score) that keeps every hit of every list: a hit only one list has is fused, never
dropped. ``hybrid`` fuses three lists: the messages holding *every* word of the query
(``exact_query``), those holding *any* of its words ranked by BM25 (``loose_query``), and
the nearest in meaning. The exact list weighs ``EXACT_WEIGHT``: a message holding an
exact token the vectors do not rank (an error string, a version number, a Message-ID)
still comes first, above one that both other lists rank first, while a question in
plain words, which no message holds whole, is ranked by the other two. The store's
search (``convo.store.meaning``) extends the exact list with the messages holding every
*special* token of the question (``special_query``: a code, a version, an error name),
so "the deploy failed with ECONNRESET-4411" puts the message quoting the error first
though no message holds the whole question.

The any-word list counts only its best ``LOOSE_DEPTH`` hits. Reciprocal rank fusion
credits a message for every list it is in, however low: a message that one of a
question's common words puts 30th in the any-word list, and that the vectors put 20th,
outscored the message the vectors put first by a clear margin. Over round 1 of the real
corpus's held-out questions (``tests/corpus/retrieval_questions.json``) that was most
of what hybrid lost against meaning alone on paraphrases; cutting the any-word list to
its head raised hybrid recall@10 there from 0.76 to 0.83 (paraphrases 0.57 to 0.68)
and left convo's own set (``benchmarks/retrieval/``) as it was (0.91, paraphrases
0.76), where a depth of 20 cost paraphrases (0.70; docs/search.md has the measurements).

Each hit says why it matched: ``keyword``, ``meaning`` or ``both``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

K = 60
EXACT_WEIGHT = 2.0
LOOSE_DEPTH = 10  # hits of the any-word list that count (see the module's docstring)
# Question words left out of the any-word query: they hold no topic, and each would make
# most of the store a match to rank.
FUNCTION_WORDS = frozenset(
    """a about after all also an and any are as at be been but by can could did do does
    for from had has have how i if in into is it its me my no not of on or our she he so
    that the their them then there these they this to up us was we were what when where
    which who whom why will with would you your""".split()  # noqa: SIM905
)
_TOKEN = re.compile(r"\S+")
_EDGE = re.compile(r"^\W+|\W+$")


@dataclass
class Fused:
    id: str
    score: float
    why: str  # "keyword", "meaning" or "both"


def fuse(lists: Sequence[tuple[Sequence[str], float, str]], k: int = K) -> list[Fused]:
    """Reciprocal rank fusion of ``(ids best first, weight, kind)`` lists, best first;
    ties keep the order in which the lists first named them."""
    scores: dict[str, float] = {}
    kinds: dict[str, set[str]] = {}
    for ids, weight, kind in lists:
        for rank, ident in enumerate(ids, 1):
            scores[ident] = scores.get(ident, 0.0) + weight / (k + rank)
            kinds.setdefault(ident, set()).add(kind)
    order = sorted(scores, key=lambda i: -scores[i])
    return [Fused(i, round(scores[i], 6), _why(kinds[i])) for i in order]


def _why(kinds: set[str]) -> str:
    return "both" if len(kinds) > 1 else next(iter(kinds))


def hybrid(
    exact: Sequence[str], loose: Sequence[str], meaning: Sequence[str], limit: int, k: int = K
) -> list[Fused]:
    """The best ``limit`` of the three lists fused, the any-word list cut to its best
    ``LOOSE_DEPTH`` (see the module's docstring)."""
    lists = [
        (exact, EXACT_WEIGHT, "keyword"),
        (loose[:LOOSE_DEPTH], 1.0, "keyword"),
        (meaning, 1.0, "meaning"),
    ]
    return fuse(lists, k)[: max(0, limit)]


def tokens(text: str) -> list[str]:
    """The query's whitespace-separated tokens, punctuation trimmed from their ends."""
    out = []
    for m in _TOKEN.finditer(text):
        token = _EDGE.sub("", m.group())
        if token:
            out.append(token)
    return out


def _quoted(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def exact_query(text: str) -> str | None:
    """FTS5 syntax for messages holding every token of ``text`` (each as a phrase, so
    ``v2.14.3`` or ``<a1@mail.example>`` match as written); None when it has none."""
    found = tokens(text)
    return " ".join(_quoted(t) for t in found) if found else None


_INNER = re.compile(r"\w[-_.@/:#+]\w")


def special(token: str) -> bool:
    """A token that names one thing rather than a topic: it holds a digit (a version, a
    ticket, a code), joins words with punctuation (``ECONNRESET-4411``, ``a.b``,
    ``x@host``), is written in camel case (``SetWarningHandler``) or is a long run of
    capitals (``ECONNRESET``)."""
    if any(c.isdigit() for c in token) or _INNER.search(token):
        return True
    if token.isupper() and len(token) >= 6:
        return True
    return any(c.isupper() for c in token[1:]) and any(c.islower() for c in token)


def special_query(text: str) -> str | None:
    """FTS5 syntax for messages holding every special token of ``text`` (``special``);
    None when it has none, or when they are all its tokens (``exact_query`` says it)."""
    found = tokens(text)
    kept = [t for t in found if special(t)]
    if not kept or len(kept) == len(found):
        return None
    return " ".join(_quoted(t) for t in dict.fromkeys(kept))


def loose_query(text: str) -> str | None:
    """FTS5 syntax for messages holding any token of ``text`` that is not a question's
    function word; None when none is left."""
    found = [t for t in tokens(text) if t.lower() not in FUNCTION_WORDS]
    return " OR ".join(_quoted(t) for t in dict.fromkeys(found)) if found else None
