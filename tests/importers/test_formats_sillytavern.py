"""SillyTavern chats (``convo.importers.apps.sillytavern``).

Fixtures follow SillyTavern/SillyTavern ``public/script.js`` ``saveChat`` (a first line
``{user_name, character_name, create_date, chat_metadata}``, then the messages: ``name``,
``is_user``, ``is_system``, ``send_date`` in the shapes ``getMessageTimeStamp`` and the
older "humanized" stamps wrote, or epoch milliseconds, ``mes``, ``extra`` with
``reasoning``/``image``/``api``/``model``, ``swipes``/``swipe_id``/``swipe_info``) and
``public/scripts/group-chats.js`` (a group chat: messages only). The character chat
holds a torn line and an object that is not a message.
"""

from __future__ import annotations

from datetime import timedelta, timezone

from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import sillytavern
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

DIR = FIXTURES / "sillytavern"
CHAT = DIR / "Seraphina - 2024-6-5 @14h 56m 50s 682ms.jsonl"
GROUP = DIR / "2024-6-6 @20h 00m 00s 000ms.jsonl"


def test_golden():
    for path, name in ((CHAT, "character"), (GROUP, "group")):
        recs, _, _ = run(sillytavern.read, path)
        assert_golden(f"formats/sillytavern/{name}.jsonl", recs)


def test_character_chat():
    recs, rejects, warnings = run(sillytavern.read, CHAT)
    assert [(r.where, r.reason) for r in rejects] == [
        (f"{CHAT.name}:6", "not JSON"),
        (f"{CHAT.name}:7", "not a SillyTavern chat message (name, mes)"),
    ] and not warnings
    greeting, asked, answer, narrator = recs
    thread = "sillytavern:Seraphina - 2024-6-5 @14h 56m 50s 682ms"
    assert {r["thread"] for r in recs} == {thread}
    assert greeting["metadata"] == {"speaker": "Seraphina", "listeners": ["Ann"]}
    assert greeting["role"] == "assistant" and greeting["timestamp"] == "2024-06-05T14:56:00Z"
    assert greeting["extra"]["swipes"] == ["*Birdsong.* Ah, you are awake."]
    assert greeting["extra"]["conversation"]["chat_metadata"]["tainted"] is True
    assert asked["metadata"] == {"speaker": "Ann", "listeners": ["Seraphina"]}
    assert asked["textChunks"] == [
        "Where am I?",
        "[image] user/images/Seraphina/glade_2024-6-5.png",
    ]
    assert answer["timestamp"] == "2024-06-05T14:58:02Z"  # epoch milliseconds
    assert answer["extra"]["thinking"] == ["She should stay calm and a little mysterious."]
    assert answer["extra"]["st_extra"]["model"] == "gpt-4o"
    assert answer["extra"]["message"]["gen_finished"] == "2024-06-05T14:58:02.113Z"
    assert narrator["tags"] == ["system"] and narrator["role"] == "system"
    assert narrator["timestamp"] == "2024-06-05T15:01:09Z"  # 2024-6-5@15h01m09s


def test_local_times_are_read_in_tz():
    zone = ImportOptions(tz=timezone(timedelta(hours=2)))
    recs, _, _ = run(sillytavern.read, CHAT, zone)
    assert [r["timestamp"] for r in recs] == [
        "2024-06-05T12:56:00Z",
        "2024-06-05T12:57:00Z",
        "2024-06-05T14:58:02Z",  # epoch: no zone to apply
        "2024-06-05T13:01:09Z",
    ]


def test_reasoning_private_unless_asked():
    recs, _, _ = run(sillytavern.read, CHAT)
    assert not any("mysterious" in c for r in recs for c in r["textChunks"])
    recs, _, _ = run(sillytavern.read, CHAT, THINKING)
    assert recs[2]["textChunks"][0] == "[thinking] She should stay calm and a little mysterious."
    assert "thinking" not in recs[2]["extra"]


def test_group_chat_without_a_first_line():
    recs, rejects, _ = run(sillytavern.read, GROUP)
    assert not rejects
    assert {r["thread"] for r in recs} == {GROUP.name}
    keeper, ann, bard = recs
    assert keeper["metadata"]["listeners"] == []  # nobody has spoken to it yet
    assert ann["metadata"] == {"speaker": "Ann", "listeners": ["Tavern Keeper"]}
    assert bard["metadata"] == {"speaker": "Bard", "listeners": ["Ann"]}


def test_detect_among_builtins():
    reg = fresh_registry(sillytavern)
    for path in (CHAT, GROUP):
        assert detect_name(reg, path) == "sillytavern"
        assert registry.detect(Source(path)).name == "sillytavern"
