"""The shortcuts of knowledge extraction give what the plain rules give.

``Aggregate`` remembers each speaker's key, summaries build no actions but replies,
actions are named canonically as they are made, and ``say`` copies TypeAgent's rule;
none of it may change a result. Key phrases follow statistics and names that change.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.analysis.knowledge.dicts import say
from convo.analysis.knowledge.extract import Conversation
from convo.analysis.knowledge.keyphrases import PhraseStats, candidates, rank
from convo.analysis.knowledge.summary import Aggregate
from convo.core.record import ConversationMessageMeta

NAMES = ["Alice Smith <alice@x.org>", "Bob Jones <bob@x.org>", "carol", "Dave", "user",
         "ALICE SMITH", "bob jones", "<erin@y.org>"]  # fmt: skip
WORDS = ["deploy", "pipeline", "budget", "review", "release", "schedule", "database",
         "token", "the", "and", "@dave", "@Carol", "https://x.org/a", "bob@x.org", "why?"]  # fmt: skip


def _records(seed: int, n: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        fmt = rng.choice(["mbox", "slack", "eml"])
        rec = {
            "textChunks": [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 14)))],
            "metadata": {"speaker": rng.choice(NAMES), "listeners": rng.sample(NAMES, 2)},
            "tags": rng.sample(["ops", "Ops", "bug"], rng.randint(0, 2)),
            "id": f"m{i}",
            "format": fmt,
        }
        if i and rng.random() < 0.3:
            rec["replyTo"] = f"m{rng.randrange(i + 10)}"
        if fmt != "slack":
            rec["subject"] = "Re: " + rng.choice(WORDS)
        out.append(rec)
    return out


def _conversation(records: list[dict]) -> tuple[Conversation, list]:
    conv = Conversation()
    return conv, [conv.observe_record(r) for r in records]


def _stats(texts: list[str]) -> PhraseStats:
    stats = PhraseStats()
    for t in texts:
        stats.observe(t)
    return stats


TEXT = st.lists(st.sampled_from([*WORDS[:10], ".", ",", "cd", "x"]), max_size=20).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=8), st.lists(TEXT, max_size=4), TEXT)
def test_rank_follows_statistics_that_change(first, more, text):
    stats = _stats(first)
    cands = candidates(text)
    assert rank(cands, stats) == rank(cands, _stats(first))
    for t in more:  # a new ranking each time: nothing remembered of the last one
        stats.observe(t)
    assert rank(cands, stats) == rank(cands, _stats(first + more))


def test_rank_follows_a_growing_name_set():
    stats = _stats(["the budget review", "budget review again", "review"])
    names: set[str] = set()
    cands = candidates("budget review")
    assert rank(cands, stats, names=names) == ["budget review"]
    names.update(["budget", "review"])  # a person named Budget Review joined
    assert rank(cands, stats, names=names) == []


def test_summaries_without_actions_count_the_same():
    records = _records(1, 400)
    conv, analyses = _conversation(records)
    full, replies = Aggregate(), Aggregate()
    for r, a in zip(records, analyses, strict=True):
        full.add(r, conv.extract_plain(r, a), conv)
        replies.add(r, conv.extract_plain(r, a, actions=False), conv)
    assert full.to_dict(None) == replies.to_dict(None)


def test_every_action_names_people_canonically():
    records = _records(2, 300)
    conv, analyses = _conversation(records)
    seen = 0
    for r, a in zip(records, analyses, strict=True):
        for act in conv.extract_plain(r, a)["actions"]:
            for key in ("subjectEntityName", "objectEntityName", "indirectObjectEntityName"):
                assert conv.canonical(act[key]) == act[key]
                seen += 1
    assert seen > 1000


def test_say_is_typeagents_rule():
    for speaker, listeners in [("A", ["B", "C"]), ("A", []), (None, ["B"]), ("", [])]:
        meta = ConversationMessageMeta(speaker=speaker or None, recipients=listeners)
        expected = meta.get_knowledge().to_dict()
        entities, actions = say(speaker, listeners)
        assert (entities, actions) == (expected["entities"], expected["actions"])


def test_pruned_people_get_their_spelling_again(monkeypatch):
    """The people cache is emptied when the aggregate forgets keys."""
    monkeypatch.setattr(Aggregate, "CAPACITY", 3)
    agg = Aggregate()
    for i in range(400):
        who = f"Person{i % 37}" if i % 2 else f"PERSON{i % 37}"
        agg.add({"metadata": {"speaker": who, "listeners": [f"L{i % 11}"]}}, _empty())
    d = agg.to_dict(None)  # every key held has a spelling
    assert all(s["name"].casefold().startswith("person") for s in d["speakers"])
    assert d["approximate"] is True


def _empty() -> dict:
    return {"entities": [], "actions": [], "inverse_actions": [], "topics": []}
