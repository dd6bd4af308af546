"""Content entities of ``convo knowledge`` against a hand-labelled set (issue 39 §3).

``tests/fixtures/knowledge/labels.jsonl`` labels every message of ``sample_data/`` (144
messages, keyed by format and the first 60 characters of the text) with the content
entities a person would name: products, projects, organisations, places, files, versions,
URLs, amounts, dates and times, each with a type. People are left out (the metadata gives
the speakers and listeners, @-mentions are people too), and so are topics. What the
extractor gives from the metadata (people, roles, the sender's and recipients' addresses,
the "email" message entity) is not counted either: only what it finds in the text. Names
compare case-insensitively.

It is a first set, far short of the issue's 200 messages of every family; the numbers
are the measurement to raise, and the test is a ratchet: precision and recall may not
fall below ``BASELINE``. ``python tests/analysis/test_knowledge_labels.py`` prints them per family.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import orjson

from convo.analysis.knowledge.extract import plain_all
from convo.importers.registry import get_format
from convo.pipeline.ingest import read_messages

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "tests" / "fixtures" / "knowledge" / "labels.jsonl"
BASELINE = {"precision": 0.96, "recall": 0.9}  # measured with entities.find (rules, gazetteer)


def _key(record: dict) -> tuple[str, str]:
    return record["format"], " / ".join(record["textChunks"])[:60]


def _from_text(entity: dict, record: dict) -> bool:
    if {"person", "role", "message"} & set(entity["type"]):
        return False
    meta = record["metadata"]
    people = " ".join([meta.get("speaker") or "", *meta.get("listeners", [])]).lower()
    return entity["name"].lower() not in people


def measure() -> dict[str, dict[str, float]]:
    """Precision and recall of content entities, per family and for all ("all")."""
    labels = {}
    for line in LABELS.read_bytes().splitlines():
        lab = orjson.loads(line)
        labels[(lab["format"], lab["text"])] = {e["name"].lower() for e in lab["entities"]}
    records = [m.serialize() for m in read_messages(ROOT / "sample_data")]
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # hits, found, labelled
    for record, plain in plain_all(records):
        want = labels[_key(record)]
        got = {e["name"].lower() for e in plain["entities"] if _from_text(e, record)}
        for family in (get_format(record["format"]).family, "all"):
            c = counts[family]
            c[0] += len(want & got)
            c[1] += len(got)
            c[2] += len(want)
    return {
        f: {"precision": h / found if found else 1.0, "recall": h / lab if lab else 1.0,
            "labelled": lab}
        for f, (h, found, lab) in counts.items()
    }  # fmt: skip


def test_every_sample_message_is_labelled():
    keys = {_key(m.serialize()) for m in read_messages(ROOT / "sample_data")}
    labelled = {
        (x["format"], x["text"]) for x in map(orjson.loads, LABELS.read_bytes().splitlines())
    }
    assert keys == labelled


def test_content_entities_do_not_fall_below_the_baseline():
    scores = measure()["all"]
    assert scores["precision"] >= BASELINE["precision"]
    assert scores["recall"] >= BASELINE["recall"]


if __name__ == "__main__":  # pragma: no cover
    for family, s in sorted(measure().items()):
        print(
            f"{family:10} precision {s['precision']:.2f} recall {s['recall']:.2f} ({s['labelled']:.0f} labelled)"
        )
    sys.exit(0)
