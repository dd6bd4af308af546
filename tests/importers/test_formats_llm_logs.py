"""LLM CLI logs (``convo.importers.agents.llm_logs``).

Fixtures follow simonw/llm ``llm/cli.py`` (``logs_list``, ``log_rows_as_json``) and
``llm/logs.py`` (``log_row_extras``): today's rows (system prompt, fragments, an
attachment, token counts, a tool call answered in the next call, a tool that raised, an
element that is not a call) and the first ``--json`` shape of llm 0.8 (naive UTC times,
no tools, fragments or tokens).
"""

from __future__ import annotations

import json

import pytest
from chat_exports_helpers import ingest
from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import llm_logs
from convo.importers.registry import registry
from convo.pipeline.notes import clash_warning

DIR = FIXTURES / "llm_logs"
LOGS = DIR / "logs.json"
LEGACY = DIR / "legacy.json"


@pytest.mark.parametrize("path", [LOGS, LEGACY], ids=lambda p: p.name)
def test_golden(path):
    recs, _, _ = run(llm_logs.read, path)
    assert_golden(f"formats/llm_logs/{path.stem}.jsonl", recs)


def test_calls_become_prompt_response_and_tool_records():
    recs, rejects, warnings = run(llm_logs.read, LOGS)
    assert [(r.where, r.reason) for r in rejects] == [
        ("logs.json:150", "not an LLM log entry (prompt, response)")
    ]
    assert not warnings
    assert [r["metadata"]["speaker"] for r in recs] == [
        "user", "assistant", "user", "assistant", "tool", "assistant",
        "user", "assistant", "tool", "assistant",
    ]  # fmt: skip
    asked, answered, _, called, result, _, _, _, failed, _ = recs
    assert asked["id"] == "llm:01jq3v8k2pa1b2c3d4e5f6g7h8"
    assert answered["id"] == "llm:01jq3v8k2pa1b2c3d4e5f6g7h8:response"
    assert result["id"] == "llm:01jq3v9n5rc3d4e5f6g7h8j9k0:tools"
    assert asked["textChunks"] == [
        "Why does my kettle click off early?",
        "[attachment image/jpeg] /Users/ann/kettle.jpg",
    ]
    assert asked["extra"]["system"] == "Answer in two sentences."
    assert asked["extra"]["fragments"][0]["aliases"] == ["manual"]
    assert asked["subject"] == "Why does my kettle click off…"
    assert {r.get("subject") for r in recs[1:6]} == {None}  # once a conversation
    # the response is timed when it finished: 09:14:58.912 + 1.84 s
    assert (asked["timestamp"], answered["timestamp"]) == (
        "2025-03-20T09:14:58Z", "2025-03-20T09:15:00Z",
    )  # fmt: skip
    assert answered["extra"]["options"] == {"temperature": 0.2}
    assert called["textChunks"] == ['[tool_use local_time] {"city":"Lisbon"}']
    assert result["textChunks"] == ["[tool_result local_time] 09:16"]
    assert failed["textChunks"] == ["[tool_result convert error] ValueError: unknown unit 'ft'"]
    assert {r["thread"] for r in recs} == {
        "llm:01jq3v8k2m4n6p8r0s2t4v6w8x", "llm:01jq3vb0c2d4e6f8g0h2j4k6m8",
    }  # fmt: skip
    assert "response_json" not in json.dumps(recs)


def test_legacy_naive_times_are_utc():
    recs, rejects, _ = run(llm_logs.read, LEGACY)
    assert not rejects
    assert [r["timestamp"] for r in recs] == [
        "2023-08-17T20:53:58Z", "2023-08-17T20:54:00Z",
        "2023-08-17T20:54:30Z", "2023-08-17T20:54:30Z",  # no duration: the start
    ]  # fmt: skip


def test_integer_ids_of_the_first_versions_are_scoped_by_the_file(tmp_path):
    rows = [{"id": 3, "model": "gpt-3.5-turbo", "prompt": "hi", "response": "hello",
             "conversation_id": None, "duration_ms": 1, "datetime_utc": "2023-06-01T10:00:00"}]  # fmt: skip
    path = tmp_path / "old-logs.json"
    path.write_text(json.dumps(rows))
    recs, _, _ = run(llm_logs.read, path)
    assert [r["id"] for r in recs] == ["llm:old-logs.json:3", "llm:old-logs.json:3:response"]


def test_detect_among_builtins():
    reg = fresh_registry(llm_logs)
    for path in (LOGS, LEGACY):
        assert detect_name(reg, path) == "llm-logs"
        assert registry.detect(Source(path)).name == "llm-logs"


def test_other_arrays_are_not_taken(tmp_path):
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([{"id": 1, "datetime_utc": "2024-01-01", "conversation_id": 2}]))
    assert llm_logs.sniff(Source(path)) == 0
    assert llm_logs.sniff(Source(FIXTURES / "openai_api" / "completion.json")) == 0


def test_a_repeated_id_on_other_text_is_not_shared(tmp_path):
    """A hand-joined or damaged log repeating an id (the first versions' integer ids
    restart in every database): two different messages never share an id; the same
    call again keeps it."""
    calls = json.loads(LEGACY.read_text())[:1]
    other = {**calls[0], "prompt": "Another one", "response": "4. Scoop"}
    path = tmp_path / "joined.json"
    path.write_text(json.dumps([calls[0], other, calls[0]]))
    recs, rejects, warnings = ingest(path, "llm-logs")
    assert not rejects and len(recs) == 6
    by_id: dict[str | None, set[str]] = {}
    for r in recs:
        by_id.setdefault(r.get("id"), set()).add(r["textChunks"][0])
    assert all(len(texts) == 1 for texts in by_id.values())
    assert recs[0]["id"] == recs[4]["id"] == "llm:" + calls[0]["id"]
    assert warnings == [f"{path}: {clash_warning(2)}"]
