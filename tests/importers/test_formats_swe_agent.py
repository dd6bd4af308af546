"""SWE-agent and mini-SWE-agent trajectories (``convo.importers.agents.swe_agent``).

Fixtures follow SWE-agent/SWE-agent ``sweagent/agent/agents.py`` (``get_trajectory_data``:
``trajectory`` first, then ``history`` with ``message_type``, function-calling
``tool_calls`` and ``tool`` items with ``tool_call_ids``, ``thinking_blocks``, text parts
with cache control; ``info``, ``replay_config``, ``environment``), a 0.7 trajectory
(``environment`` first, agent ``primary``, a demonstration, no message types), the retry
loop's ``attempts``, and mini-SWE-agent's ``.traj.json`` (``mini-swe-agent-1.1``:
``extra`` with timestamps, actions, the exit message).
"""

from __future__ import annotations

import json

import pytest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import swe_agent
from convo.importers.registry import registry

DIR = FIXTURES / "swe_agent"
V1 = DIR / "django__django-11099.traj"
V07 = DIR / "swe-agent__test-repo-i1.traj"
RETRY = DIR / "retry-loop.traj"
MINI = DIR / "app-crash.traj.json"
ALL = (V1, V07, RETRY, MINI)


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_golden(path):
    recs, _, _ = run(swe_agent.read, path)
    assert_golden(f"formats/swe_agent/{path.name.split('.')[0]}.jsonl", recs)


def test_function_calling_history():
    recs, rejects, warnings = run(swe_agent.read, V1)
    assert [r.where for r in rejects] == ["django__django-11099.traj#history-7"]
    assert warnings == [
        "django__django-11099.traj: the trajectory's steps not read: they repeat the history's turns",
        "django__django-11099.traj: messages without a time (SWE-agent records none) get the "
        "epoch sentinel",
    ]
    assert {r["thread"] for r in recs} == {"swe-agent:django__django-11099"}
    assert [r["metadata"]["speaker"] for r in recs] == [
        "system", "user", "assistant", "tool", "assistant", "tool",
    ]  # fmt: skip
    system, issue, call, result = recs[:4]
    assert system["extra"]["info"]["exit_status"] == "submitted"
    assert system["extra"]["info"]["model_stats"]["api_calls"] == 3
    assert "info" not in issue["extra"]
    assert issue["textChunks"][0].startswith("<uploaded_files>")
    assert call["textChunks"] == [
        "Let me find the validators first.",
        '[tool_use bash] {"command":"find /testbed -name validators.py"}',
    ]
    assert call["extra"]["thinking"] == ["The regex probably uses $ instead of \\Z."]
    assert call["extra"]["blocks"][1]["id"] == "toolu_01AbCdEfGhIjKlMnOpQrStUv"
    assert result["textChunks"] == [
        "[tool_result bash] OBSERVATION:\n/testbed/django/contrib/auth/validators.py\n"
        "/testbed/django/core/validators.py"
    ]
    assert result["metadata"]["listeners"] == ["assistant"]
    assert recs[5]["textChunks"][0].startswith("[tool_result str_replace_editor] ")


def test_thinking_private_unless_asked():
    recs, _, _ = run(swe_agent.read, V1, THINKING)
    assert recs[2]["textChunks"][0] == "[thinking] The regex probably uses $ instead of \\Z."


def test_old_trajectory_and_its_demonstration():
    recs, rejects, _ = run(swe_agent.read, V07)
    assert not rejects
    assert [r["tags"] for r in recs] == [[], ["demo"], [], [], []]
    assert recs[3]["extra"]["action"] == 'find_file "missing_colon.py"\n'
    assert recs[0]["extra"]["agent"] == "primary"


def test_retry_loop_reads_each_attempt_once():
    recs, rejects, warnings = run(swe_agent.read, RETRY)
    assert not rejects
    assert [r["thread"] for r in recs] == ["swe-agent:retry-loop:attempt-1"] * 3 + [
        "swe-agent:retry-loop:attempt-2"
    ] * 3
    assert warnings[0].startswith("retry-loop.traj: the chosen attempt's copy")
    assert recs[3]["extra"]["info"]["exit_status"] == "submitted (exit_cost)"


def test_mini_swe_agent():
    recs, rejects, warnings = run(swe_agent.read, MINI)
    assert not rejects and not warnings
    assert {r["thread"] for r in recs} == {"swe-agent:app-crash"}
    assert recs[0]["timestamp"] == "2025-12-04T08:00:00Z"
    assert recs[0]["extra"]["info"]["mini_version"] == "2.0.0"
    assert "config" not in recs[0]["extra"]["info"]
    assert recs[2]["extra"]["actions"] == [{"command": "grep -n load_config -r src"}]
    assert "response" not in recs[2]["extra"]
    assert recs[3]["extra"]["returncode"] == 0
    assert recs[4]["textChunks"] == ["[exit Submitted]", "diff --git a/src/app.py b/src/app.py\n"]
    assert recs[4]["tags"] == ["system"]


def test_detect_among_builtins():
    reg = fresh_registry(swe_agent)
    for path in ALL:
        assert detect_name(reg, path) == "swe-agent"
        assert registry.detect(Source(path)).name == "swe-agent"


def test_a_plain_history_object_is_not_taken(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"history": [{"role": "user", "content": "hi"}]}))
    assert swe_agent.sniff(Source(path)) == 0


def test_mini_swe_agent_names_its_instance(tmp_path):
    """mini-SWE-agent 2.x writes ``instance_id`` beside ``messages`` (SWE-agent/mini-swe-agent
    runs under ``output/``): the thread is the instance whatever the file is called."""
    doc = json.loads(MINI.read_text())
    plain, _, _ = run(swe_agent.read, MINI)
    named = tmp_path / "copy of run 3.traj.json"
    named.write_text(json.dumps({**doc, "instance_id": "app-crash"}))
    recs, rejects, _ = run(swe_agent.read, named)
    assert not rejects and {r["thread"] for r in recs} == {"swe-agent:app-crash"}
    assert [r["id"] for r in recs] == [r["id"] for r in plain]  # as the file named for it
