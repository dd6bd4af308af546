"""Grok's data export (``convo.importers.apps.grok``).

The fixture follows the export as its readers in public repositories document it from
real files (the module docstring): wrapped conversations and responses, MongoDB
extended-JSON times, ``sender`` spelled ``human``/``ASSISTANT``/``grok-3``/``assistant``,
a thinking trace, an upload, a generated image, a failed reply, projects after the
conversations, and an element that is not a conversation.
"""

from __future__ import annotations

import json

import pytest
from formats_helpers import FIXTURES, TEXT, THINKING, detect_name, files_taken, fresh_registry, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.cli.app import app
from convo.core.io import Source
from convo.importers.apps import grok
from convo.importers.registry import registry

EXPORT = FIXTURES / "grok" / "prod-grok-backend.json"


def test_golden():
    recs, rejects, warnings = run(grok.read, EXPORT)
    assert [(r.where, r.reason) for r in rejects] == [
        ("prod-grok-backend.json:151", "not a Grok conversation (conversation, responses)")
    ]
    assert warnings == ["prod-grok-backend.json: not conversations, not read: 1 projects"]
    assert_golden("formats/grok/prod-grok-backend.jsonl", recs)


def test_what_an_export_gives():
    recs, _, _ = run(grok.read, EXPORT)
    assert [r["metadata"]["speaker"] for r in recs] == ["user", "grok", "grok", "user", "grok"]
    asked, answered, drawn, _, failed = recs
    assert asked["textChunks"][1] == "[attachment 3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a]"
    assert asked["subject"] == "Sourdough starter rescue" and "subject" not in answered
    assert answered["replyTo"] == drawn["replyTo"] == asked["id"]  # a regeneration: a branch
    assert answered["timestamp"] == "2025-03-14T08:30:31Z"
    assert "hooch" not in json.dumps(answered["textChunks"])
    assert answered["extra"]["sender"] == "ASSISTANT"
    assert drawn["textChunks"] == ["[image users/0a9b8c7d/generated/1f2e3d4c/image.jpg]"]
    assert failed["extra"]["error"] == "Failed to respond."
    assert recs[3]["timestamp"] == "2025-04-02T19:05:00Z"  # {"$date": ISO}


def test_thinking_with_the_option():
    recs, _, _ = run(grok.read, EXPORT, THINKING)
    assert recs[1]["textChunks"][0].startswith("[thinking] The user describes")


def test_detection():
    reg = fresh_registry(grok)
    assert detect_name(reg, EXPORT) == "grok"
    assert registry.detect(Source(EXPORT)).name == "grok"
    assert files_taken({"grok"}, {"grok"}) == {}


def test_a_cut_export_is_one_line(runner, tmp_path):
    bad = tmp_path / "prod-grok-backend.json"
    bad.write_bytes(EXPORT.read_bytes()[:1500])
    r = runner.invoke(app, ["ingest", str(bad), "-o", str(tmp_path / "o")])
    assert r.exit_code != 0
    assert "Traceback" not in r.stderr and str(bad) in r.stderr


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(st.sampled_from(["human", "assistant", "grok-3"]), TEXT), max_size=6))
def test_every_response_comes_back(tmp_path, said):
    responses = [{"response": {"_id": f"id-{i:032d}", "sender": s, "message": t,
                               "create_time": {"$date": {"$numberLong": str(1700000000000 + i)}}}}
                 for i, (s, t) in enumerate(said)]  # fmt: skip
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"conversations": [
        {"conversation": {"id": "c", "title": "t"}, "responses": responses}]}))  # fmt: skip
    recs, rejects, _ = run(grok.read, path)
    assert not rejects
    assert [r["textChunks"] for r in recs] == [[t] for _, t in said]
    assert [r["metadata"]["speaker"] for r in recs] == [
        "user" if s == "human" else "grok" for s, _ in said
    ]


@pytest.mark.parametrize("long", ["\u00b2", "9" * 5000, "--1", "12a", True, None])
def test_a_number_long_that_is_no_number_is_no_time(tmp_path, long):
    """``$numberLong`` as ``str.isdigit`` passes it (``"²"``) or too long for ``int``: an
    internal error before, now a response without a time (the epoch sentinel)."""
    responses = [{"response": {"_id": "r1", "sender": "human", "message": "hi",
                               "create_time": {"$date": {"$numberLong": long}}}}]  # fmt: skip
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"conversations": [
        {"conversation": {"id": "c", "title": "t"}, "responses": responses}]}))  # fmt: skip
    recs, rejects, _ = run(grok.read, path)
    assert not rejects
    assert [(r["textChunks"], r["timestamp"]) for r in recs] == [(["hi"], "1970-01-01T00:00:00Z")]


def test_as_digits():
    from convo.importers.jsoninput import as_digits

    assert [as_digits(v) for v in ("17", "-17", 17, "0" * 19)] == [17, -17, 17, 0]
    bad = ("", "-", "\u00b2", "\u0663", "1" * 20, "1.5", " 1", "1_0", 1.5, True, None, [1])
    assert [as_digits(v) for v in bad] == [None] * len(bad)
