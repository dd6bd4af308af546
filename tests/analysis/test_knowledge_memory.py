"""What keeps ``convo knowledge``'s memory bounded: the aggregate's tables and spellings
whatever the vocabulary, and workers that load only what the analysis needs."""

from __future__ import annotations

import pickle
import subprocess
import sys

from convo.analysis.knowledge import metadata, summary
from convo.analysis.knowledge.summary import Aggregate


def _agg_of_unique_topics(n: int) -> Aggregate:
    agg = Aggregate()
    for i in range(n):
        k = {"entities": [], "actions": [], "inverse_actions": [], "topics": [f"Topic {i}"]}
        agg.add({"metadata": {"speaker": f"P{i % 7}", "listeners": []}}, k)
    return agg


def test_a_vocabulary_without_bound_stays_within_the_cap(monkeypatch):
    monkeypatch.setattr(Aggregate, "CAPACITY", 50)
    small, large = _agg_of_unique_topics(2_000), _agg_of_unique_topics(20_000)
    for agg in (small, large):
        assert len(agg.topics) <= 100 and len(agg.speaker_topics) <= 100
        # keys held: at most 7 speakers and 200 topics; spellings at most twice that,
        # and those of a batch's new topics (one a message)
        assert len(agg.spelling) <= 2 * (7 + 200) + 2 + summary.BATCH
    assert len(pickle.dumps(large)) < 1.5 * len(pickle.dumps(small))
    assert large.to_dict()["approximate"] is True


def test_lower_case_keys_share_their_spelling():
    agg = _agg_of_unique_topics(3)
    for key, spelling in agg.spelling.items():
        assert spelling.casefold() == key
    agg.add({"metadata": {"speaker": "x"}}, {"entities": [], "actions": [], "topics": ["y"]})
    agg.flush()
    assert next(k for k in agg.topics if k == "y") is agg.spelling["y"]


def test_the_workers_module_loads_neither_pydantic_nor_the_importers():
    code = (
        "import sys, convo.analysis.knowledge.ranges\n"
        "print(sorted(m for m in ('pydantic', 'convo.core.record', 'convo.importers.registry')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_email_formats_named_by_the_parent(monkeypatch):
    monkeypatch.setattr(metadata, "_EMAIL_NAMES", None)
    monkeypatch.setattr(metadata, "_EMAIL_FORMAT", {})
    metadata.use_email_format_names(frozenset({"acme-mail"}))
    assert metadata.is_email({"format": "acme-mail"})
    assert metadata.is_email({"format": "MBOX"})  # the built-in names in any case
    assert not metadata.is_email({"format": "slack"})
    metadata.use_email_format_names(frozenset())
    assert not metadata.is_email({"format": "acme-mail"})  # the cache follows the names


def test_email_format_names_come_from_the_registry(monkeypatch):
    monkeypatch.setattr(metadata, "_EMAIL_NAMES", None)
    names = metadata.email_format_names()
    assert {"mbox", "eml"} <= names and "slack" not in names
