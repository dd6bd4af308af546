"""Knowledge extraction: TypeAgent's metadata knowledge case by case, then convo's content knowledge.

The expected metadata dicts were written from TypeAgent 0.5.0's code
(knowpro/universal_message.py, emails/email_message.py) and checked against it.
"""

from __future__ import annotations

import pytest

from convo.analysis.knowledge.extract import (
    Conversation,
    extract,
    extract_all,
    metadata_knowledge,
)
from convo.analysis.knowledge.summary import aggregate
from convo.core.record import ConversationMessage, ConversationMessageMeta


def rec(text="hello", speaker=None, listeners=(), fmt="convo", **kw):
    r = {
        "textChunks": [text] if isinstance(text, str) else list(text),
        "metadata": {"speaker": speaker, "listeners": list(listeners)},
        "tags": kw.pop("tags", []),
        "timestamp": "2024-03-06T10:00:00Z",
        "source_id": "x.jsonl:1",
        "id": kw.pop("id", "m1"),
        "format": fmt,
    }
    r.update(kw)
    return r


def person(name, facets=None):
    return {"name": name, "type": ["person"], "facets": facets}


def action(verbs, subj, obj="none", ind="none", params=None):
    return {
        "verbs": verbs, "verbTense": "past", "subjectEntityName": subj,
        "objectEntityName": obj, "indirectObjectEntityName": ind,
        "params": params, "subjectEntityFacet": None,
    }  # fmt: skip


EMPTY = {"entities": [], "actions": [], "inverse_actions": [], "topics": []}


# --- TypeAgent's ConversationMessage.get_knowledge(), case by case ---------------------


def test_no_speaker_gives_empty_knowledge():
    assert extract(rec(listeners=["Bob"]), metadata_only=True).to_dict() == EMPTY


def test_empty_speaker_counts_as_none():
    assert extract(rec(speaker=""), metadata_only=True).to_dict() == EMPTY


def test_speaker_only_says_and_speaks_to_none():
    assert extract(rec(speaker="Alice"), metadata_only=True).to_dict() == {
        "entities": [person("Alice")],
        "actions": [action(["say", "speak"], "Alice")],
        "inverse_actions": [],
        "topics": [],
    }


def test_speaker_with_listeners_says_to_each():
    got = extract(rec(speaker="Alice", listeners=["Bob", "Carol"]), metadata_only=True)
    assert got.to_dict() == {
        "entities": [person("Alice"), person("Bob"), person("Carol")],
        "actions": [action(["say"], "Alice", "Bob"), action(["say"], "Alice", "Carol")],
        "inverse_actions": [],
        "topics": [],
    }


def test_metadata_only_equals_model_get_knowledge():
    msg = ConversationMessage(
        text_chunks=["hi @bob #x"],
        metadata=ConversationMessageMeta(speaker="Alice", recipients=["Bob"]),
        tags=["t"],
    )
    assert extract(msg, metadata_only=True).to_dict() == msg.get_knowledge().to_dict()
    assert metadata_knowledge(msg.serialize()).to_dict() == msg.get_knowledge().to_dict()


def test_python_spelling_recipients_accepted():
    r = {"text_chunks": ["x"], "metadata": {"speaker": "A", "recipients": ["B"]}}
    assert extract(r, metadata_only=True).to_dict()["actions"] == [action(["say"], "A", "B")]


def test_speaker_named_like_an_address_is_kept_whole_outside_mail():
    got = extract(rec(speaker="Alice <a@x.org>", fmt="slack"), metadata_only=True).to_dict()
    assert got["entities"] == [person("Alice <a@x.org>")]


# --- TypeAgent's EmailMessage.get_knowledge() for mail records --------------------------

ALICE = "Alice Smith <alice@example.org>"
BOB = "Bob Jones <bob@example.org>"


