"""Key phrases give what the plain rules give: candidates read token by token over the
whole text, statistics summed word by word, the ranking and the topics computed
directly (the module's caches, pieces, waiting candidates and shortcuts change no
result)."""

from __future__ import annotations

import sys
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.analysis.knowledge import keyphrases
from convo.analysis.knowledge.extract import Conversation, _dedupe, topics_of
from convo.analysis.knowledge.keyphrases import (
    _SCAN,
    _STOP,
    MAX_WORDS,
    STOPWORDS,
    PhraseStats,
    _norm,
    candidates,
    rank,
)
from convo.analysis.knowledge.stopwords import language, named_verb, verbal
from convo.analysis.knowledge.text import body, clean_subject

WORDS = ["deploy", "pipeline", "budget", "review", "release", "schedule", "database", "db",
         "ui", "the", "and", "über", "die", "und", "le", "pour", "nous", "wir", "man", "Bob's",
         "it’s", "STRASSE", "straße", "Straße", "ǅemal", "smith", "Smith", "4", "42x", "x",
         ".", ",", " - ", "--", "\n", "'", "-dash-", "a_b", "日本語", "é"]  # fmt: skip
TEXT = st.lists(st.sampled_from(WORDS), max_size=24).map(" ".join)
JOINED = st.lists(st.sampled_from(WORDS), max_size=24).map("".join)  # pieces that run on
TEXTS = st.one_of(TEXT, JOINED, st.text(max_size=60))


def plain_candidates(text: str) -> list[str]:
    """The candidates read token by token: words (``_norm``; None breaks) between the
    breaks ``_SCAN`` finds, split on the stopwords of the message's language."""
    words = [_norm(m.group(1)) if m.group(1) else None for m in _SCAN.finditer(text)]
    stop = _STOP[language(words, STOPWORDS)]
    runs: list[list[str]] = [[]]
    for w in words:
        if w is None or w in stop:
            runs.append([])
        else:
            runs[-1].append(w)
    return [
        " ".join(run)
        for run in runs
        if run and len(run) <= MAX_WORDS and any(len(w) >= 3 for w in run)
    ]


def plain_stats(texts: list[str]) -> tuple[Counter, Counter, Counter]:
    freq: Counter[str] = Counter()
    degree: Counter[str] = Counter()
    df: Counter[str] = Counter()
    for text in texts:
        cands = [c.split() for c in plain_candidates(text)]
        for cand in cands:
            for w in cand:
                freq[w] += 1
                degree[w] += len(cand)
        df.update({w for cand in cands for w in cand})
    return freq, degree, df


def plain_rank(cands: list[str], texts: list[str], exclude: list[str], names: set[str]):
    """RAKE over the conversation ``texts``, as the module docstring states it."""
    freq, degree, df = plain_stats(texts)
    skip = {" ".join(x.casefold().split()) for x in exclude}
    scored: dict[str, tuple[float, int]] = {}
    length = 0
    for pos, cand in enumerate(cands):
        words = cand.split()
        if len(words) > 1 and df[words[-1]] < 2:
            end = len(words)
            while end and df[words[end - 1]] < 2:
                end -= 1
            words = words[:end] or words
        length += len(words)
        phrase = " ".join(words)
        # what is no topic, by the module's own word rules (stopwords.verbal: verb forms
        # only; named_verb: a person and what they did)
        if verbal(words) or (len(words) == 1 and (len(phrase) < 4 or df[phrase] < 2)):
            continue
        named = names and (set(words) <= names or named_verb(words, names))
        if phrase in scored or phrase in skip or named:
            continue
        total = 0.0
        for w in words:
            total += degree[w] / freq[w] if freq[w] else 1.0
        scored[phrase] = (-total, pos)
    ranked = sorted(scored, key=scored.__getitem__)
    # a single word only as the best phrase
    ranked = ranked[:1] + [p for p in ranked[1:] if " " in p]
    return ranked[: 5 if length > 150 else 3]


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_candidates_are_read_token_by_token(text):
    assert candidates(text) == plain_candidates(text)
    assert candidates(text) == plain_candidates(text)  # again, from the caches


@settings(max_examples=150, deadline=None)
@given(st.lists(TEXTS, min_size=1, max_size=12), st.sampled_from([1, 2, 8, 1 << 13]))
def test_statistics_are_the_plain_sums(texts, pending):
    was = PhraseStats.PENDING
    PhraseStats.PENDING = pending  # candidates wait, some counted early, some late
    try:
        stats, other = PhraseStats(), PhraseStats()
        half = len(texts) // 2
        for t in texts[:half]:
            stats.observe(t)
        for t in texts[half:]:
            other.observe(t)
    finally:
        PhraseStats.PENDING = was
    freq, degree, df = plain_stats(texts)
    assert (other.freq, other.degree) == plain_stats(texts[half:])[:2]
    stats.merge(other)
    assert (stats.freq, stats.degree, stats.df, stats.docs) == (freq, degree, df, len(texts))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(TEXT, min_size=1, max_size=10),
    TEXTS,
    st.lists(st.sampled_from(["Deploy  Pipeline", "budget", "STRASSE", "", " ", "x y"])),
    st.sampled_from([set(), {"smith"}, {"deploy", "pipeline"}, {"budget", "review", "db"}]),
    st.sampled_from([0, 2, 4096]),
)
def test_rank_is_the_plain_ranking(texts, text, exclude, names, phrases):
    stats = PhraseStats()
    for t in texts:
        stats.observe(t)
    was = keyphrases.PHRASES
    keyphrases.PHRASES = phrases
    try:
        cands = candidates(text)
        expected = plain_rank(cands, texts, exclude, names)
        assert rank(cands, stats, exclude, names) == expected
        assert rank(cands, stats, exclude, names) == expected  # remembered phrases
    finally:
        keyphrases.PHRASES = was


RECORD = st.fixed_dictionaries(
    {"textChunks": st.lists(TEXT, max_size=2),
     "metadata": st.fixed_dictionaries({"speaker": st.sampled_from(["Ann Smith", "Bob"])})},
    optional={"subject": st.sampled_from(["Re: Straße", "deploy  pipeline", "Budget", ""]),
              "tags": st.lists(st.sampled_from(["strasse", "Review", "ops", " ", 7, ["ops"]]))},
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(RECORD, min_size=1, max_size=10))
def test_topics_are_the_plain_topics(records):
    conv = Conversation()
    analyses = [conv.observe_record(r) for r in records]
    # the text a person wrote, as the analysis reads it (no signature after "-- ")
    texts = [body(r["textChunks"]) for r in records]
    for r, a in zip(records, analyses, strict=True):
        topics = [clean_subject(r["subject"])] if "subject" in r else []
        topics += [t for t in r.get("tags", []) if isinstance(t, str)] + a.hashtags
        phrases = plain_rank(a.candidates, texts, topics, conv.name_words)
        assert topics_of(r, a, conv) == _dedupe(topics + phrases)
        assert topics_of(r, a, conv) == _dedupe(topics + phrases)  # remembered tags


def test_case_folding_keeps_whitespace_and_makes_none():
    """What ``topics_of`` relies on: a topic's key (whitespace collapsed, then case
    folded) is what ``keyphrases.skipped`` makes of it (case folded, then collapsed)."""
    for code in range(sys.maxunicode + 1):
        c = chr(code)
        folded = c.casefold()
        if c.isspace():
            assert folded == c
        else:
            assert folded and len(folded.split()) == 1 and folded.split()[0] == folded
