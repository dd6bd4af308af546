"""Key phrases of a message: RAKE scored with statistics of the whole conversation.

Method (Rose et al., "Automatic keyword extraction from individual documents", 2010):
candidate phrases are the runs of words between stopwords, punctuation and numbers;
each word scores ``degree(w) / frequency(w)`` (degree = total length of the candidates
it occurs in), and a phrase scores the sum of its words. RAKE treats one document;
here the document is the conversation (the selected messages), so a word's score is
the same in every message and a short chat line is judged by how the whole
conversation uses its words.

Decisions:
- Streaming: ``PhraseStats`` holds counts per distinct word (memory grows with the
  vocabulary, not with the number of messages). Callers make two passes: ``observe``
  every message, then ``keyphrases`` per message. Without conversation statistics the
  message's own statistics are used (plain single-document RAKE).
- A candidate has at most ``MAX_WORDS`` words (longer runs are usually clauses that a
  stopword list missed) and at least one word of three or more letters.
- A single word is a topic only when it recurs: in two or more messages of the
  conversation (or twice in a message read alone). Two- to four-word phrases need not.
- RAKE's runs often end in a verb only this message uses (``release schedule moves``):
  when some word of a phrase recurs in the conversation, trailing words that occur in
  no other message are trimmed (``release schedule``). Leading words are kept, since
  English modifiers come first (``refresh tokens``).
- Phrases already among the message's topics (its subject, tags) are skipped.
- At most 3 phrases per message (5 over 150 words), best first, ties to the earlier;
  a single word only as the best (``refresh tokens``, not ``month``). Phrases are
  lower-case (possessive ``'s`` removed) so they merge across messages.
- The English stopword list is a general function-word list plus conversational filler
  (``yeah``, ``thanks``, ``gonna``); it is not a list of keywords. A message written in
  German, French, Spanish, Italian, Portuguese or Dutch also breaks on that language's
  stopwords (``stopwords``: the language is the one whose list the message hits most).
- Words of the conversation's people (speakers, listeners, mentions: ``smith`` of
  ``Alice Smith``) are not topics: a phrase made only of such words is skipped.
"""

from __future__ import annotations

import re
from collections import Counter, _count_elements  # type: ignore[attr-defined]
from collections.abc import Collection, Iterable, Set
from functools import reduce
from itertools import chain, compress, groupby, repeat
from operator import add, itemgetter
from typing import Any, NamedTuple

from convo.analysis.knowledge.stopwords import ENGLISH, language, named_verb, verbal
from convo.analysis.knowledge.stopwords import STOPWORDS as OTHER_STOPWORDS
from convo.analysis.knowledge.text import split_pieces

MAX_WORDS = 4

STOPWORDS = ENGLISH

# A word (group 1), or something that breaks a phrase: punctuation, a spaced dash, a line end.
_SCAN = re.compile(r"([^\W_][\w'’-]*)|[^\w\s'’-]+|\s-+\s|\n")
_CACHE_MAX = 1 << 16  # distinct tokens and pieces remembered (bounded memory)
PHRASES = 1 << 12  # candidates a ranking remembers (bounded memory: about 0.6 MB)
_SHORT_PHRASE = 2  # it remembers candidates of this many words at most


def _norm(token: str) -> str | None:
    """The normalised word, or None when the token breaks a phrase (too short, a number)."""
    t = token.lower().replace("’", "'").strip("'-")
    if t.endswith("'s"):
        t = t[:-2]
    if len(t) < 2 or t.replace("-", "").isdigit():
        return None
    return t


class _Words(dict):
    """Token -> ``_norm(token)``, computed once per distinct token ('' breaks too)."""

    def __missing__(self, token: str) -> str | None:
        word = self[token] = _norm(token) if token else None
        return word


class _Texts(dict):
    """Word (or None) -> its part of a run text: the word and a space, or a line break
    when it breaks a phrase (None, or a stopword of ``stop``). A word of two letters is
    led by ``_SHORT``. English texts (``english``) mark what picks another language: a
    stopword of another language only is led by ``_MARK``, an English stopword that no
    other language lists is ``\\r`` (``\\n`` for the other breaks)."""

    def __init__(self, stop: frozenset[str], english: bool):
        super().__init__()
        self.stop = stop
        self.english = english

    def __missing__(self, word: str | None) -> str:
        if word is None or word in self.stop:
            english_only = self.english and word not in _LISTED
            text = "\r" if english_only and word is not None else "\n"
        else:
            mark = _MARK if self.english and word in _LISTED else ""
            text = mark + (_SHORT if len(word) == 2 else "") + word + " "
        self[word] = text
        return text


