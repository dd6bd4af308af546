"""The OpenAI Agents SDK's SQLite sessions (``convo.importers.agents.agents_session``):
``SQLiteSession``'s database as openai/openai-agents-python ``memory/sqlite_session.py``
makes it (a user message, reasoning, a function call and its output, the answer; a row
that is not JSON). It was "format not recognised"."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents import agents_session
from convo.importers.registry import registry

PATH = FIXTURES / "agents_session" / "conversation_history.db"


def test_session_database():
    assert registry.detect(Source(PATH)).name == "openai-agents"
    recs, rejects, _ = run(agents_session.read, PATH)
    assert [r.where for r in rejects] == ["conversation_history.db#agent_messages-6"]
    assert [(r["metadata"]["speaker"], r["timestamp"], r["textChunks"]) for r in recs] == [
        ("user", "2025-07-01T09:00:00Z", ["Why does my kettle click off before it boils?"]),
        ("assistant", "2025-07-01T09:00:02Z", ['[tool_use lookup_manual] {"model":"K-200"}']),
        ("tool", "2025-07-01T09:00:03Z", ["[tool_result lookup_manual] K-200: cutoff 90 C"]),
        ("assistant", "2025-07-01T09:00:05Z", ["Its thermostat cuts off at 90 C."]),
    ]
    assert {r["thread"] for r in recs} == {"openai-agents:conversation_123"}
    assert {r["format"] for r in recs} == {"openai-responses"}
    assert recs[1]["extra"]["thinking"][0]["id"] == "rs_6863a1b2c3d4e5f6"