def test_email_sender_and_recipient():
    r = rec(speaker=ALICE, listeners=[BOB, "carol@example.net"], fmt="mbox", subject="Re: Plan")
    got = metadata_knowledge(r).to_dict()
    addr = lambda a: {"name": a, "type": ["email_address", "alias"], "facets": None}  # noqa: E731
    assert got["entities"] == [
        person("Alice Smith", [{"name": "email_address", "value": "alice@example.org"}]),
        addr("alice@example.org"),
        person("Bob Jones", [{"name": "email_address", "value": "bob@example.org"}]),
        addr("bob@example.org"),
        addr("carol@example.net"),
        {"name": "email", "type": ["message"], "facets": None},
    ]
    sent = [
        action(["sent"], "Alice Smith", "email", "Bob Jones"),
        action(["sent"], "Alice Smith", "email", "bob@example.org"),
        action(["sent"], "alice@example.org", "email", "Bob Jones"),
        action(["sent"], "alice@example.org", "email", "bob@example.org"),
    ]
    received = [
        action(["received"], "Bob Jones", "email", "Alice Smith"),
        action(["received"], "Bob Jones", "email", "alice@example.org"),
        action(["received"], "bob@example.org", "email", "Alice Smith"),
        action(["received"], "bob@example.org", "email", "alice@example.org"),
    ]
    carol = [
        action(["sent"], "Alice Smith", "email", "carol@example.net"),
        action(["sent"], "alice@example.org", "email", "carol@example.net"),
        action(["received"], "carol@example.net", "email", "Alice Smith"),
        action(["received"], "carol@example.net", "email", "alice@example.org"),
    ]
    assert got["actions"] == sent + received + carol
    assert got["inverse_actions"] == []
    assert got["topics"] == ["Re: Plan"]  # TypeAgent keeps the subject as it is


def test_email_extra_to_and_cc_separate_actions_from_entities():
    r = rec(speaker=ALICE, listeners=[BOB, "c@x.org"], fmt="eml",
            extra={"to": [BOB], "cc": ["c@x.org"], "bcc": ["d@x.org"]})  # fmt: skip
    got = metadata_knowledge(r).to_dict()
    names = [e["name"] for e in got["entities"]]
    assert names == ["Alice Smith", "alice@example.org", "Bob Jones", "bob@example.org",
                     "c@x.org", "d@x.org", "email"]  # fmt: skip
    assert all("c@x.org" not in (a["indirectObjectEntityName"], a["subjectEntityName"])
               for a in got["actions"])  # fmt: skip
    assert len(got["actions"]) == 8


def test_email_without_recipients_or_sender():
    only_sender = metadata_knowledge(rec(speaker="a@x.org", fmt="mbox")).to_dict()
    assert only_sender["actions"] == []
    assert [e["name"] for e in only_sender["entities"]] == ["a@x.org", "email"]
    nobody = metadata_knowledge(rec(speaker=None, listeners=["b@x.org"], fmt="mbox"))
    assert [e.name for e in nobody.entities] == ["b@x.org", "email"]
    assert nobody.actions == []


def test_metadata_only_on_mail_is_typeagents_conversation_message_knowledge():
    """--metadata-only equals what TypeAgent computes after loading convo's JSONL."""
    r = rec(speaker=ALICE, listeners=[BOB], fmt="mbox", subject="Re: Plan")
    got = extract(r, metadata_only=True).to_dict()
    assert got == ConversationMessage.deserialize(r).get_knowledge().to_dict()
    assert got["actions"] == [action(["say"], ALICE, BOB)]
    assert "sent" in {v for a in extract(r).to_dict()["actions"] for v in a["verbs"]}


# --- content knowledge -------------------------------------------------------------------


def test_mentions_urls_addresses_hashtags_tags():
    r = rec(
        "@dave see https://ci.example.com/b/1, (also www.example.org/x). Mail ops@example.com #CI #123",
        speaker="erin", listeners=["dave"], tags=["eng"],
    )  # fmt: skip
    k = extract(r).to_dict()
    by_name = {e["name"]: e["type"] for e in k["entities"]}
    assert by_name == {
        "erin": ["person"],
        "dave": ["person"],
        "ops@example.com": ["email"],
        "https://ci.example.com/b/1": ["url"],
        "www.example.org/x": ["url"],
    }
    assert k["topics"][:2] == ["eng", "CI"]
    assert "123" not in k["topics"]


def test_entities_merge_case_insensitively_within_and_across_messages():
    msgs = [
        rec("hi", speaker="Dave", id="1"),
        rec("@DAVE and @dave and @Erin please look", speaker="erin", id="2"),
    ]
    got = [k for _, k in extract_all(msgs)]
    names = [e.name for e in got[1].entities]
    assert names == ["erin", "Dave"]  # metadata spelling wins, one entity per name


def test_subject_topic_without_reply_prefix():
    k = extract(rec("body text", speaker="a@x.org", fmt="mbox", subject="Re: RE: Fwd: Launch plan"))
    assert k.topics[0] == "Launch plan"


