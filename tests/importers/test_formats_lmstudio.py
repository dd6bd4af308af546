"""LM Studio chats (``convo.importers.apps.lmstudio``).

Fixtures follow LM Studio 0.3's conversation files as YorkieDev/lm-studio-conversation-
converter ``script.js`` reads them: a chat with its system prompt, a user file, an
assistant message regenerated (two versions, the second selected, with a thinking step
and a debug step), an edited user message, tool calls with a tool-status step and a
result step, an element that is not a message; and a 0.3.0 chat whose system prompt is
only in the per-chat config (after the messages) and whose answer is a ``singleStep``.
"""

from __future__ import annotations

import json

import pytest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import lmstudio
from convo.importers.registry import registry

DIR = FIXTURES / "lmstudio"
CHAT = DIR / "1742461200000.conversation.json"
OLD = DIR / "1727000000000.conversation.json"


@pytest.mark.parametrize("path", [CHAT, OLD], ids=lambda p: p.name)
def test_golden(path):
    recs, _, _ = run(lmstudio.read, path)
    assert_golden(f"formats/lmstudio/{path.name.split('.')[0]}.jsonl", recs)


def test_chat():
    recs, rejects, warnings = run(lmstudio.read, CHAT)
    assert [(r.where, r.reason) for r in rejects] == [
        ("1742461200000.conversation.json:232", "not an LM Studio message (versions)")
    ]
    assert not warnings
    system, asked, answer, edited, tools = recs
    assert system["metadata"] == {"speaker": "system", "listeners": []}
    assert system["subject"] == "Descaling the kettle"
    assert {r["thread"] for r in recs} == {"lmstudio:1742461200000"}
    assert {r["timestamp"] for r in recs} == {"2025-03-20T09:00:00Z"}
    assert asked["textChunks"][1] == "[file kettle.jpg, image]"
    # the selected version is the message, the other kept
    assert answer["textChunks"] == [
        "Limescale on the thermostat trips it early. Descale it with citric acid."
    ]
    assert answer["tags"] == ["edited"]
    assert answer["extra"]["other_versions"] == ["An early click usually means limescale."]
    assert answer["extra"]["thinking"] == [
        "The user wants to know why it stops early; check the thermostat."
    ]
    assert answer["extra"]["steps"][0]["type"] == "debugInfoBlock"
    assert answer["extra"]["model"] == "qwen3-8b"
    assert edited["extra"]["other_versions"] == ["How much acid?"]
    assert tools["textChunks"] == [
        '[tool_use local_time] {"city":"Lisbon"}',
        '[tool_result local_time] "09:16"',
        "Two tablespoons in a full kettle. It is 09:16 in Lisbon.",
    ]
    assert tools["extra"]["steps"][0]["type"] == "toolStatus"
    assert len({r["id"] for r in recs}) == 5


def test_thinking_private_unless_asked():
    recs, _, _ = run(lmstudio.read, CHAT, THINKING)
    assert recs[2]["textChunks"][0].startswith("[thinking] The user wants")


def test_old_chat_system_prompt_from_the_config():
    recs, rejects, _ = run(lmstudio.read, OLD)
    assert not rejects
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        ("system", ["Be brief."]),
        ("user", ["Three names for a pet pelican"]),
        ("assistant", ["Pouch, Captain Beak, Gulliver"]),
    ]


def test_selected_version_out_of_range_is_the_last(tmp_path):
    doc = json.loads(OLD.read_text())
    doc["messages"][1]["currentlySelected"] = 7
    path = tmp_path / "x.conversation.json"
    path.write_text(json.dumps(doc))
    recs, _, _ = run(lmstudio.read, path)
    assert recs[-1]["textChunks"] == ["Pouch, Captain Beak, Gulliver"]


def test_detect_among_builtins():
    reg = fresh_registry(lmstudio)
    for path in (CHAT, OLD):
        assert detect_name(reg, path) == "lmstudio"
        assert registry.detect(Source(path)).name == "lmstudio"


def test_other_message_objects_are_not_taken(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "hi", "versions": 2}]}))
    assert lmstudio.sniff(Source(path)) == 0


def test_a_chat_without_created_at_is_warned(tmp_path):
    doc = json.loads(OLD.read_text())
    del doc["createdAt"]
    path = tmp_path / "x.conversation.json"
    path.write_text(json.dumps(doc))
    recs, _, warnings = run(lmstudio.read, path)
    assert {r["timestamp"] for r in recs} == {"1970-01-01T00:00:00Z"}
    assert warnings == [
        "x.conversation.json: no createdAt: the chat's messages have no time (the epoch)"
    ]
