"""AutoGen 0.4+ saved state (``convo.importers.agents.autogen_state``).

Fixtures follow autogen-agentchat's ``state/_states.py`` as ``json.dump(await
team.save_state(), f)`` writes it (the "Managing State" tutorial): a ``TeamState``
whose ``RoundRobinManagerState`` holds the run's ``message_thread`` (agentchat message
dumps with uuid ids and ISO ``created_at``) and whose agents' ``AssistantAgentState``
hold ``llm_context.messages`` in autogen-core's LLM message types; and an agent's state
saved alone (function calls, a ``thought``, a ``FunctionExecutionResultMessage``).
"""

from __future__ import annotations

import pytest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from convo.core.errors import InputError
from convo.importers.agents import autogen_state

TEAM = FIXTURES / "autogen_state" / "team_state.json"
AGENT = FIXTURES / "autogen_state" / "agent_state.json"


def test_team_state_reads_the_message_thread_once():
    recs, rejects, warnings = run(autogen_state.read, TEAM)
    assert rejects == []
    assert [r["metadata"]["speaker"] for r in recs] == ["user", "poet", "critic"]
    assert recs[0]["metadata"]["listeners"] == ["poet"]
    assert recs[1]["timestamp"] == "2025-05-01T10:00:01Z"
    assert recs[2]["textChunks"] == ["APPROVE"]
    assert recs[0]["id"] == "0b3c6a4e-6d1f-4b9a-9a57-1f0e4c2d7a01"  # a uuid, as `autogen`
    assert {r["thread"] for r in recs} == {
        "autogen-state:team_state/agent_states.RoundRobinGroupChatManager"
    }
    assert warnings == [
        "team_state.json: 2 agent model contexts not read: they repeat the team's "
        "message thread as each agent saw it"
    ]


def test_agent_state_reads_its_model_context():
    recs, rejects, _ = run(autogen_state.read, AGENT)
    assert rejects == []
    assert [(r["metadata"]["speaker"], r["role"]) for r in recs] == [
        ("system", "system"),
        ("user", "user"),
        ("weather_agent", "assistant"),
        ("get_weather", "tool"),
        ("weather_agent", "assistant"),
    ]
    assert recs[2]["textChunks"] == ['[tool_use get_weather] {"city":"New York"}']
    assert recs[2]["extra"]["blocks"][0] == {"type": "thinking", "thinking": "I should look it up."}
    shown, _, _ = run(autogen_state.read, AGENT, THINKING)
    assert shown[2]["textChunks"][0] == "[thinking] I should look it up."
    assert recs[3]["textChunks"] == ["[tool_result get_weather] Sunny, 22 degrees"]
    assert {r["thread"] for r in recs} == {"autogen-state:agent_state/state"}


def test_detected():
    reg = fresh_registry(autogen_state)
    assert detect_name(reg, TEAM) == "autogen-state"
    assert detect_name(reg, AGENT) == "autogen-state"


def test_state_without_messages_is_rejected_whole(tmp_path):
    empty = tmp_path / "s.json"
    empty.write_text('{"type": "TeamState", "agent_states": {"m": {"message_thread": []}}}')
    with pytest.raises(InputError, match="no message thread or model context"):
        run(autogen_state.read, empty)
