"""Open WebUI chat exports (``convo.importers.apps.open_webui``).

The fixture follows open-webui/open-webui: ``exportChats`` in
``src/lib/components/chat/Settings/Chats.svelte`` writes ``JSON.stringify`` (one line) of
the ``ChatResponse`` rows of ``backend/open_webui/models/chats.py``; a chat's
``history.messages`` tree with ``currentId`` (a regenerated answer on another branch),
``params.system``, files, usage (``info``), a rating, sources, ``statusHistory``, an answer
whose content holds the ``<details type="reasoning">`` and ``<details type="tool_calls">``
blocks the backend writes; an older export's bare chat object with an ``error``; a
message without a role and an element that is not a chat.
"""

from __future__ import annotations

import json

from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import open_webui
from convo.importers.registry import registry

DIR = FIXTURES / "open_webui"
EXPORT = DIR / "chat-export-1717405400000.json"
NAME = EXPORT.name


def test_golden():
    recs, _, _ = run(open_webui.read, EXPORT)
    assert_golden("formats/open_webui/chat-export.jsonl", recs)


def test_current_branch_and_mapping():
    recs, rejects, warnings = run(open_webui.read, EXPORT)
    assert [r.where for r in rejects] == [f"{NAME}#item-2.msg-3", f"{NAME}#item-3"]
    assert warnings == [f"{NAME}: skipped 1 message on other branches (regenerated answers, edits)"]
    system, asked, answer, again, reply = recs[:5]
    assert system["role"] == "system" and system["textChunks"] == ["You are a patient baker."]
    conversation = system["extra"]["conversation"]
    assert conversation["meta"] == {"tags": ["baking"]}
    assert conversation["id"] == "5c2d9e0f-7a6b-4c3d-8e1f-2a3b4c5d6e7f"
    assert conversation["models"] == ["llama3.1:8b", "qwen3:14b"]
    assert {r["thread"] for r in recs[:5]} == {"open-webui:5c2d9e0f-7a6b-4c3d-8e1f-2a3b4c5d6e7f"}
    assert {r["subject"] for r in recs[:5]} == {"Sourdough starter smell"}
    assert asked["textChunks"] == ["My starter smells like nail polish. Why?", "[image] data URL"]
    assert asked["metadata"] == {"speaker": "user", "listeners": ["Llama 3.1 8B"]}
    assert asked["timestamp"] == "2024-06-03T09:00:00Z"
    # the regenerated answer (currentId's branch), not the first one
    assert answer["textChunks"] == ["That is acetone: a sign of hunger, not of mould."]
    assert answer["replyTo"] == asked["id"] == "open-webui:8a1f0c2e-4b5d-4e6f-9a7b-1c2d3e4f5a61"
    assert answer["extra"]["usage"]["total_tokens"] == 66
    assert answer["extra"]["annotation"] == {"rating": 1}
    assert again["textChunks"][1] == "[file feeding-log.csv]"
    assert reply["metadata"]["speaker"] == "Qwen3 14B"
    assert reply["textChunks"] == [
        '[tool_use web_search] {"query":"sourdough starter acetone smell"}',
        "[tool_result web_search] Acetone smell means the starter needs feeding.",
        "It is hungry: feed it twice a day at 1:1:1 & keep it at 24 °C.",
    ]
    assert reply["extra"]["thinking"] == [
        "The starter smells of acetone: it is hungry.\nSuggest feeding twice a day."
    ]
    assert reply["extra"]["sources"][0]["metadata"][0]["source"] == "https://bread.example/starter"


def test_reasoning_private_unless_asked():
    recs, _, _ = run(open_webui.read, EXPORT)
    assert not any("acetone: it is hungry" in c for r in recs for c in r["textChunks"])
    recs, _, _ = run(open_webui.read, EXPORT, THINKING)
    assert recs[4]["textChunks"][0] == (
        "[thinking] The starter smells of acetone: it is hungry.\nSuggest feeding twice a day."
    )


def test_older_export_of_bare_chats():
    recs, _, _ = run(open_webui.read, EXPORT)
    asked, answer = recs[5:]
    assert sorted(asked["extra"]["conversation"]) == ["id", "models", "tags", "timestamp", "title"]
    assert asked["thread"] == "open-webui:9d8c7b6a-5f4e-4d3c-b2a1-0f9e8d7c6b5a"
    assert answer["metadata"]["speaker"] == "mistral:7b"
    assert answer["textChunks"] == [
        "About 20% rye.",
        "[error] Ollama: model 'mistral:7b' timed out after the first sentence",
    ]


def test_one_chat_and_a_chat_without_history(tmp_path):
    """A chat's own download (a list of one row) and a chat whose messages are only the
    ``messages`` list (no tree): the list is read as it is."""
    chat = {
        "id": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "title": "Crumb",
        "chat": {
            "models": ["gemma2:9b"],
            "messages": [
                {"id": "m-1", "parentId": None, "childrenIds": ["m-2"], "role": "user",
                 "content": "Open crumb tips?", "timestamp": 1717500000},
                {"id": "m-2", "parentId": "m-1", "childrenIds": [], "role": "assistant",
                 "content": "Higher hydration.", "model": "gemma2:9b", "timestamp": 1717500009},
            ],
        },
        "created_at": 1717499990,
    }  # fmt: skip
    path = tmp_path / "chat-export-1717500100000.json"
    path.write_text(json.dumps([chat]))
    assert registry.detect(Source(path)).name == "open-webui"
    recs, rejects, warnings = run(open_webui.read, path)
    assert not rejects and not warnings
    assert [r["textChunks"] for r in recs] == [["Open crumb tips?"], ["Higher hydration."]]
    assert (
        recs[1]["replyTo"]
        == recs[0]["id"]
        == ("open-webui:0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d:m-1")
    )


def test_detect_among_builtins():
    assert detect_name(fresh_registry(open_webui), EXPORT) == "open-webui"
    assert registry.detect(Source(EXPORT)).name == "open-webui"
