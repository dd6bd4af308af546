"""Google Chat in Google Takeout (``convo.importers.apps.google_chat``).

Fixtures follow Takeout's ``Google Chat/Groups/<Space or DM>/messages.json`` and
``group_info.json`` as users' converters read them (``creator`` name/email/user_type,
``created_date`` like ``Tuesday, March 1, 2022 at 10:00:00 AM UTC`` with the narrow
no-break space newer exports put before AM/PM, ``topic_id``, ``message_id``,
``attached_files``, ``reactions``, ``quoted_message_metadata``, deleted messages).
"""

from __future__ import annotations

from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import google_chat
from convo.importers.registry import registry

GROUPS = FIXTURES / "google_chat" / "Groups"
SPACE = GROUPS / "Space AAAAtea" / "messages.json"
DM = GROUPS / "DM xyz" / "messages.json"


def test_space_golden_reject_and_deleted():
    recs, rejects, warnings = run(google_chat.read, SPACE)
    assert_golden("formats/google_chat/space.jsonl", recs)
    assert [(r.where, r.reason) for r in rejects] == [
        ("messages.json:36", "not a Google Chat message (no creator)")
    ]
    assert warnings == ["messages.json: skipped 1 deleted or empty messages"]


def test_mapping():
    recs, _, _ = run(google_chat.read, SPACE)
    ask, answer, bot = recs
    assert ask["metadata"] == {"speaker": "Alice Liddell", "listeners": ["The Hatter", "Dormouse"]}
    assert ask["thread"] == "Tea Party" and ask["id"] == "gchat:AAAAtea/3q1vRmDd0eE/3q1vRmDd0eE"
    assert answer["timestamp"] == "2022-03-01T10:01:30Z"  # narrow no-break space before AM
    assert answer["textChunks"] == ["Only wine. See the menu.", "[file menu.pdf]"]
    assert answer["extra"]["quoted"] == "Is there any tea?"
    assert bot["tags"] == ["bot"] and bot["timestamp"] == "2022-03-01T18:00:00Z"


def test_dm_without_group_info_uses_folder_name():
    recs, _, _ = run(google_chat.read, DM)
    assert {r["thread"] for r in recs} == {"DM xyz"}
    assert recs[1]["metadata"] == {"speaker": "The Cat", "listeners": ["Alice Liddell"]}


def test_detect_among_builtins():
    reg = fresh_registry(google_chat)
    assert detect_name(reg, SPACE) == "google-chat"
    assert detect_name(reg, DM) == "google-chat"


def test_global_registry_detects():
    assert registry.detect(Source(SPACE)).name == "google-chat"
