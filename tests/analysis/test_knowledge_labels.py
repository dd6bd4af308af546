"""Knowledge of ``convo knowledge`` against a hand-labelled set (issue 39 §3).

``tests/fixtures/knowledge/labels/*.jsonl`` label, by hand, every message of
``tests/fixtures/knowledge/set/`` (at least 200 messages of every family, in their real
formats) and of ``sample_data/``: the content entities a person would name, each with a
type, and one to three topics. ``tests/fixtures/knowledge/LABELLING.md`` gives the schema
and the rules the labels follow.

What is measured, per family (transcript, email, chat, agent, forum; "agent" is the
chat-family formats of ``convo.importers.agents``) and for all:

- entities: precision and recall by name, case-insensitively, counting only what the
  extractor finds in the text: people, roles, the "email" message entity and whatever
  the metadata names (speakers, listeners, the sender's and recipients' addresses) are
  left out on both sides; type accuracy is the share of found labelled entities whose
  labelled type is among the types the extractor gives (spelling normalised, ``TYPE_ALIASES``);
- topics, softly: a labelled topic and an extracted one match when they share a content
  word (lower-cased, stop words dropped, a plural "s" cut); precision is the share of
  extracted topics that match a labelled one, recall the share of labelled topics
  matched by an extracted one.

The test is a ratchet: no number may fall below ``BASELINE`` (measured on the set when
it was made, rounded down). ``python tests/analysis/test_knowledge_labels.py`` prints the
table per family.
"""

from __future__ import annotations

import hashlib
import math
import re
import sys
from collections import defaultdict
from functools import cache
from pathlib import Path

import orjson

from convo.analysis.knowledge.extract import plain_all
from convo.importers.registry import Registry, get_format
from convo.pipeline.ingest import read_messages

ROOT = Path(__file__).resolve().parents[2]
KNOWLEDGE = ROOT / "tests" / "fixtures" / "knowledge"
LABELS = KNOWLEDGE / "labels"
INPUTS = (ROOT / "sample_data", KNOWLEDGE / "set")
TYPES = {"product", "project", "organisation", "place", "file", "version", "url", "amount",
         "date", "email-address", "software", "language", "event"}  # fmt: skip
# The kinds of entity an action's object may be (LABELLING.md, "Actions").
THINGS = {"software", "project", "file", "product", "organisation", "place", "language", "event"}
TYPE_ALIASES = {"organization": "organisation", "email": "email-address", "time": "date"}
FAMILIES = ("transcript", "email", "chat", "agent", "forum", "all")
METRICS = ("precision", "recall", "types", "topic_precision", "topic_recall",
           "action_precision", "action_recall")  # fmt: skip
# The verbs of the actions the metadata gives (TypeAgent's and convo's ask/reply): not
# actions the text states, left out of the action numbers.
METADATA_VERBS = frozenset({"say", "speak", "sent", "received", "ask", "reply"})
# Measured with the rules-and-gazetteer extractor (entities.find) on the whole set (floor
# to two decimals); the set was labelled without looking at the extractor. Its rules were
# then written reading only the "dev" half's misses (``split``; ``--split`` prints both
# halves): the whole set's floors were raised with entity recall 0.48 -> 0.72 (held-out
# half 0.49 -> 0.69), precision 0.85 -> 0.91 (held-out 0.87 -> 0.90). Actions (labelled
# later, LABELLING.md "Actions"; ``said``'s rules then written from the dev half's misses):
# dev precision 0.75 -> 0.88, recall 0.21 -> 0.54; held-out 0.36 -> 0.47, 0.12 -> 0.21.
# Topics: a single word only as a message's best key phrase (keyphrases.py), read from
# the dev half's extra topics: dev precision 0.21 -> 0.26 for recall 0.32 -> 0.28
# (held-out 0.20 -> 0.25, 0.29 -> 0.26); the recall floors were lowered with it.
# Agent topic recall 0.19 -> 0.18 when thinking blocks left the text of Anthropic,
# AgentScope and AutoGen messages (--include-thinking): their labels' topics came partly
# from that reasoning, which the extractor no longer reads.
BASELINE = {
    "transcript": {"precision": 0.89, "recall": 0.71, "types": 0.96, "topic_precision": 0.22, "topic_recall": 0.2, "action_precision": 0.2, "action_recall": 0.12},
    "email": {"precision": 0.9, "recall": 0.75, "types": 0.95, "topic_precision": 0.27, "topic_recall": 0.48, "action_precision": 0.66, "action_recall": 0.26},
    "chat": {"precision": 0.93, "recall": 0.71, "types": 0.92, "topic_precision": 0.24, "topic_recall": 0.22, "action_precision": 0.75, "action_recall": 0.54},
    # agent topic_precision 0.25 -> 0.24: the Claude Code summary line ("Ran the test
    # suite", a conversation title, topic matched) is no message any more (0.2488 without it).
    "agent": {"precision": 0.93, "recall": 0.73, "types": 0.95, "topic_precision": 0.24, "topic_recall": 0.18, "action_precision": 0.66, "action_recall": 0.28},
    "forum": {"precision": 0.93, "recall": 0.68, "types": 0.95, "topic_precision": 0.23, "topic_recall": 0.28, "action_precision": 1.0, "action_recall": 0.58},
    "all": {"precision": 0.91, "recall": 0.72, "types": 0.95, "topic_precision": 0.25, "topic_recall": 0.27, "action_precision": 0.68, "action_recall": 0.36},
}  # fmt: skip