def test_the_subject_names_entities_after_the_text():
    subject = "Re: Postmortem: webhook outage 2025-01-09 on Postgres 16"
    for text in ("We moved to Postgres.", "ok"):  # the second: the subject's cached finds
        k = extract(rec(text, speaker="a@x.org", fmt="mbox", subject=subject))
        content = [e.name for e in k.entities if not {"message", "alias"} & set(e.type)]
        assert content == ["Postgres", "16", "2025-01-09"]


def test_questions_become_ask_actions_to_the_named_listener():
    r = rec("Carol, can you check the expiry? Thanks. Does anyone object?",
            speaker="Bob", listeners=["Alice", "Carol"])  # fmt: skip
    asks = [a.to_dict() for a in extract(r).actions if a.verbs == ["ask"]]
    q1 = {"name": "question", "value": "Carol, can you check the expiry?"}
    q2 = {"name": "question", "value": "Does anyone object?"}
    assert asks == [action(["ask"], "Bob", "Carol", params=[q1, q2]),
                    action(["ask"], "Bob", "Alice", params=[q2])]  # fmt: skip


def test_no_ask_without_listeners_or_speaker():
    assert not [a for a in extract(rec("why?", speaker="A")).actions if a.verbs == ["ask"]]
    assert extract(rec("why?", listeners=["B"])).actions == []


def test_reply_resolves_parent_speaker_in_either_order():
    parent = rec("question", speaker="Alice", id="p")
    child = rec("answer", speaker="Bob", id="c", replyTo="p")
    for order in ([parent, child], [child, parent]):
        ks = {r["id"]: k for r, k in extract_all(iter(order))}
        reply = [a.to_dict() for a in ks["c"].actions if a.verbs == ["reply"]]
        assert reply == [
            action(["reply"], "Bob", "Alice", params=[{"name": "replyTo", "value": "p"}])
        ]


def test_reply_to_unknown_parent_is_none():
    k = extract(rec("x", speaker="Bob", replyTo="elsewhere"))
    reply = [a for a in k.actions if a.verbs == ["reply"]]
    assert reply[0].object_entity_name == "none"


def test_quoted_mail_and_signature_are_not_read():
    text = "Fine by me.\n\nOn Mon, Alice wrote:\n> visit https://quoted.example.com ?\n-- \nBob http://sig.example"
    k = extract(rec(text, speaker="b@x.org", listeners=["a@x.org"], fmt="mbox")).to_dict()
    assert not [e for e in k["entities"] if "url" in e["type"]]
    assert not [a for a in k["actions"] if a["verbs"] == ["ask"]]


def test_tool_chunks_and_tool_role_give_entities_only():
    """What a tool was called with and the head of what it gave name things (URLs,
    files, places); they make no topics and no questions."""
    k = extract(rec(['[tool_use search] {"q": "https://x.example"}', "ok"], speaker="bot"))
    assert [e.name for e in k.entities if "url" in e.type] == ["https://x.example"]
    assert k.topics == []
    k = extract(rec("https://x.example in Paris, notes.md?", speaker="tool", role="tool"))
    assert {(e.name, e.type[0]) for e in k.entities} >= {
        ("https://x.example", "url"), ("Paris", "place"), ("notes.md", "file"),
    }  # fmt: skip
    assert k.topics == [] and not [a for a in k.actions if a.verbs == ["ask"]]
    k = extract(rec(["[tool_result t1] " + "x " * 300 + "in Paris"], speaker="bot"))
    assert not [e for e in k.entities if e.name == "Paris"]  # past the head read


def test_content_is_a_superset_of_metadata_entities_and_actions():
    r = rec("Shall we ship the release candidate?", speaker="Alice", listeners=["Bob"])
    meta = extract(r, metadata_only=True)
    full = extract(r)
    assert [e.name for e in meta.entities] == [e.name for e in full.entities][:2]
    assert full.actions[: len(meta.actions)] == meta.actions


def test_extract_rejects_other_types():
    with pytest.raises(TypeError):
        extract("not a record")  # type: ignore[arg-type]


def test_garbage_fields_do_not_crash():
    weird = {"textChunks": [1, None, "x @y"], "metadata": {"speaker": 5, "listeners": "z"},
             "tags": "notalist", "subject": 7, "replyTo": ["x"], "format": None}  # fmt: skip
    k = extract(weird).to_dict()
    assert k["topics"] == []
    assert [e["name"] for e in k["entities"]] == ["y"]


