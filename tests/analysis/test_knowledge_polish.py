"""Knowledge as a reader expects it: roles and @here are not people, stopwords of the
message's language and people's surnames are not topics, the header counts every speaker."""

from __future__ import annotations

from tests.analysis.test_knowledge import rec

from convo.analysis.knowledge.extract import extract, extract_all
from convo.analysis.knowledge.keyphrases import candidates
from convo.analysis.knowledge.stopwords import language
from convo.analysis.knowledge.summary import aggregate
from convo.output.views.knowledge import parts


def _types(k) -> dict[str, list[str]]:
    return {e.name: e.type for e in k.entities}


def test_chat_roles_are_roles_not_people():
    k = extract(rec("How do I rotate keys?", speaker="user", listeners=["assistant"]))
    assert _types(k) == {"user": ["role"], "assistant": ["role"]}
    meta = extract(rec("x", speaker="user"), metadata_only=True)  # TypeAgent's, unchanged
    assert _types(meta) == {"user": ["person"]}


def test_broadcast_mentions_name_nobody():
    k = extract(rec("@here @everyone @channel deploy at noon, @dave", speaker="erin"))
    assert set(_types(k)) == {"erin", "dave"}


def test_language_of_a_message():
    from convo.analysis.knowledge.keyphrases import STOPWORDS

    assert language(["wir", "haben", "die", "datenbank", "migration", "nicht"], STOPWORDS) == "de"
    assert language(["nous", "avons", "une", "réunion", "pour", "le", "budget"], STOPWORDS) == "fr"
    assert language(["we", "have", "the", "database", "migration"], STOPWORDS) is None


def test_german_and_french_stopwords_break_phrases():
    de = candidates("Wir haben die Datenbank Migration nicht geschafft, aber morgen")
    assert "datenbank migration" in de and not any("die" in c.split() for c in de)
    fr = candidates("Nous avons une réunion pour le budget trimestriel avec Paul")
    assert "budget trimestriel" in fr and not any("pour" in c.split() for c in fr)
    # an English message keeps English words that are stopwords elsewhere ("die", "man")
    assert "man pages" in candidates("Read the man pages before you die")


def test_surnames_of_known_people_are_not_topics():
    msgs = [
        rec("Smith said the budget forecast slipped", speaker="Alice Smith", id="1"),
        rec("Ask Smith about the budget forecast", speaker="Bob Jones", id="2"),
        rec("smith smith budget forecast", speaker="Bob Jones", id="3"),
    ]
    topics = {t for _, k in extract_all(msgs) for t in k.topics}
    assert "budget forecast" in topics and "smith" not in topics
    alone = extract(rec("Jones Jones keeps the jones report", speaker="Bob Jones"))
    assert "jones" not in alone.topics


def test_header_counts_every_speaker_not_the_top_cut():
    msgs = [rec("x", speaker=f"p{i}", id=str(i)) for i in range(30)]
    data = aggregate(msgs).to_dict(top=5)
    assert len(data["speakers"]) == 5 and data["speaker_count"] == 30
    assert "30 speakers" in str(parts(data)[0])
