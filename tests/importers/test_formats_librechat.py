"""LibreChat conversation exports (``convo.importers.apps.librechat``).

Fixtures follow danny-avila/LibreChat ``client/src/hooks/Conversations/
useExportConversation.ts`` (``exportJSON``: the conversation's fields, ``options``, the
branch on screen as ``messages``) with an agents conversation (``think``, ``tool_call``
with args and output, text as ``{value}``, an attached image, an error message, an
element without a ``messageId``), and a "recursive" export with every branch
(``messagesTree``, a regenerated answer as a sibling).
"""

from __future__ import annotations

import json

from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import librechat
from convo.importers.registry import registry

DIR = FIXTURES / "librechat"
FLAT = DIR / "flights.json"
TREE = DIR / "scifi-tree.json"


def test_golden():
    for path in (FLAT, TREE):
        recs, _, _ = run(librechat.read, path)
        assert_golden(f"formats/librechat/{path.stem}.jsonl", recs)


def test_agents_conversation():
    recs, rejects, warnings = run(librechat.read, FLAT)
    assert [r.where for r in rejects] == ["flights.json#messages.5"] and not warnings
    asked, answer, book, failed = recs
    assert asked["subject"] == "Oslo to Rome flights"
    assert asked["extra"]["conversation"]["options"]["agent_id"] == "agent_Tr4v3l"
    assert asked["metadata"] == {"speaker": "Ann", "listeners": ["Travel Agent"]}
    assert asked["textChunks"] == ["Find flights from Oslo to Rome in July", "[image dates.png]"]
    assert {r["thread"] for r in recs} == {"librechat:6f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f"}
    assert answer["textChunks"] == [
        "Let me search.",
        '[tool_use flight_search] {"from":"OSL","to":"FCO","month":"2025-07"}',
        "[tool_result flight_search] 3 flights; cheapest 89 EUR on 4 July",
        "The cheapest is 89 EUR on 4 July.",
    ]
    assert answer["extra"]["thinking"] == ["Search first, then summarise the cheapest."]
    assert answer["replyTo"] == asked["id"] == "librechat:a1f0c2d4-1111-4a2b-9c3d-000000000001"
    assert book["replyTo"] == answer["id"]
    assert failed["tags"] == ["error"]
    assert failed["timestamp"] == "2025-06-12T08:31:04Z"


def test_thinking_private_unless_asked():
    recs, _, _ = run(librechat.read, FLAT, THINKING)
    assert recs[1]["textChunks"][0] == "[thinking] Search first, then summarise the cheapest."


def test_recursive_export_keeps_both_branches():
    recs, rejects, _ = run(librechat.read, TREE)
    assert not rejects
    question, first, second, why = recs
    assert first["replyTo"] == second["replyTo"] == question["id"]
    assert why["replyTo"] == second["id"]
    assert question["metadata"]["listeners"] == ["GPT-4o"]
    assert "children" not in json.dumps(first["extra"])


def test_detect_among_builtins():
    reg = fresh_registry(librechat)
    for path in (FLAT, TREE):
        assert detect_name(reg, path) == "librechat"
        assert registry.detect(Source(path)).name == "librechat"


def test_other_conversation_objects_are_not_taken(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"conversationId": "c", "messages": [{"text": "hi"}]}))
    assert librechat.sniff(Source(path)) == 0
