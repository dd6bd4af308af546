"""The shorter paths for the common message give what the plain rules give: ``Lines``
joins cached JSON pieces (the bytes of ``knowledge_line`` over ``extract_plain``),
``Aggregate.add_analysed`` counts it without its knowledge, and ``rank`` remembers the
candidates it met."""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.analysis.knowledge import keyphrases
from convo.analysis.knowledge.extract import Conversation
from convo.analysis.knowledge.keyphrases import PhraseStats, candidates, rank
from convo.analysis.knowledge.lines import Lines, knowledge_line
from convo.analysis.knowledge.summary import Aggregate

NAMES = ["Alice Smith", "alice smith", "Bob", "BOB", "user", "Assistant", "Zoë Ødegaard",
         'quote " name', "back\\slash", "Carol <carol@x.org>", "none", ""]  # fmt: skip
WORDS = ["deploy", "pipeline", "budget", "review", "alice", "smith", "the", "and", "why?",
         "@bob", "https://x.org/a", "carol@x.org", "#ops", "\n", "Ünïcode", "release"]  # fmt: skip

TEXT = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)
record = st.fixed_dictionaries(
    {
        "textChunks": st.lists(TEXT, max_size=2),
        "metadata": st.fixed_dictionaries(
            {"speaker": st.sampled_from(NAMES), "listeners": st.lists(st.sampled_from(NAMES))}
        ),
        "format": st.sampled_from(["slack", "mbox", "discord"]),
        "id": st.one_of(st.none(), st.sampled_from(["m0", "m1", "m2"])),
        "source_id": st.one_of(st.none(), st.just("src#1"), st.just("")),
    },
    optional={
        "tags": st.lists(st.sampled_from(["ops", "Ops", "budget review", 7])),
        "subject": st.sampled_from(["Re: budget", "deploy pipeline", ""]),
        "replyTo": st.sampled_from(["m0", "m1", "", None]),
    },
)


@settings(max_examples=200, deadline=None)
@given(st.lists(record, max_size=8))
def test_lines_are_the_plain_knowledge_lines(records):
    conv = Conversation()
    analyses = [conv.observe_record(r) for r in records]
    lines = Lines(conv)
    for r, a in zip(records, analyses, strict=True):
        assert lines.line(r, a) == knowledge_line(r, conv.extract_plain(r, a))


def test_the_common_message_is_joined_from_pieces():
    conv = Conversation()
    r = {"textChunks": ["deploy the pipeline"], "metadata": {"speaker": "Ann",
         "listeners": ["Bo", 'Cé "x"']}, "id": "a", "format": "slack"}  # fmt: skip
    a = conv.observe_record(r)
    assert Lines(conv).line(r, a) == knowledge_line(r, conv.extract_plain(r, a))


def _table_state(agg: Aggregate) -> tuple:
    return (agg.messages, agg.spelling, agg.entity_types,
            [(t.counts, t.total, t.error) for t in agg._tables()])  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(record, max_size=12), st.sampled_from([1, 2, 1000]))
def test_summary_counts_the_common_message_as_its_knowledge(records, capacity):
    """``add_analysed`` = ``add`` of ``extract_plain``: the same tables, reductions and
    spellings, also when tiny tables reduce and prune on every message."""
    conv = Conversation()
    analyses = [conv.observe_record(r) for r in records]
    was = Aggregate.CAPACITY
    Aggregate.CAPACITY = capacity  # the tables take it when made
    try:
        short, plain = Aggregate(), Aggregate()
    finally:
        Aggregate.CAPACITY = was
    assert short.speakers.capacity == capacity
    for r, a in zip(records, analyses, strict=True):
        short.add_analysed(r, a, conv)
        plain.add(r, conv.extract_plain(r, a, False), conv)
        assert _table_state(short) == _table_state(plain)
    assert short.to_dict(None) == plain.to_dict(None)


@settings(max_examples=100, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=10), st.lists(TEXT, min_size=1, max_size=6))
def test_rank_remembers_phrases_without_changing_them(seen, texts):
    """A ranking's remembered phrases (some, with a small ``PHRASES``) rank as new ones."""
    stats = PhraseStats()
    for t in seen:
        stats.observe(t)
    fresh = [rank(candidates(t), stats, exclude=["ops"]) for t in texts]
    again = [rank(candidates(t), stats, exclude=["ops"]) for t in texts]  # remembered
    stats._ranking = None  # a new ranking that remembers at most two candidates
    with _phrases(2):
        few = [rank(candidates(t), stats, exclude=["ops"]) for t in texts]
    assert fresh == again == few


@contextlib.contextmanager
def _phrases(n: int):
    was = keyphrases.PHRASES
    keyphrases.PHRASES = n
    try:
        yield
    finally:
        keyphrases.PHRASES = was