_STOP = {None: STOPWORDS} | {k: STOPWORDS | v for k, v in OTHER_STOPWORDS.items()}
_LISTED = frozenset().union(*OTHER_STOPWORDS.values())  # stopwords of other languages
_WORDS = _Words()
_TEXTS = {lang: _Texts(stop, lang is None) for lang, stop in _STOP.items()}
# Marks in a run text (no word holds them, nor a line break): a stopword of another
# language only follows _MARK, a word of two letters _SHORT.
_MARK, _SHORT = "\x01", "\x02"
_FITS = MAX_WORDS.__ge__  # a run of this many words (its spaces) is a candidate
_SPACE = repeat(" ")


class _Pieces(dict):
    """A whitespace-separated piece of text -> the English run text (``_Texts``) of its
    words (``_norm`` of each token ``_SCAN`` finds in it; None for a break); ``words``
    holds the words.

    ``_SCAN``'s words and punctuation runs hold no whitespace, so they lie within the
    pieces, and a piece of letters and digits only is one word. What spans whitespace is
    a break: a newline (``NEWLINE``), and a spaced dash (``\\s-+\\s``: a piece of dashes
    only; when an earlier one took the space before it, that one broke the same gap).
    How many breaks stand between two words does not change the candidates.
    """

    def __init__(self) -> None:
        super().__init__()
        self.words: dict[str, tuple[str | None, ...]] = {}

    def __missing__(self, piece: str) -> str:
        if piece.isalnum():
            tokens = [piece]
        else:
            tokens = _SCAN.findall(piece) or ([] if piece.strip("-") else [""])
        words = self.words[piece] = tuple(map(_WORDS.__getitem__, tokens))
        text = self[piece] = "".join(map(_TEXTS[None].__getitem__, words))
        return text

    def bound(self) -> None:
        """Forget everything past ``_CACHE_MAX`` pieces (between messages, never during one)."""
        if len(self) > _CACHE_MAX:
            self.clear()
            self.words.clear()
            _WORDS.clear()
            for texts in _TEXTS.values():
                texts.clear()


_PIECES = _Pieces()


def candidates(text: str, pieces: list[str] | None = None) -> list[str]:
    """Candidate phrases (their normalised words joined by a space) in order of
    appearance (``pieces``: ``split_pieces(text)``, when the caller has them).

    Stopwords are those of the message's language (``stopwords.language``) and English.
    Each distinct piece of text is read once (``_Pieces``); a message is then C loops
    over its pieces and its runs between breaks.
    """
    if len(_PIECES) > _CACHE_MAX:
        _PIECES.bound()
    pieces = split_pieces(text) if pieces is None else pieces
    runs = "".join(map(_PIECES.__getitem__, pieces))
    if _MARK in runs:
        runs = _foreign(pieces, runs)
    # Each word is followed by a space (n words: n spaces; no other whitespace), and
    # has two letters or more: without a word of two, every run has one of three.
    if _SHORT in runs:
        return [
            run[:-1]
            for run in filter(None, runs.replace(_SHORT, "").splitlines())
            if (n := run.count(" ")) <= MAX_WORDS and len(run) > 3 * n
        ]
    found = list(filter(None, runs.splitlines()))
    return list(map(str.rstrip, compress(found, map(_FITS, map(str.count, found, _SPACE)))))


def _foreign(pieces: list[str], runs: str) -> str:
    """The run text of a message with a stopword of another language only (``runs``:
    its English one): in that language when ``language`` picks it. It can only when
    other languages' lists hold more of the words than the English one (as many as
    ``_MARK`` leads, less the English stopwords that ``\\r`` stands for)."""
    if runs.count(_MARK) > runs.count("\r"):
        words = list(chain.from_iterable(map(_PIECES.words.__getitem__, pieces)))
        lang = language(words, STOPWORDS)
        if lang is not None:
            return "".join(map(_TEXTS[lang].__getitem__, words))
    return runs.replace(_MARK, "")


