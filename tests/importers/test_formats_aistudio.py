"""Google AI Studio prompts (``convo.importers.agents.aistudio``).

Fixtures follow the files AI Studio saves to Drive as public readers of them read them
(the module docstring): a chat with a system instruction, a Drive image, a thought
before an answer, ``createTime``s and a branch; an older chat with no times, a repeated
answer and an unsent draft.
"""

from __future__ import annotations

import json

from formats_helpers import (
    FIXTURES,
    TEXT,
    THINKING,
    detect_name,
    files_taken,
    fresh_registry,
    run,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.cli.app import app
from convo.core.io import Source
from convo.importers.agents import aistudio
from convo.importers.registry import registry

DIR = FIXTURES / "aistudio"
KETTLE = DIR / "Kettle troubleshooting.json"
UNTIMED = DIR / "untimed.json"


def test_golden():
    for path, name in ((KETTLE, "kettle"), (UNTIMED, "untimed")):
        recs, rejects, _ = run(aistudio.read, path)
        assert not rejects
        assert_golden(f"formats/aistudio/{name}.jsonl", recs)


def test_what_a_chat_gives():
    recs, _, warnings = run(aistudio.read, KETTLE)
    assert not warnings
    assert [r["metadata"]["speaker"] for r in recs] == [
        "system", "user", "user", "model", "user", "model",
    ]  # fmt: skip
    assert recs[0]["subject"] == "Kettle troubleshooting"
    assert recs[0]["timestamp"] == recs[1]["timestamp"] == "2025-06-02T09:14:58Z"
    assert recs[2]["textChunks"] == ["[attachment driveImage 1AbCdEfGhIjKlMnOpQrStUvWxYz012345]"]
    answer = recs[3]
    assert answer["extra"]["thinking"][0].startswith("**Considering the thermostat**")
    assert "Considering" not in json.dumps(answer["textChunks"])
    assert answer["extra"]["model"] == "models/gemini-2.5-pro"
    assert recs[4]["extra"]["branch_parent"] == "Kettle troubleshooting"
    assert {r["thread"] for r in recs} == {"aistudio:Kettle troubleshooting.json"}


def test_thinking_with_the_option():
    recs, _, _ = run(aistudio.read, KETTLE, THINKING)
    assert recs[3]["textChunks"][0].startswith("[thinking] **Considering the thermostat**")


def test_no_times_a_repeat_and_a_draft():
    recs, _, warnings = run(aistudio.read, UNTIMED)
    assert len(recs) == 3 and recs[1]["textChunks"] == recs[2]["textChunks"]
    assert {r["timestamp"] for r in recs} == {"1970-01-01T00:00:00Z"}  # the epoch sentinel
    assert any("unsent draft" in w for w in warnings)
    assert any("no times" in w for w in warnings)


def test_detection():
    reg = fresh_registry(aistudio)
    for path in (KETTLE, UNTIMED):
        assert detect_name(reg, path) == "aistudio"
        assert registry.detect(Source(path)).name == "aistudio"
    assert files_taken({"aistudio"}, {"aistudio"}) == {}


def test_broken_json_is_one_line(runner, tmp_path):
    bad = tmp_path / "chat.json"
    bad.write_text('{"runSettings": {}, "chunkedPrompt": {"chunks": [')
    r = runner.invoke(app, ["ingest", str(bad), "-o", str(tmp_path / "o")])
    assert r.exit_code != 0
    assert "Traceback" not in r.stderr and str(bad) in r.stderr


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(st.sampled_from(["user", "model"]), TEXT, st.booleans()), max_size=8))
def test_every_chunk_comes_back(tmp_path, chunks):
    doc = {"runSettings": {"model": "m"}, "chunkedPrompt": {"chunks": [
        {"role": r, "text": t, "isThought": thought} for r, t, thought in chunks]}}  # fmt: skip
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    recs, rejects, _ = run(aistudio.read, path)
    assert not rejects
    said = [t for r in recs for t in r["textChunks"]]
    thought = [t for r in recs for t in (r.get("extra") or {}).get("thinking", [])]
    assert [t for _, t, th in chunks if not th] == [t for t in said if t]
    assert [t for _, t, th in chunks if th] == thought