def test_conversation_observe_then_extract_matches_extract_all():
    msgs = [rec("the deploy pipeline failed", speaker="a", id="1"),
            rec("deploy pipeline fixed now", speaker="b", id="2")]  # fmt: skip
    conv = Conversation()
    for m in msgs:
        conv.observe(m)
    direct = [conv.extract(m).to_dict() for m in msgs]
    assert direct == [k.to_dict() for _, k in extract_all(msgs)]
    assert "deploy pipeline" in direct[1]["topics"]


def test_extract_all_spools_iterators(monkeypatch):
    import convo.analysis.knowledge.extract as kn

    monkeypatch.setattr(kn, "SPOOL_MEMORY", 10)  # force the spool onto disk
    msgs = [rec(f"message number {i} about the deploy pipeline", speaker="a", id=str(i))
            for i in range(50)]  # fmt: skip
    from_iter = [(r["id"], k.to_dict()) for r, k in extract_all(iter(msgs))]
    from_list = [(r["id"], k.to_dict()) for r, k in extract_all(msgs)]
    assert from_iter == from_list


def test_aggregate_counts():
    msgs = [
        rec("Deploy pipeline broken #ci", speaker="Erin", listeners=["dave"], id="1"),
        rec("deploy pipeline fixed #CI", speaker="dave", listeners=["erin"], id="2", replyTo="1"),
        rec("deploy pipeline green", speaker="erin", id="3"),
    ]
    d = aggregate(msgs).to_dict()
    assert d["messages"] == 3
    assert d["speakers"] == [{"name": "Erin", "messages": 2}, {"name": "dave", "messages": 1}]
    assert d["pairs"] == [{"speaker": "dave", "listener": "Erin", "messages": 1},
                          {"speaker": "Erin", "listener": "dave", "messages": 1}]  # fmt: skip
    topics = {t["topic"]: t["messages"] for t in d["topics"]}
    assert topics["ci"] == 2 and topics["deploy pipeline"] == 3
    erin = next(s for s in d["speaker_topics"] if s["speaker"] == "Erin")
    assert erin["topics"][0] == {"topic": "deploy pipeline", "messages": 2}


def test_aggregate_metadata_only_and_top():
    msgs = [rec("x", speaker=f"p{i}", listeners=["z"], id=str(i)) for i in range(30)]
    d = aggregate(iter(msgs), metadata_only=True).to_dict(top=5)
    assert len(d["speakers"]) == 5 and len(d["pairs"]) == 5 and d["topics"] == []
    assert d["entities"][0] == {"name": "z", "type": ["person"], "messages": 30}


def test_aggregate_of_nothing():
    assert aggregate([]).to_dict()["messages"] == 0


def test_aggregate_memory_is_bounded_and_the_top_keeps_within_the_bound(monkeypatch):
    from convo.analysis.knowledge.summary import BATCH, Aggregate

    monkeypatch.setattr(Aggregate, "CAPACITY", 50)
    msgs = [rec(f"see https://x.example/{i} about the deploy pipeline", speaker="a", id=str(i))
            for i in range(3_000)]  # fmt: skip
    agg = aggregate(iter(msgs))
    agg.flush()
    # spellings: those of the keys held, and of a batch's new ones (a URL a message)
    assert len(agg.entities) <= 100 and len(agg.spelling) <= 6 * 50 + 200 + BATCH
    d = agg.to_dict(top=3)
    assert d["messages"] == 3_000 and d["approximate"] is True
    top = d["topics"][0]
    assert top["topic"] == "deploy pipeline"
    assert 3_000 - agg.topics.error <= top["messages"] <= 3_000
    assert agg.topics.error <= agg.topics.total / 51


def test_topics_a_person_would_name():
    """Not a chunk's marker, a message-kind tag, verb forms, times of day or a bare "part"
    (issue 39: "approached solving", "trickiest part", tags and "morning")."""
    texts = [
        ["[thinking] I approached solving the parser bug", "The trickiest part was the parser bug"],
        ["Good morning, the parser bug again", "I approached solving it this morning"],
        ["Joined the parser bug hunt", "Joined again, the parser bug"],
        ["Ann wrote the parser bug report", "Bob wrote nothing, ann wrote it"],
    ]
    records = [
        rec(t, speaker="ann", id=f"m{i}", tags=["system", "parsing"]) for i, t in enumerate(texts)
    ]
    topics = {t for _, k in extract_all(records) for t in k.topics}
    assert "parser bug" in topics and "parsing" in topics
    bad = {"thinking", "system", "approached solving", "trickiest part", "morning", "joined",
           "part", "ann wrote"}  # fmt: skip
    assert not topics & bad, topics & bad