class PhraseStats:
    """Word frequency, RAKE degree and message count (document frequency) per word.

    A message's candidates are counted as they are (``_runs``: a conversation repeats
    its phrases) and into their words' frequency and degree when ``PENDING`` distinct
    ones wait, or when the words are read (``freq``, ``degree``): the same sums.

    Memory is bounded: past ``VOCABULARY`` distinct words, the rarest are forgotten (all
    words in at most ``floor`` messages, ``floor`` raised until half the room is free).
    Exact until then, which holds for any real conversation's vocabulary; after, a
    forgotten word scores as a word never seen (1) and does not count as recurring,
    which for the words in one message only (the first forgotten) changes no decision
    but their score. ``merge`` sums, then forgets the same way.
    """

    VOCABULARY = 100_000
    PENDING = 1 << 13  # distinct candidates counted before their words are (bounded memory)

    def __init__(self) -> None:
        self._freq: Counter[str] = Counter()
        self._degree: Counter[str] = Counter()
        self.df: Counter[str] = Counter()
        self.docs = 0
        self.floor = 0  # words in at most this many messages may have been forgotten
        # Not in _freq and _degree yet: candidates, and words of candidates of each length.
        self._runs: Counter[str] = Counter()
        self._by_length: list[Counter[str]] = [Counter() for _ in range(MAX_WORDS)]
        self._ranking: Ranking | None = None  # derived for ``rank``; dropped on a change

    def __getstate__(self) -> dict[str, Any]:
        self._flush()
        state = dict(self.__dict__)
        state["_ranking"] = None  # derived: a worker derives its own
        return state

    @property
    def freq(self) -> Counter[str]:
        """How often each word occurs."""
        if self._runs or any(self._by_length):
            self._flush()
        return self._freq

    @property
    def degree(self) -> Counter[str]:
        """Each word's RAKE degree: the total length of the candidates it occurs in."""
        if self._runs or any(self._by_length):
            self._flush()
        return self._degree

    def _flush(self) -> None:
        """Count the waiting candidates into their words (a candidate seen k times adds
        k to each of its words' frequency, k times its length to their degree)."""
        freq, degree = self._freq, self._degree
        for run, k in self._runs.items():
            words = run.split()
            n = k * len(words)
            for w in words:
                freq[w] += k
                degree[w] += n
        self._runs.clear()
        for n, counts in enumerate(self._by_length, 1):
            for w, k in counts.items():
                freq[w] += k
                degree[w] += n * k
            counts.clear()

    def _flush_once(self) -> None:
        """Make room: the candidates seen once are counted into their words by length
        (``_by_length``: C loops, one step a word); the others wait on (a conversation
        repeats them), unless they fill half the room."""
        runs = self._runs
        once = [run for run, k in runs.items() if k == 1]
        if 2 * len(once) < len(runs):
            self._flush()
            return
        for n, same in groupby(sorted(map(str.split, once), key=len), len):
            _count_elements(self._by_length[n - 1], chain.from_iterable(same))
        self._runs = Counter({run: k for run, k in runs.items() if k > 1})
        if sum(map(len, self._by_length)) > self.PENDING:
            self._flush()

    def _forget(self) -> None:
        self._flush()
        while len(self.df) > self.VOCABULARY // 2:
            self.floor += 1
            rare = [w for w, n in self.df.items() if n <= self.floor]
            for w in rare:
                del self.df[w], self._freq[w], self._degree[w]

    def observe(self, text: str) -> None:
        self.observe_candidates(candidates(text))

    def observe_candidates(self, cands: Iterable[str]) -> None:
        cands = cands if isinstance(cands, list) else list(cands)
        # C loops: each candidate counted once per occurrence, each word once per
        # message. Counted by ``Counter.update``'s own loop, without the Mapping test
        # that wraps it (the keys are never a mapping; the test cost as much as one
        # message's counting).
        _count_elements(self._runs, cands)
        _count_elements(self.df, set(" ".join(cands).split()))
        self.docs += 1
        self._ranking = None
        if len(self._runs) > self.PENDING:
            self._flush_once()
        if len(self.df) > self.VOCABULARY:
            self._forget()

    def observe_many(self, lists: list[list[str]]) -> None:
        """``observe_candidates`` of each list in turn (the candidates of a batch of
        messages), counted by one C loop per batch when no word can be forgotten on the
        way (the vocabulary stays within ``VOCABULARY`` even if every word is new);
        the counts are the same, words are counted from ``_runs`` later or sooner."""
        words = list(map(set, map(str.split, map(" ".join, lists))))
        if len(self.df) + sum(map(len, words)) > self.VOCABULARY:
            for cands in lists:
                self.observe_candidates(cands)
            return
        _count_elements(self._runs, chain.from_iterable(lists))
        _count_elements(self.df, chain.from_iterable(words))
        self.docs += len(lists)
        self._ranking = None
        if len(self._runs) > self.PENDING:
            self._flush_once()

    def merge(self, other: PhraseStats) -> None:
        """Add the statistics of more messages (exact: plain sums)."""
        self.freq.update(other.freq)
        self.degree.update(other.degree)
        self.df.update(other.df)
        self.docs += other.docs
        self.floor = max(self.floor, other.floor)
        self._ranking = None
        if len(self.df) > self.VOCABULARY:
            self._forget()

    def word_score(self, w: str) -> float:
        f = self.freq.get(w, 0)
        return self.degree[w] / f if f else 1.0

    def ranking(self) -> Ranking:
        """Each word's score and the words that recur, derived once until the next change."""
        if self._ranking is None:
            degree = self.degree
            scores = {w: degree[w] / f for w, f in self.freq.items() if f}
            recurring = frozenset(w for w, n in self.df.items() if n >= 2)
            self._ranking = Ranking.of(scores, recurring)
        return self._ranking


