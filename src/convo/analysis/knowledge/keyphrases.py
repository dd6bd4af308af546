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
- Per message at most 3 phrases (5 for messages over 150 words), best first; ties go to
  the earlier phrase. Phrases are lower-case (possessive ``'s`` removed) so they merge
  across messages.
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
from collections.abc import Collection, Iterable
from itertools import chain
from operator import itemgetter, mul
from typing import Any, NamedTuple

from convo.analysis.knowledge.stopwords import STOPWORDS as OTHER_STOPWORDS
from convo.analysis.knowledge.stopwords import language

MAX_WORDS = 4

_STOPWORD_TEXT = """
    a about above after again against all almost along already also although always am among an
    and another any anybody anyone anything anyway anywhere are aren't around as ask asked at away
    back be became because become been before behind being below best better between both but by
    can can't cannot could couldn't did didn't do does doesn't doing don't done down during each
    either else enough etc even ever every everybody everyone everything few first for from
    further get gets getting give given go goes going gone good got great had hadn't has hasn't
    have haven't having he he'd he'll he's her here here's hers herself him himself his how how's
    however i i'd i'll i'm i've if in indeed instead into is isn't it it'd it'll it's its itself
    just keep kind last least less let let's lets like likely look looks lot lots made make makes
    many may maybe me might mine more most much must mustn't my myself need needs never new next
    no nobody none nor not nothing now of off often oh ok okay old on once one ones only onto or
    other others otherwise our ours ourselves out over own per perhaps please put quite rather
    re really right said same say says see seem seems seen shall shan't she she'd she'll she's
    should shouldn't since so some somebody someone something sometimes soon still such sure take
    tell than thank thanks that that's the their theirs them themselves then there there's these
    they they'd they'll they're they've thing things think this those though through thus to today
    together too tomorrow took toward towards try trying two under until up upon us use used using
    very via want wanted wants was wasn't way we we'd we'll we're we've well went were weren't what
    what's whatever when when's where where's whether which while who who's whom whose why why's
    will with within without won't would wouldn't yes yet you you'd you'll you're you've your
    yours yourself yourselves yeah yep yup nope hey hi hello bye cheers thx ty lol hmm uh um ah
    gonna gotta wanna kinda sorta actually basically definitely probably totally pretty stuff
    anyways also cool nice awesome agree agreed guess mean means know knew think thought feel
    sounds sound fine hope hopefully let's lemme wait still tbh imo fyi btw pm am
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# A word (group 1), or something that breaks a phrase: punctuation, a spaced dash, a line end.
_SCAN = re.compile(r"([^\W_][\w'’-]*)|[^\w\s'’-]+|\s-+\s|\n")
_CACHE_MAX = 1 << 16  # distinct tokens and pieces remembered (bounded memory)
PHRASES = 1 << 12  # candidates a ranking remembers (bounded memory: about 1.5 MB)


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
    """Word (or None) -> its part of a run text: the word and a space, or a newline when
    it breaks a phrase (None, or a stopword of ``stop``)."""

    def __init__(self, stop: frozenset[str]):
        super().__init__()
        self.stop = stop

    def __missing__(self, word: str | None) -> str:
        text = self[word] = "\n" if word is None or word in self.stop else word + " "
        return text


_STOP = {None: STOPWORDS} | {k: STOPWORDS | v for k, v in OTHER_STOPWORDS.items()}
_FOREIGN_ONLY = frozenset().union(*OTHER_STOPWORDS.values()) - STOPWORDS
_WORDS = _Words()
_TEXTS = {lang: _Texts(stop) for lang, stop in _STOP.items()}
_NEWLINE = "\x00"  # stands for a newline in a text split on whitespace (a break, as \x00 is)


class _Pieces(dict):
    """A whitespace-separated piece of text -> its words (``_norm`` of each token
    ``_SCAN`` finds in it; None for a break) and the English run text of those words;
    ``foreign`` holds the pieces with a stopword of another language only.

    ``_SCAN``'s words and punctuation runs hold no whitespace, so they lie within the
    pieces, and a piece of letters and digits only is one word. What spans whitespace is
    a break: a newline (``_NEWLINE``), and a spaced dash (``\\s-+\\s``: a piece of dashes
    only; when an earlier one took the space before it, that one broke the same gap).
    How many breaks stand between two words does not change the candidates.
    """

    def __init__(self) -> None:
        super().__init__()
        self.words: dict[str, tuple[str | None, ...]] = {}
        self.foreign: set[str] = set()

    def __missing__(self, piece: str) -> str:
        if piece.isalnum():
            tokens = [piece]
        else:
            tokens = _SCAN.findall(piece) or ([] if piece.strip("-") else [""])
        words = self.words[piece] = tuple(map(_WORDS.__getitem__, tokens))
        if not _FOREIGN_ONLY.isdisjoint(words):
            self.foreign.add(piece)
        text = self[piece] = "".join(map(_TEXTS[None].__getitem__, words))
        return text

    def bound(self) -> None:
        """Forget everything past ``_CACHE_MAX`` pieces (between messages, never during one)."""
        if len(self) > _CACHE_MAX:
            self.clear()
            self.words.clear()
            self.foreign.clear()
            _WORDS.clear()
            for texts in _TEXTS.values():
                texts.clear()


_PIECES = _Pieces()


def candidates(text: str) -> list[tuple[str, ...]]:
    """Candidate phrases (tuples of normalised words) in order of appearance.

    Stopwords are those of the message's language (``stopwords.language``) and English.
    Each distinct piece of text is read once (``_Pieces``); a message is then C loops
    over its pieces, and a Python step per run between breaks.
    """
    _PIECES.bound()
    pieces = (text.replace("\n", f" {_NEWLINE} ") if "\n" in text else text).split()
    parts = list(map(_PIECES.__getitem__, pieces))
    if not _PIECES.foreign.isdisjoint(pieces):
        words = list(chain.from_iterable(map(_PIECES.words.__getitem__, pieces)))
        lang = language(words, STOPWORDS)
        if lang is not None:
            parts = list(map(_TEXTS[lang].__getitem__, words))
    # Each word is followed by a space (n words: n spaces) and has two letters or more;
    # empty runs (breaks in a row) are dropped by a C loop first.
    return [
        tuple(run.split())
        for run in filter(None, "".join(parts).split("\n"))
        if (n := run.count(" ")) <= MAX_WORDS and len(run) > 3 * n
    ]


class PhraseStats:
    """Word frequency, RAKE degree and message count (document frequency) per word.

    Memory is bounded: past ``VOCABULARY`` distinct words, the rarest are forgotten (all
    words in at most ``floor`` messages, ``floor`` raised until half the room is free).
    Exact until then, which holds for any real conversation's vocabulary; after, a
    forgotten word scores as a word never seen (1) and does not count as recurring,
    which for the words in one message only (the first forgotten) changes no decision
    but their score. ``merge`` sums, then forgets the same way.
    """

    VOCABULARY = 100_000

    def __init__(self) -> None:
        self.freq: Counter[str] = Counter()
        self.degree: Counter[str] = Counter()
        self.df: Counter[str] = Counter()
        self.docs = 0
        self.floor = 0  # words in at most this many messages may have been forgotten
        self._ranking: Ranking | None = None  # derived for ``rank``; dropped on a change

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_ranking"] = None  # derived: a worker derives its own
        return state

    def _forget(self) -> None:
        while len(self.df) > self.VOCABULARY // 2:
            self.floor += 1
            rare = [w for w, n in self.df.items() if n <= self.floor]
            for w in rare:
                del self.df[w], self.freq[w], self.degree[w]

    def observe(self, text: str) -> None:
        self.observe_candidates(candidates(text))

    def observe_candidates(self, cands: Iterable[tuple[str, ...]]) -> None:
        cands = cands if isinstance(cands, list) else list(cands)
        words = list(chain.from_iterable(cands))
        # C loops: a word counts once per occurrence, its degree the candidate's length
        # each time (a candidate repeated len times), its df once per message. Counted by
        # ``Counter.update``'s own loop, without the Mapping test that wraps it (the
        # keys are never a mapping; the test cost as much as one message's counting).
        _count_elements(self.freq, words)
        _count_elements(self.degree, chain.from_iterable(map(mul, cands, map(len, cands))))
        _count_elements(self.df, set(words))
        self.docs += 1
        self._ranking = None
        if len(self.df) > self.VOCABULARY:
            self._forget()

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
            self._ranking = Ranking(scores, recurring, {})
        return self._ranking


class Ranking(NamedTuple):
    """What ``rank`` reads of a conversation's ``PhraseStats``, and what it made of the
    candidates it met (``phrase``)."""

    scores: dict[str, float]  # degree / frequency (a word not here scores 1.0)
    recurring: frozenset[str]  # words in two messages or more
    phrases: dict[tuple[str, ...], tuple[tuple[str, ...], float | None]]  # ``phrase``'s

    def phrase(self, cand: tuple[str, ...]) -> tuple[tuple[str, ...], float | None]:
        """The candidate with its trailing words of one message trimmed, and minus its
        score (None: never ranked, a single word too short or in one message only).
        The first ``PHRASES`` are remembered: a conversation repeats its short phrases,
        and the common ones come early."""
        recurring = self.recurring
        words = cand if len(cand) < 2 or cand[-1] in recurring else _trim(cand, recurring)
        get = self.scores.get
        score: float | None = None
        if len(words) > 1:
            total = 0.0
            for w in words:  # in order, as PhraseStats.word_score summed (the same float)
                total += get(w, 1.0)
            score = -total
        elif len(words[0]) >= 4 and words[0] in recurring:
            score = -get(words[0], 1.0)
        if len(self.phrases) < PHRASES:
            self.phrases[cand] = (words, score)
        return words, score


def _trim(cand: tuple[str, ...], recurring: frozenset[str]) -> tuple[str, ...]:
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


def _is_name(cand: tuple[str, ...], names: Collection[str]) -> bool:
    """A person's name or surname is an entity, not a topic."""
    return bool(names) and all(w in names for w in cand)


def _local_scores(
    cands: list[tuple[str, ...]], exclude: Iterable[str], names: Collection[str]
) -> dict[tuple[str, ...], tuple[float, int]]:
    """(-score, first position) of each distinct candidate worth ranking, on the
    message's own statistics (plain single-document RAKE)."""
    stats = PhraseStats()
    stats.observe_candidates(cands)
    in_message = Counter(cands)
    skip = {" ".join(x.casefold().split()) for x in exclude}
    scored: dict[tuple[str, ...], tuple[float, int]] = {}
    for pos, cand in enumerate(cands):
        if cand in scored or (skip and " ".join(cand) in skip) or _is_name(cand, names):
            continue
        if len(cand) == 1 and (len(cand[0]) < 4 or in_message[cand] < 2):
            continue
        score = 0.0
        for w in cand:
            score += stats.word_score(w)
        scored[cand] = (-score, pos)
    return scored


def _ranked(
    cands: list[tuple[str, ...]],
    ranking: Ranking,
    exclude: Iterable[str],
    names: Collection[str],
) -> list[str]:
    """``rank`` on the conversation's statistics: each distinct (trimmed) candidate worth
    ranking once, at its first position, by its score."""
    # A phrase is excluded when its words are those of an excluded topic: its words
    # hold no whitespace, so that is when their joined text would be the topic's.
    skip = {tuple(x.casefold().split()) for x in exclude}
    names = names if isinstance(names, set | frozenset) else set(names)
    known, phrase = ranking.phrases.get, ranking.phrase
    length = 0
    scored: dict[tuple[str, ...], tuple[float, int]] = {}
    for pos, cand in enumerate(cands):
        words, score = known(cand) or phrase(cand)
        length += len(words)
        if (
            score is None
            or words in scored
            or (skip and words in skip)
            or (names and names.issuperset(words))
        ):
            continue
        scored[words] = (score, pos)
    return _best(scored, length)


def _best(scored: dict[tuple[str, ...], tuple[float, int]], words: int) -> list[str]:
    """The top phrases (5 of a message of over 150 candidate words, else 3): best score,
    then first seen."""
    ranked = sorted(scored.items(), key=itemgetter(1))
    return [" ".join(c) for c, _ in ranked[: 5 if words > 150 else 3]]


def rank(
    cands: list[tuple[str, ...]],
    stats: PhraseStats | None = None,
    exclude: Iterable[str] = (),
    names: Collection[str] = frozenset(),
) -> list[str]:
    """The best of one message's candidates (``candidates(text)``), as phrases; phrases
    made only of ``names`` (words of people's names, lower-case) are skipped."""
    if not cands:
        return []
    if stats is None or stats.docs == 0:
        return _best(_local_scores(cands, exclude, names), sum(map(len, cands)))
    return _ranked(cands, stats.ranking(), exclude, names)