STOP = frozenset({"a", "an", "and", "the", "of", "for", "to", "in", "on", "at", "by", "with",
                  "from", "or", "vs", "via", "as", "is", "are", "be", "it", "its", "this", "that",
                  "these", "those", "our", "your", "my", "their", "we", "you", "they", "i", "new"})  # fmt: skip


def _key(record: dict) -> tuple[str, str]:
    source = record["source_id"]
    if source.startswith(f"{ROOT}/"):
        source = source[len(str(ROOT)) + 1 :]
    return source, " / ".join(record["textChunks"])[:60]


@cache
def _agent_formats() -> frozenset[str]:
    return frozenset(
        d.name for d in Registry().declared() if d.module.startswith("convo.importers.agents.")
    )


def family(fmt: str) -> str:
    """The family a format's messages are measured in: the registry's, with agents apart."""
    return "agent" if fmt in _agent_formats() else get_format(fmt).family


def load_labels() -> dict[tuple[str, str], dict]:
    labels = {}
    for path in sorted(LABELS.glob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            row = orjson.loads(line)
            labels[(row["source"], row["text"])] = row
    return labels


def load_records() -> list[dict]:
    return [m.serialize() for path in INPUTS for m in read_messages(path)]


def _people(record: dict) -> frozenset[str]:
    """The speaker's and listeners' names and addresses, as the metadata gives them."""
    meta = record["metadata"]
    names = set()
    for who in [meta.get("speaker") or "", *meta.get("listeners", [])]:
        name, _, address = who.lower().partition("<")
        names |= {who.lower(), name.strip(), address.rstrip(">").strip()}
    return frozenset(names - {""})


def _content(entity: dict, people: frozenset[str]) -> bool:
    if {"person", "role", "message"} & set(entity["type"]):
        return False
    return entity["name"].lower() not in people


def _type(name: str) -> str:
    name = name.lower().replace("_", "-")
    return TYPE_ALIASES.get(name, name)


def _words(topic: str) -> frozenset[str]:
    words = re.findall(r"[^\W_]+", topic.lower())
    return frozenset(
        w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words if w not in STOP
    )


def _soft(topic: str, others: list[str]) -> bool:
    words = _words(topic)
    return any(words & _words(other) for other in others)


def _who(name: str) -> str:
    """A person as actions are matched: the first word of their name (``Bob`` and ``Bob
    Jones`` are one), case-folded, an address dropped."""
    words = name.partition("<")[0].split() or name.split()
    return words[0].casefold() if words else ""


def _action_keys(actions: list[dict], labelled: bool) -> set[tuple[str, str, str]]:
    """(subject, verb, object) of each action the text states, as ``_who`` and case
    folding compare them; an extracted one by its first verb, metadata verbs left out."""
    if labelled:
        return {(_who(a["subject"]), a["verb"].casefold(), a["object"].casefold()) for a in actions}
    return {
        (_who(a["subjectEntityName"]), a["verbs"][0].casefold(), a["objectEntityName"].casefold())
        for a in actions
        if a["verbs"] and a["verbs"][0] not in METADATA_VERBS
    }


def split(key: tuple[str, str]) -> str:
    """The half a labelled message is in, fixed by its key: "dev" (even hash), whose misses
    may be read when writing rules, or "held-out", which is only measured."""
    digest = hashlib.sha256("\0".join(key).encode()).digest()
    return "held-out" if digest[0] & 1 else "dev"


def measure(half: str | None = None) -> dict[str, dict[str, float]]:
    """The numbers per family and for all ("all"), with the counts they come from; of
    one half (``split``) only with ``half``."""
    labels = load_labels()
    counts: dict[str, defaultdict[str, int]] = {f: defaultdict(int) for f in FAMILIES}
    records = load_records()
    if half is not None:
        records = [r for r in records if split(_key(r)) == half]
    for record, plain in plain_all(records):
        label = labels[_key(record)]
        people = _people(record)
        want = {
            e["name"].lower(): e["type"]
            for e in label["entities"]
            if e["name"].lower() not in people
        }
        got: dict[str, set[str]] = defaultdict(set)
        for e in plain["entities"]:
            if _content(e, people):
                got[e["name"].lower()].update(map(_type, e["type"]))
        hits = want.keys() & got.keys()
        topics, found = label["topics"], plain["topics"]
        did = _action_keys(label.get("actions", []), labelled=True)
        made = _action_keys(plain["actions"], labelled=False)
        for fam in (family(record["format"]), "all"):
            c = counts[fam]
            c["messages"] += 1
            c["hits"] += len(hits)
            c["found"] += len(got)
            c["labelled"] += len(want)
            c["typed"] += sum(want[n] in got[n] for n in hits)
            c["topics"] += len(topics)
            c["topics_found"] += len(found)
            c["topic_hits"] += sum(_soft(t, found) for t in topics)
            c["found_hits"] += sum(_soft(t, topics) for t in found)
            c["actions"] += len(did)
            c["actions_found"] += len(made)
            c["action_hits"] += len(did & made)
    return {f: _scores(c) for f, c in counts.items()}


def _scores(c: defaultdict[str, int]) -> dict[str, float]:
    def ratio(a: int, b: int) -> float:
        return a / b if b else 1.0

    return {
        "precision": ratio(c["hits"], c["found"]),
        "recall": ratio(c["hits"], c["labelled"]),
        "types": ratio(c["typed"], c["hits"]),
        "topic_precision": ratio(c["found_hits"], c["topics_found"]),
        "topic_recall": ratio(c["topic_hits"], c["topics"]),
        "action_precision": ratio(c["action_hits"], c["actions_found"]),
        "action_recall": ratio(c["action_hits"], c["actions"]),
        **{
            k: float(c[k])
            for k in (
                "messages",
                "labelled",
                "found",
                "topics",
                "topics_found",
                "actions",
                "actions_found",
            )
        },
    }


def test_every_message_is_labelled_once():
    records = load_records()
    keys = [_key(r) for r in records]
    assert len(set(keys)) == len(keys)
    assert set(keys) == set(load_labels())


def test_every_family_has_200_messages_in_the_set():
    perfamily: defaultdict[str, int] = defaultdict(int)
    for m in read_messages(INPUTS[1]):
        perfamily[family(m.serialize()["format"])] += 1
    assert set(perfamily) == set(FAMILIES) - {"all"}
    assert min(perfamily.values()) >= 200, dict(perfamily)


def test_labels_follow_the_schema():
    records = {_key(r): r for r in load_records()}
    for key, label in load_labels().items():
        record = records[key]
        text = "\n".join([record.get("subject") or "", *record["textChunks"]]).lower()
        assert label["format"] == record["format"], key
        assert len(label["topics"]) <= 3, key
        names = [e["name"].lower() for e in label["entities"]]
        assert len(set(names)) == len(names), key
        for e in label["entities"]:
            assert e["type"] in TYPES, (key, e)
            assert e["name"].lower() in text, (key, e)
        things = {e["name"].lower() for e in label["entities"] if e["type"] in THINGS}
        for a in label.get("actions", []):
            assert set(a) == {"subject", "verb", "object", "tense"}, (key, a)
            assert a["object"].lower() in things, (key, a)
            assert a["tense"] in ("past", "present", "future"), (key, a)
            assert a["verb"] == a["verb"].lower() and " " not in a["verb"], (key, a)


def test_soft_topic_match():
    assert _soft("database migration", ["migrating", "databases"])
    assert _soft("travel bookings", ["booking"])
    assert not _soft("the weather", ["a new day"])


def test_knowledge_does_not_fall_below_the_baseline():
    scores = measure()
    for fam, baseline in BASELINE.items():
        for metric, floor in baseline.items():
            assert scores[fam][metric] >= floor, (fam, metric, scores[fam][metric])


def _table(scores: dict[str, dict[str, float]]) -> None:
    print(
        "| family | messages | entities | precision | recall | types | topics | topic P"
        " | topic R | actions | action P | action R |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for fam, s in scores.items():
        print(
            f"| {fam} | {s['messages']:.0f} | {s['labelled']:.0f} | {s['precision']:.2f}"
            f" | {s['recall']:.2f} | {s['types']:.2f} | {s['topics']:.0f}"
            f" | {s['topic_precision']:.2f} | {s['topic_recall']:.2f} | {s['actions']:.0f}"
            f" | {s['action_precision']:.2f} | {s['action_recall']:.2f} |"
        )


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--split"]:  # dev and held-out apart (``split``)
        for half in ("dev", "held-out"):
            print(f"\n{half}\n")
            _table(measure(half))
        sys.exit(0)
    scores = measure()
    if sys.argv[1:] == ["--baseline"]:  # the numbers to paste into BASELINE, rounded down
        for fam, s in scores.items():
            floors = {m: math.floor(s[m] * 100) / 100 for m in METRICS}
            print(
                f'    "{fam}": {orjson.dumps(floors).decode().replace(",", ", ").replace(":", ": ")},'
            )
        sys.exit(0)
    _table(scores)
    sys.exit(0)
