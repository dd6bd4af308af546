"""Key phrases (RAKE over the conversation) and the text helpers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from convo.analysis.knowledge.extract import extract
from convo.analysis.knowledge.keyphrases import PhraseStats, candidates, keyphrases
from convo.analysis.knowledge.text import (
    body,
    clean_subject,
    emails,
    hashtags,
    mentions,
    questions,
    urls,
)


def test_candidates_split_on_stopwords_punctuation_and_numbers():
    got = candidates("The database migration needs 4 hours; the billing service, too.")
    assert got == ["database migration", "hours", "billing service"]


def test_candidates_drop_long_runs_and_short_words():
    assert candidates("alpha beta gamma delta epsilon") == []
    assert candidates("x y") == []
    assert candidates("Bob's laptop") == ["bob laptop"]


def test_single_message_rake_prefers_multiword_phrases():
    text = "Compatibility of systems of linear constraints over the set of natural numbers."
    assert keyphrases(text)[0] == "linear constraints"


def test_single_word_needs_recurrence():
    assert keyphrases("Kubernetes rocks") == ["kubernetes rocks"]
    assert keyphrases("Kubernetes!") == []
    stats = PhraseStats()
    for text in ("kubernetes!", "we love kubernetes.", "unrelated chatter"):
        stats.observe(text)
    assert keyphrases("Kubernetes!", stats) == ["kubernetes"]


def test_trailing_one_off_words_are_trimmed_in_a_conversation():
    stats = PhraseStats()
    for text in ("release schedule moves", "the release schedule", "other words"):
        stats.observe(text)
    assert keyphrases("release schedule moves", stats) == ["release schedule"]


def test_exclude_and_limit():
    text = "auth refactor; jwt tokens; session store; security audit; token expiry"
    assert len(keyphrases(text)) == 3
    assert "auth refactor" not in keyphrases(text, exclude=["Auth  Refactor"])


def test_urls_trim_punctuation_and_brackets():
    text = "see (https://x.org/a_(b)) and https://y.org/p?q=1. Or www.z.org!"
    assert urls(text) == ["https://x.org/a_(b)", "https://y.org/p?q=1", "www.z.org"]


def test_emails_mentions_hashtags():
    text = "mail a.b+c@ex.co.uk or @bob. see https://x.org/@carol#frag &#39; #Go #42 #v2 x#y"
    assert emails(text) == ["a.b+c@ex.co.uk"]
    assert mentions(text) == ["bob"]
    assert hashtags(text) == ["Go", "v2"]


def test_body_drops_quotes_signature_and_media():
    chunks = ["hi\n> quoted\nOn Tue, X wrote:\nend\n-- \nsig", "[image] https://i.png", "two"]
    assert body(chunks) == "hi\nend\ntwo"


def test_questions_and_subjects():
    assert questions("Is it ok? Yes. What about B?\nAnd C?", limit=2) == [
        "Is it ok?",
        "What about B?",
    ]
    assert questions("??? 123?") == []
    assert clean_subject("Re: Fwd:  AW: Launch   plan") == "Launch plan"


@given(st.text(max_size=300))
def test_property_extract_never_fails_on_any_text(text):
    r = {"textChunks": [text], "metadata": {"speaker": "A", "listeners": ["B"]}, "replyTo": text}
    k = extract(r)
    assert isinstance(k.to_dict()["topics"], list)
    extract({**r, "format": "mbox", "metadata": {"speaker": text, "listeners": [text]}})


def test_phrase_statistics_forget_the_rarest_words_past_the_vocabulary(monkeypatch):
    from convo.analysis.knowledge.keyphrases import PhraseStats

    monkeypatch.setattr(PhraseStats, "VOCABULARY", 100)
    stats = PhraseStats()
    for i in range(1_000):
        stats.observe_candidates([f"word{i}", "deploy pipeline"])
    assert len(stats.df) <= 100 and stats.floor >= 1
    assert stats.df["deploy"] == 1_000 and stats.freq["pipeline"] == 1_000
