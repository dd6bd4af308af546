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
from collections import Counter
from collections.abc import Collection, Iterable
from functools import lru_cache

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


_STOP = {None: STOPWORDS} | {k: STOPWORDS | v for k, v in OTHER_STOPWORDS.items()}


@lru_cache(maxsize=1 << 16)
def _norm(token: str) -> str | None:
    """The normalised word, or None when the token breaks a phrase (too short, a number)."""
    t = token.lower().replace("’", "'").strip("'-")
    if t.endswith("'s"):
        t = t[:-2]
    if len(t) < 2 or t.replace("-", "").isdigit():
        return None
    return t


def candidates(text: str) -> list[tuple[str, ...]]:
    """Candidate phrases (tuples of normalised words) in order of appearance.

    Stopwords are those of the message's language (``stopwords.language``) and English.
    """
    norm = _norm
    words = [norm(token) if token else None for token in _SCAN.findall(text)]
    stop = _STOP[language([w for w in words if w is not None], STOPWORDS)]
    out: list[tuple[str, ...]] = []
    run: list[str] = []
    for w in words:  # a word, or None for a phrase break
        if w is not None and w not in stop:
            run.append(w)
        elif run:
            _keep(run, out)
            run = []
    _keep(run, out)
    return out


def _keep(run: list[str], out: list[tuple[str, ...]]) -> None:
    """Add the run of words to ``out`` if it makes a candidate phrase."""
    if run and len(run) <= MAX_WORDS and any(len(x) >= 3 for x in run):
        out.append(tuple(run))


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

    def _forget(self) -> None:
        while len(self.df) > self.VOCABULARY // 2:
            self.floor += 1
            rare = [w for w, n in self.df.items() if n <= self.floor]
            for w in rare:
                del self.df[w], self.freq[w], self.degree[w]

    def observe(self, text: str) -> None:
        self.observe_candidates(candidates(text))

    def observe_candidates(self, cands: Iterable[tuple[str, ...]]) -> None:
        seen: set[str] = set()
        for cand in cands:
            for w in cand:
                self.freq[w] += 1
                self.degree[w] += len(cand)
                seen.add(w)
        self.df.update(seen)
        self.docs += 1
        if len(self.df) > self.VOCABULARY:
            self._forget()

    def merge(self, other: PhraseStats) -> None:
        """Add the statistics of more messages (exact: plain sums)."""
        self.freq.update(other.freq)
        self.degree.update(other.degree)
        self.df.update(other.df)
        self.docs += other.docs
        self.floor = max(self.floor, other.floor)
        if len(self.df) > self.VOCABULARY:
            self._forget()

    def word_score(self, w: str) -> float:
        f = self.freq.get(w, 0)
        return self.degree[w] / f if f else 1.0


def _trim(cand: tuple[str, ...], df: dict[str, int]) -> tuple[str, ...]:
    if len(cand) < 2:
        return cand
    end = len(cand)
    while end and df.get(cand[end - 1], 0) < 2:
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


def _scores(
    cands: list[tuple[str, ...]],
    stats: PhraseStats,
    local: bool,
    exclude: Iterable[str],
    names: Collection[str],
) -> dict[tuple[str, ...], tuple[float, int]]:
    """(score, first position) of each distinct candidate worth ranking."""
    in_message: Counter[tuple[str, ...]] | None = Counter(cands) if local else None
    skip = {" ".join(x.casefold().split()) for x in exclude}
    freq, degree, df = stats.freq, stats.degree, stats.df
    scored: dict[tuple[str, ...], tuple[float, int]] = {}
    for pos, cand in enumerate(cands):
        if cand in scored or (skip and " ".join(cand) in skip) or _is_name(cand, names):
            continue
        if len(cand) == 1:
            w = cand[0]
            recurs = in_message[cand] >= 2 if in_message is not None else df.get(w, 0) >= 2
            if len(w) < 4 or not recurs:
                continue
        score = 0.0
        for w in cand:  # PhraseStats.word_score, inlined (the hot loop of key phrases)
            f = freq.get(w, 0)
            score += degree.get(w, 0) / f if f else 1.0
        scored[cand] = (score, pos)
    return scored


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
    local = stats is None or stats.docs == 0
    if local:
        stats = PhraseStats()
        stats.observe_candidates(cands)
    assert stats is not None
    if not local:
        df = stats.df
        cands = [_trim(c, df) for c in cands]
    scored = _scores(cands, stats, local, exclude, names)
    ranked = sorted(scored.items(), key=lambda kv: (-kv[1][0], kv[1][1]))
    n_words = sum(len(c) for c in cands)
    top = 5 if n_words > 150 else 3
    return [" ".join(c) for c, _ in ranked[:top]]