# What a ranking makes of a candidate (a tuple, one per new candidate): its text, trailing
# words of one message trimmed (None: never ranked, a word too short or in one message),
# minus its score (``_NEVER``: never), its words, how many, whether it is its own fold.
Phrase = tuple[str | None, float, list[str], int, bool]
_NEVER = float("inf")  # sorts after every score


class Ranking(NamedTuple):
    """What ``rank`` reads of a conversation's ``PhraseStats``, and what it made of the
    candidates it met (``phrases``)."""

    scores: dict[str, float]  # degree / frequency (a word not here scores 1.0)
    recurring: frozenset[str]  # words in two messages or more
    phrases: _Phrases  # candidate -> Phrase

    @classmethod
    def of(cls, scores: dict[str, float], recurring: frozenset[str]) -> Ranking:
        return cls(scores, recurring, _Phrases(scores, recurring))


class _Phrases(dict[str, Phrase]):
    """Candidate -> what a ranking makes of it (``Phrase``), made when first asked for.
    The first ``PHRASES`` of one or two words are remembered: a conversation repeats its
    short phrases, the common ones come early, and a longer one is seldom met again."""

    def __init__(self, scores: dict[str, float], recurring: frozenset[str]):
        super().__init__()
        self.scores = scores
        self.recurring = recurring

    def __missing__(self, cand: str) -> Phrase:
        words = cand.split()
        text, n, recurring, short = cand, len(words), self.recurring, len(words) <= _SHORT_PHRASE
        if n > 1 and words[-1] not in recurring:
            words = _trim(words, recurring)
            text, n = " ".join(words), len(words)
        found: Phrase
        if n > 1 and not (all(map(str.endswith, words, _VERB_ENDINGS)) and verbal(words)):
            total = reduce(add, map(self.scores.get, words, _ONE), 0.0)
            found = (text, -total, words, n, text.isascii() or text.casefold() == text)
        elif len(text) >= 4 and text in recurring and not verbal(words):
            found = (text, -self.scores.get(text, 1.0), words, 1, text.casefold() == text)
        else:
            found = (None, _NEVER, words, 1, True)
        if short and len(self) < PHRASES:
            self[cand] = found
        return found


# ``__missing__`` (3-4 words are mostly met once): ``verbal``'s first test, unseen scores
_VERB_ENDINGS, _ONE = repeat(("ing", "ed")), repeat(1.0)


