"""Content entities of a text (``convo.analysis.knowledge.entities``): what each rule
finds, what it leaves, and properties over any text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.analysis.knowledge import entities
from convo.analysis.knowledge.entities import find, side_text
from convo.analysis.knowledge.text import split_pieces

CASES = [
    ("a Python CLI tool that parses VTT files with pytest",
     [["Python", "language"], ["VTT", "technology"], ["pytest", "software"]]),
    ("Deployed auth-service v2.1 to staging", [["auth-service", "project"], ["v2.1", "version"]]),
    ("the v2 API, not v1.pdf", [["v2", "version"], ["v1.pdf", "file"]]),
    ("The 2.4 release is planned for Tuesday.", [["Tuesday", "date"], ["2.4", "version"]]),
    ("QA signed off on build 2.4, ship Thursday 10:00",
     [["Thursday", "date"], ["2.4", "version"], ["10:00", "time"]]),
    ("Flight TP1350 09:05, 129 EUR", [["09:05", "time"], ["129 EUR", "amount"]]),
    ("Paris: 18 C and sunny.", [["Paris", "place"], ["18 C", "amount"]]),
    ("Is this the Eiffel Tower?", [["Eiffel Tower", "place"]]),
    ("We met the Auth Team at Central Station.",
     [["Auth Team", "organisation"], ["Central Station", "place"]]),
    ("on 3 March 2024 at 2 pm, 30% off $5 or 2025-04-10",
     [["3 March 2024", "date"], ["2 pm", "time"], ["30%", "amount"], ["$5", "amount"],
      ["2025-04-10", "date"]]),
    ("Upgrade to Python 3.12 and Node.js", [["Python", "language"], ["3.12", "version"],
                                             ["Node.js", "software"]]),
    ("notes in docs/plan.md and ~/x/report.pdf", [["docs/plan.md", "file"],
                                                 ["~/x/report.pdf", "file"]]),
    ("Our TypeAgent fork on GitHub", [["TypeAgent", "software"], ["GitHub", "organisation"]]),
    ("The paper is 'Revoking JWTs at scale' (2024).",
     [["2024", "date"], ["Revoking JWTs at scale", "title"]]),
    ("It speaks German and JWT", [["German", "language"], ["JWT", "technology"]]),
    # amounts in more written forms, durations and counts spelled out
    ("EUR 2,199.00 or CA$239, 12 000 €, +2.1% and 20–30%",
     [["EUR 2,199.00", "amount"], ["CA$239", "amount"], ["12 000 €", "amount"],
      ["+2.1%", "amount"], ["20–30%", "amount"]]),
    ("it takes twelve hours with 3 eggs and two leeks",
     [["twelve hours", "amount"], ["3 eggs", "amount"], ["two leeks", "amount"]]),
    ("the 2024 second edition; 18 goes to QA", [["2024", "date"]]),
    # dates with a weekday, in other languages, quarters, weeks, zoned and ranged times
    ("Due Wednesday 11 June, Q1 2025 and FY25, not 28 April.",
     [["Wednesday 11 June", "date"], ["Q1 2025", "date"], ["FY25", "date"],
      ["28 April", "date"]]),
    ("Montag, 21. Oktober 2024 um 10:15 Uhr; 24 de diciembre; 2025-W24",
     [["Montag, 21. Oktober 2024", "date"], ["10:15 Uhr", "time"],
      ["24 de diciembre", "date"], ["2025-W24", "date"]]),
    ("at 18:00 GMT or 10:00 – 11:00 (CET), outage 14:02-14:20",
     [["18:00 GMT", "time"], ["10:00 – 11:00 (CET)", "time"], ["14:02", "time"],
      ["14:20", "time"]]),
    # versions after software, in lists, after comparisons and prepositions
    ("moving to Node 22; the matrix goes to 3.10, 3.12 and 3.13",
     [["Node", "software"], ["22", "version"], ["3.10", "version"], ["3.12", "version"],
      ["3.13", "version"]]),
    ("needs httpx>=0.27, worked on 4.7.2. In 2.5 hours", [["httpx", "software"],
     ["0.27", "version"], ["4.7.2", "version"], ["2.5 hours", "amount"]]),
    # bare domains are URLs, cloud regions places, events
    ("see canada.ca and iberia.com/manage in eu-central-1 before FOSDEM",
     [["canada.ca", "url"], ["iberia.com/manage", "url"], ["eu-central-1", "place"],
      ["FOSDEM", "event"]]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "want"), CASES)
def test_finds(text, want):
    assert sorted(find(text)) == sorted(want)


@pytest.mark.parametrize(
    "text",
    [
        "Teams should meet on time. Spark joy, Make it so.",  # words at a sentence start
        "Lunch today? Sure, after lunch.",
        "ok", "", "The plan is in the doc.",
        "see 10.0.0.1 for it",  # an address, not a version
        "HTTP 404",
        "getUserName DazJQoOpCbNj33I McDonald",  # code and noise, not products
        "file-service://file-abc123",
        "Did this really happen",
        'She said "did this really happen" twice.',
    ],
)  # fmt: skip
def test_leaves(text):
    found = [e for e in find(text) if e[1] not in ("date", "time", "amount")]
    assert found == [], found


def test_any_case_names_keep_the_texts_spelling_and_merge():
    assert find("use Pytest and PYTEST and pytest") == [["Pytest", "software"]]
    assert find("jwt and JWTs") == [["JWT", "technology"]]


def test_attachments_and_tool_calls():
    text, files = side_text(
        ["[attachment] data/draft v1.pdf", "[image 18 bytes]", "[file itinerary.pdf]",
         '[tool_use read_file] {"path": "incident.md"}', "[tool_result t] " + "x" * 500 + " Paris",
         "plain words"]
    )  # fmt: skip
    assert files == [["data/draft v1.pdf", "file"], ["itinerary.pdf", "file"]]
    assert "bytes" not in text and "read_file" not in text and "plain words" not in text
    assert ["incident.md", "file"] in find(text, quotes=False)
    assert "Paris" not in text  # past the head that is read
    everything, _ = side_text(["a tool's own message in Paris"], everything=True)
    assert find(everything) == [["Paris", "place"]]


WORDS = st.sampled_from(
    ["Python", "the", "Auth", "Team", "in", "Paris", "v2.1", "2.4", "release", "at", "10:30",
     "New", "York", "'", '"', "Revoking", "JWTs", ".", ",", "\n", "file.md", "$5", "Teams",
     "x-service", "GitHub", "Monday", "30%", "é", "#", "@bob", "12", "C"]
)  # fmt: skip
TEXT = st.lists(WORDS, max_size=25).map(" ".join) | st.text(max_size=60)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_pieces_given_or_not_and_the_cache_change_nothing(text):
    first = find(text)
    assert find(text, True, split_pieces(text)) == first
    entities._PIECES.clear()
    assert find(text) == first


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_names_are_distinct_and_from_the_text(text):
    found = find(text)
    keys = [name.casefold() for name, _ in found]
    assert len(keys) == len(set(keys))
    folded = " ".join(text.split()).casefold()
    for name, kind in found:
        assert name.strip() == name and name
        assert kind in {
            "software",
            "technology",
            "language",
            "organisation",
            "place",
            "date",
            "time",
            "version",
            "amount",
            "file",
            "project",
            "product",
            "title",
        }
        # Named as written, or as the gazetteer spells a name found in any case.
        assert name.casefold().removeprefix("v") in folded or name.casefold() + "s" in folded
