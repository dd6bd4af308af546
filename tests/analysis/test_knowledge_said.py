"""Who did what where the text says so (``convo.analysis.knowledge.said``), and the
actions ``extract`` makes of it."""

from __future__ import annotations

import pytest

from convo.analysis.knowledge.entities import find
from convo.analysis.knowledge.extract import extract
from convo.analysis.knowledge.said import ing_verb, plain_verb, said

PEOPLE = ["Alice Smith", "Bob Jones"]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Bob wrote it (runbook.md).", [["Bob Jones", "write", "past", "runbook.md"]]),
        ("Deployed auth-service v2.1 to staging", [["", "deploy", "past", "auth-service"]]),
        ("I'll update the README.md today", [["", "update", "future", "README.md"]]),
        ("I fixed parser.py. Then lunch.", [["", "fix", "past", "parser.py"]]),
        ("I will migrate to PostgreSQL", [["", "migrate", "future", "PostgreSQL"]]),
        ("Alice merged the auth-service branch", [["Alice Smith", "merge", "past", "auth-service"]]),
        ("We moved to Lisbon.", []),  # who "we" is, the text does not say
        ("Did you deploy auth-service?", []),
        ("I fixed it.", []),  # no thing named
        ("Need nginx now", []),
        ("Carol wrote runbook.md", []),  # not one of the message's people
        ("I'm using the Garmin coach plan", [["", "use", "present", "Garmin"]]),
        ("I write mostly Kotlin and Go.", [["", "write", "present", "Kotlin"], ["", "write", "present", "Go"]]),
        ("Mateo, I already paid it on Bizum", [["", "pay", "past", "Bizum"]]),
        ("Done, and I also fixed the Homebrew command", [["", "fix", "past", "Homebrew"]]),
        ("Yes, sent you €23.21 on Swish.", [["", "send", "past", "Swish"]]),
        ("switching to OrbStack, thanks", [["", "switch", "present", "OrbStack"]]),
        ("I've been speaking French all week", [["", "speak", "present", "French"]]),
        ("I'll send it today, it's notes.pdf", []),  # the thing is in another clause
        ("Reading a file written by Spark panics", []),  # a gerund subject, no status line
        ("I need Kotlin", []),  # a state, nothing done
    ],
)  # fmt: skip
def test_said(text, want):
    assert said(text, find(text), PEOPLE) == want


@pytest.mark.parametrize(
    ("word", "plain"),
    [("wrote", "write"), ("deployed", "deploy"), ("stopped", "stop"), ("added", "add"),
     ("replied", "reply"), ("merged", "merge"), ("created", "create"), ("moved", "move"),
     ("fixed", "fix"), ("need", None), ("speed", None), ("red", None), ("deploy", None)],
)  # fmt: skip
def test_plain_verb(word, plain):
    assert plain_verb(word) == plain


@pytest.mark.parametrize(
    ("word", "plain"),
    [("using", "use"), ("planning", "plan"), ("selling", "sell"), ("speaking", "speak"),
     ("updating", "update"), ("flying", "fly"), ("morning", None), ("king", None),
     ("deploy", None)],
)  # fmt: skip
def test_ing_verb(word, plain):
    assert ing_verb(word) == plain


def test_extract_makes_the_actions():
    record = {
        "textChunks": ["Bob wrote runbook.md. I'll review runbook.md tomorrow."],
        "metadata": {"speaker": "Alice Smith", "listeners": ["Bob Jones"]},
        "format": "slack", "id": "m1",
    }  # fmt: skip
    k = extract(record).to_dict()
    did = [(a["subjectEntityName"], a["verbs"], a["verbTense"], a["objectEntityName"])
           for a in k["actions"] if a["verbs"] != ["say"]]  # fmt: skip
    assert did == [("Bob Jones", ["write"], "past", "runbook.md"),
                   ("Alice Smith", ["review"], "future", "runbook.md")]  # fmt: skip
    assert {"runbook.md", "Alice Smith", "Bob Jones"} <= {e["name"] for e in k["entities"]}
