"""AgentScope saved sessions (``convo.importers.agents.agentscope_session``, issue 36 §7).

The fixture is what ``JSONSession.save_session_state("session_2024-05-02", friday=...,
jarvis=...)`` writes: each agent's ``state_dict()`` (``name``, ``_sys_prompt``,
``toolkit``) with its ``memory`` as ``InMemoryMemory.state_dict()``, ``{"content":
[Msg.to_dict(), ...]}`` (the second agent in the later ``[Msg, marks]`` form).
"""

from __future__ import annotations

import orjson
import pytest
from formats_helpers import FIXTURES, run
from hypothesis import given
from hypothesis import strategies as st

from conftest import ROOT, assert_golden
from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.agents import agentscope_session
from convo.importers.registry import registry

PATH = FIXTURES / "agentscope_session" / "session_2024-05-02.json"


def test_golden_and_mapping():
    recs, rejects, warnings = run(agentscope_session.read, PATH)
    assert not rejects and not warnings
    assert_golden("formats/agentscope_session/session.jsonl", recs)
    assert [r["metadata"]["speaker"] for r in recs] == [
        "Alice", "Friday", "system", "Friday", "Alice", "Jarvis",
    ]  # fmt: skip
    assert {r["format"] for r in recs} == {"agentscope"}
    first = recs[0]
    assert first["thread"] == "agentscope-session:session_2024-05-02/friday.memory"
    assert first["id"] == "b3b1a2c4d5e6f708192a3b4c"
    assert first["metadata"]["listeners"] == ["Friday"]
    assert first["extra"]["conversation"]["sys_prompt"].startswith("You are Friday")
    assert recs[4]["thread"] == "agentscope-session:session_2024-05-02/jarvis.memory"
    assert recs[5]["textChunks"] == ["None since the outage."]
    assert recs[0]["timestamp"] == "2024-05-02T14:30:05Z"


def test_detected_and_the_message_format_keeps_its_files():
    assert registry.detect(Source(PATH)).name == "agentscope-session"
    assert registry.detect(Source(ROOT / "sample_data/chat/agentscope.json")).name == "agentscope"


def test_a_memory_saved_alone(tmp_path):
    doc = orjson.loads(PATH.read_bytes())
    path = tmp_path / "s1.json"
    path.write_bytes(orjson.dumps({"memory": doc["jarvis"]["memory"]}))
    assert registry.detect(Source(path)).name == "agentscope-session"
    recs, _, _ = run(agentscope_session.read, path)
    assert [r["thread"] for r in recs] == ["agentscope-session:s1/memory"] * 2


def test_every_message_of_a_marked_pair_is_read(tmp_path):
    """AgentScope keeps a message beside its marks (``[Msg, [mark, ...]]``); a pair that
    holds a second message (a file edited by hand) reads it too, not only the first
    (found by test_export_mutations_property.py: the second was dropped unsaid)."""
    doc = orjson.loads(PATH.read_bytes())
    pair = doc["jarvis"]["memory"]["content"][1]
    edited = {**pair[0], "content": "Zebrafinch since the outage."}
    pair.insert(0, edited)
    path = tmp_path / "s2.json"
    path.write_bytes(orjson.dumps(doc))
    recs, _, _ = run(agentscope_session.read, path)
    texts = [r["textChunks"] for r in recs if r["thread"].endswith("jarvis.memory")]
    assert texts == [
        ["Jarvis, any alerts?"],
        ["Zebrafinch since the outage."],
        ["None since the outage."],
    ]


def test_a_state_without_messages_is_refused(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text('{"friday": {"name": "Friday", "memory": {"content": []}}}')
    with pytest.raises(InputError, match="no AgentScope memory"):
        list(run(agentscope_session.read, path)[0])


_MSG = st.fixed_dictionaries(
    {
        "id": st.text(max_size=24),
        "name": st.text(max_size=6),
        "role": st.sampled_from(["user", "assistant", "system", "x"]),
        "content": st.one_of(
            st.text(max_size=10),
            st.lists(
                st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=5)}),
                max_size=2,
            ),
        ),
    }
)


@given(
    st.lists(
        st.one_of(
            _MSG, st.tuples(_MSG, st.lists(st.text(max_size=3))).map(list), st.integers(-5, 5)
        ),
        min_size=1,
        max_size=6,
    )
)
def test_any_memory_never_crashes(tmp_path_factory, content):
    path = tmp_path_factory.mktemp("a") / "s.json"
    path.write_bytes(orjson.dumps({"agent": {"memory": {"content": content}}}))
    try:
        recs, rejects, _ = run(agentscope_session.read, path)
    except InputError:
        return  # no message in the memory at all
    assert len(recs) + len(rejects) == len(content)


def _said(mid: str, name: str, text: str, sec: int) -> list:
    """A message kept beside its marks, as AgentScope 1.x's memory writes it."""
    msg = {"id": mid, "name": name, "role": "assistant", "content": text, "metadata": None,
           "timestamp": f"2026-02-09 15:12:{sec:02d}.012"}  # fmt: skip
    return [msg, []]


def test_several_agents_memories_a_broadcast_read_once(tmp_path):
    """AgentScope's werewolves game saves every player's memory in one checkpoint
    (``examples/game/werewolves/checkpoints/players_checkpoint.json``): the moderator's
    announcements are in each player's memory, a private word in one; each message is
    read once, heard by the players whose memories hold it."""
    hello = _said("FLiHdrx8dkUWreYegDdJRS", "Moderator", "The game starts.", 4)
    seer = _said("ceu7EpDjjL9q8pbSz7y9ub", "Moderator", "[Player7 ONLY] you are the seer.", 5)
    p7 = _said("Zq3kP7saysHiToAllxxxxx", "Player7", "I am a villager.", 9)
    doc = {
        "Player7": {"memory": {"content": [hello, seer, p7]}, "name": "Player7", "_sys_prompt": "You play."},
        "Player5": {"memory": {"content": [hello, p7]}, "name": "Player5", "_sys_prompt": "You play."},
    }  # fmt: skip
    path = tmp_path / "players_checkpoint.json"
    path.write_bytes(orjson.dumps(doc))
    assert registry.detect(Source(path)).name == "agentscope-session"
    recs, rejects, warnings = run(agentscope_session.read, path)
    assert not rejects
    assert [r["id"] for r in recs] == [hello[0]["id"], seer[0]["id"], p7[0]["id"]]
    assert [r["metadata"]["listeners"] for r in recs] == [
        ["Player7", "Player5"], ["Player7"], ["Player5"],
    ]  # fmt: skip
    assert {r["thread"] for r in recs} == {"agentscope-session:players_checkpoint/Player7.memory"}
    assert warnings == [
        "players_checkpoint.json: 2 cop(y/ies) of messages held by several agents' memories "
        "read once (their listeners: those agents)"
    ]
