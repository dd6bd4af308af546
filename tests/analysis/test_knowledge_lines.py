"""The shorter paths for the common message give what the plain rules give: ``Lines``
joins cached JSON pieces (the bytes of ``knowledge_line`` over ``extract_plain``),
``Aggregate.add_analysed`` counts it without its knowledge, and ``rank`` remembers the
candidates it met."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.analysis.knowledge import keyphrases
from convo.analysis.knowledge.extract import Conversation
from convo.analysis.knowledge.keyphrases import PhraseStats, candidates, rank
from convo.analysis.knowledge.lines import Lines, knowledge_line
from convo.analysis.knowledge.summary import Aggregate
from convo.core.people import People

# A people file over NAMES: records read through it (``People.canonical_record``, as
# ``analysis.parallel`` gives them) hold a person's bare name where mail had an address.
PEOPLE = People.of({"people": {
    "alice": {"name": "Alice Smith", "names": ["alice smith", "Smith, Alice"],
              "addresses": ["alice@x.org"]},
    "bob": {"name": "Bob", "addresses": ["bob@y.org"]},
    "carol": {"name": "Carol White", "addresses": ["carol@x.org"]},
}})  # fmt: skip

NAMES = ["Alice Smith", "alice smith", "Bob", "BOB", "user", "Assistant", "Zoë Ødegaard",
         'quote " name', "back\\slash", "Carol <carol@x.org>", "none", "", "carol@x.org",
         "Alice Smith <alice@x.org>", "Email <e@x.org>", "email", "User <u@x.org>",
         '"Smith, Alice" <ALICE@x.org>', "<bob@y.org>", "Bob <bob@y.org>"]  # fmt: skip
WORDS = ["deploy", "pipeline", "budget", "review", "alice", "smith", "the", "and", "why?",
         "@bob", "https://x.org/a", "carol@x.org", "#ops", "\n", "Ünïcode", "release",
         "Paris", "v2.1", "notes.md", "I", "fixed", "Bob", "wrote", "JWT", "10:30", "Teams"]  # fmt: skip

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
        "extra": st.fixed_dictionaries(
            {},
            optional={k: st.lists(st.sampled_from(NAMES), max_size=3) for k in ("to", "cc", "bcc")},
        ),
    },
)


@settings(max_examples=200, deadline=None)
@given(st.lists(record, max_size=8), st.booleans())
def test_lines_are_the_plain_knowledge_lines(records, people):
    if people:
        records = [PEOPLE.canonical_record(r) for r in records]
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
    return (agg.messages, agg.spelling, agg.entity_types, agg._pending.lists(),
            [(t.counts, t.total, t.error) for t in agg._tables()])  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(record, max_size=12), st.sampled_from([1, 2, 1000]), st.booleans())
def test_summary_counts_the_common_message_as_its_knowledge(records, capacity, people):
    """``add_analysed`` = ``add`` of ``extract_plain``: the same tables, reductions and
    spellings, also when tiny tables reduce and prune on every message, and with a
    people file."""
    if people:
        records = [PEOPLE.canonical_record(r) for r in records]
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


def test_a_mail_message_is_joined_from_its_addresses(monkeypatch):
    """To, Cc and Bcc, a reply to a message seen: the shorter path, the same bytes."""
    conv = Conversation()
    parent = {"textChunks": ["budget"], "metadata": {"speaker": "Bo <bo@y.org>"},
              "id": "p1", "format": "mbox"}  # fmt: skip
    r = {"textChunks": ["deploy the pipeline"], "format": "mbox", "id": "m1",
         "metadata": {"speaker": '"Ann A." <ann@x.org>', "listeners": ["Bo <bo@y.org>", "cy@z.org"]},
         "extra": {"to": ["Bo <bo@y.org>"], "cc": ["cy@z.org"], "bcc": ["Dé <d@z.org>"]},
         "subject": "Re: pipeline", "replyTo": "p1"}  # fmt: skip
    analyses = [conv.observe_record(x) for x in (parent, r)]
    want = knowledge_line(r, conv.extract_plain(r, analyses[1]))
    lines = Lines(conv)

    def fail(*args):
        raise AssertionError("the plain path was taken")

    monkeypatch.setattr("convo.analysis.knowledge.lines.knowledge_line", fail)
    assert lines.line(r, analyses[1]) == want
    assert b'"verbs":["reply"]' in want and b'"received"' in want


def test_a_mail_message_replying_to_itself_names_its_sender():
    """The message is noted as a parent before its reply is resolved, on every path."""
    conv = Conversation()
    r = {"textChunks": ["budget"], "format": "mbox", "id": "m1", "replyTo": "m1",
         "metadata": {"speaker": "Ann <ann@x.org>", "listeners": ["Bo <bo@y.org>"]}}  # fmt: skip
    a = conv.observe_record(r)
    reply = (
        b'"verbs":["reply"],"verbTense":"past","subjectEntityName":"Ann","objectEntityName":"Ann"'
    )
    assert reply in Lines(conv).line(r, a)
    conv = Conversation()
    a = conv.observe_record(r)
    short = Aggregate()
    short.add_analysed(r, a, conv)  # first: the message is not noted as a parent yet
    plain = Aggregate()
    plain.add(r, conv.extract_plain(r, a, False), conv)
    assert _table_state(short) == _table_state(plain)


def test_a_summary_counts_a_question_on_the_short_path(monkeypatch):
    """A question to a listener makes only an ``ask``, which a summary does not count."""
    conv = Conversation()
    r = {"textChunks": ["why is the deploy late?"], "format": "slack", "id": "q",
         "metadata": {"speaker": "Ann", "listeners": ["Bo"]}}  # fmt: skip
    a = conv.observe_record(r)
    assert a.questions
    plain = Aggregate()
    plain.add(r, conv.extract_plain(r, a, False), conv)
    short = Aggregate()
    monkeypatch.setattr(conv, "extract_plain", lambda *_: pytest.fail("the long path"))
    short.add_analysed(r, a, conv)
    assert short.to_dict(None) == plain.to_dict(None)