def _trim(cand: list[str], recurring: frozenset[str]) -> list[str]:
    """Trailing words in one message only are cut, unless every word is."""
    end = len(cand)
    while end and cand[end - 1] not in recurring:
        end -= 1
    return cand[:end] if end else cand


def keyphrases(
    text: str, stats: PhraseStats | None = None, exclude: Iterable[str] = ()
) -> list[str]:
    """The key phrases of one message, best first (see the module docstring)."""
    return rank(candidates(text), stats, exclude)


def skipped(exclude: Iterable[str]) -> set[str]:
    """The phrases ``exclude`` rules out: each topic case-folded, its whitespace one space."""
    return {" ".join(x.casefold().split()) for x in exclude}


_SETS = (set, frozenset)  # a tuple: ``set | frozenset`` makes a union at every call


def _is_name(words: list[str], names: Collection[str]) -> bool:
    """A person's name or surname is an entity, not a topic, nor is ``bob wrote``."""
    if not names:
        return False
    if words and isinstance(names, _SETS) and names.isdisjoint(words):
        return False  # most phrases: no word of a name (one C loop)
    return all(w in names for w in words) or named_verb(words, names)


def _local_scores(
    cands: list[str], exclude: Iterable[str], names: Collection[str]
) -> dict[str, tuple[float, int]]:
    """(-score, first position) of each distinct candidate worth ranking, on the
    message's own statistics (plain single-document RAKE)."""
    stats = PhraseStats()
    stats.observe_candidates(cands)
    in_message = Counter(cands)
    skip = skipped(exclude)
    scored: dict[str, tuple[float, int]] = {}
    for pos, cand in enumerate(cands):
        words = cand.split()
        if cand in scored or (skip and cand in skip) or _is_name(words, names):
            continue
        if verbal(words) or (len(words) == 1 and (len(cand) < 4 or in_message[cand] < 2)):
            continue
        score = 0.0
        for w in words:
            score += stats.word_score(w)
        scored[cand] = (-score, pos)
    return scored


_SCORE, _LENGTH = itemgetter(1), itemgetter(3)
_LONG = 150 // MAX_WORDS + 1  # candidates a message needs to have over 150 words


def top_phrases(
    cands: list[str], ranking: Ranking, skip: Set[str], names: Collection[str]
) -> tuple[list[str], bool]:
    """``rank`` on the conversation's statistics (``skip``: phrases ruled out, as
    ``skipped`` gives them), and whether each phrase is its own case fold: each
    distinct (trimmed) candidate worth ranking once, by its score, then its first
    position. C loops over the candidates; a Python step per new one, and per phrase
    taken or passed over."""
    found = list(map(ranking.phrases.__getitem__, cands))
    long = len(found) >= _LONG and sum(map(_LENGTH, found)) > 150
    want = 5 if long else 3
    names = names if isinstance(names, _SETS) else set(names)
    top: list[str] = []
    folded = True
    # A stable sort: equal scores (the same phrase among them) in order of position.
    for text, _, words, n, own in sorted(found, key=_SCORE):
        if text is None:  # never ranked, as every one after it
            break
        if text in top or text in skip or (top and n == 1):
            continue
        if names and not names.isdisjoint(words) and _is_name(words, names):
            continue
        top.append(text)
        folded = folded and own
        if len(top) == want:
            break
    return top, folded


def _best(scored: dict[str, tuple[float, int]], words: int) -> list[str]:
    """The top phrases (5 of a message of over 150 candidate words, else 3): best score,
    then first seen; a single word only first."""
    ranked = [c for c, _ in sorted(scored.items(), key=itemgetter(1))]
    return (ranked[:1] + [c for c in ranked[1:] if " " in c])[: 5 if words > 150 else 3]


def rank(
    cands: list[str],
    stats: PhraseStats | None = None,
    exclude: Iterable[str] = (),
    names: Collection[str] = frozenset(),
) -> list[str]:
    """The best of one message's candidates (``candidates(text)``), as phrases; phrases
    made only of ``names`` (words of people's names, lower-case) are skipped."""
    if not cands:
        return []
    if stats is None or stats.docs == 0:
        length = sum(map(str.count, cands, repeat(" "))) + len(cands)
        return _best(_local_scores(cands, exclude, names), length)
    return top_phrases(cands, stats.ranking(), skipped(exclude), names)[0]
