"""Skype chat history from Microsoft's export (``convo.importers.apps.skype``).

The fixture follows the export's ``messages.json`` as Skyperious (``live.SkypeExport``)
and skype-export-parser read it: ``userId``, ``exportDate``, ``conversations`` with
``id`` (``8:`` 1:1 chats, ``19:...@thread.skype`` groups), ``displayName``,
``threadProperties.topic`` and ``MessageList`` newest first; messages with
``messagetype`` RichText / Text / Event/Call / RichText/UriObject /
RichText/Media_GenericFile / ThreadActivity/*, rich-text ``content`` (``<ss>``, ``<at>``,
``<quote>`` with ``<legacyquote>``, the ``<e_m>`` edit mark, ``<partlist>``,
``<URIObject>``), ``properties`` ``edittime`` / ``deletetime`` /
``isserversidegenerated`` / ``emotions``; an edited message's older copy after it.
"""

from __future__ import annotations

from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import skype
from convo.importers.registry import registry

PATH = FIXTURES / "skype" / "messages.json"


def test_golden_rejects_and_warnings():
    recs, rejects, warnings = run(skype.read, PATH)
    assert_golden("formats/skype/messages.jsonl", recs)
    assert [(r.where, r.reason) for r in rejects] == [
        ("messages.json:103#msg-6", "not a Skype message (no from)"),
        ("messages.json:180", "not a Skype conversation (not an object)"),
    ]
    assert warnings == [
        "messages.json: skipped empty server-generated messages: 1 (at messages.json:103#msg-5)",
        "messages.json: skipped deleted messages (no content left): 1 (at messages.json:5#msg-1)",
        "messages.json: skipped older copies of edited messages (the newest kept): 1 "
        "(at messages.json:5#msg-5)",
    ]


def test_mapping():
    recs, _, _ = run(skype.read, PATH)
    ask, answer, edited, file, call, added, topic, mention, photo = recs
    # time order (the export lists newest first); names from displayName / the chat's
    assert ask["metadata"] == {"speaker": "Bob Kowalski", "listeners": ["Ann Lee"]}
    assert ask["thread"] == "Bob Kowalski" and ask["timestamp"] == "2024-03-06T10:13:00Z"
    # a 1:1 chat's ids name both accounts (sorted): both exports give the same id
    assert ask["id"] == "skype:8:live:ann.lee+8:live:bob.k:1709719980150"
    assert answer["textChunks"] == [
        "> Bob Kowalski: Rock pools this weekend?\n\nYes!\nBring the big net & boots :)"
    ]
    assert answer["replyTo"] == ask["id"]
    assert answer["extra"]["reactions"] == [{"key": "heart", "by": ["Bob Kowalski"]}]
    assert (
        edited["textChunks"] == ["Saturday works, low tide is at 7"] and edited["extra"]["edited"]
    )
    assert file["extra"]["file"]["name"] == "tide-table.pdf" and file["textChunks"] == [
        "[file] tide-table.pdf"
    ]
    assert call["textChunks"] == ["[call ended, 1m25s]"] and call["tags"] == ["system"]
    assert added["textChunks"] == ["[added Cara M]"] and topic["textChunks"] == [
        "[topic: Beach cleanup]"
    ]
    assert mention["metadata"] == {"speaker": "Cara M", "listeners": ["Ann Lee"]}
    assert mention["id"] == "skype:19:4f1c2a9be0d84b7c@thread.skype:1709804900000"
    assert photo["thread"] == "Beach cleanup" and photo["textChunks"] == ["[photo] bags.jpg"]


def test_the_two_sides_of_a_chat_share_ids(tmp_path):
    """Bob's export of the same chat names Ann's account in the conversation id."""
    text = PATH.read_text(encoding="utf-8")
    text = text.replace('"userId": "8:live:ann.lee"', '"userId": "8:live:bob.k"')
    text = text.replace('"id": "8:live:bob.k"', '"id": "8:live:ann.lee"')
    other = tmp_path / "messages.json"
    other.write_text(text, encoding="utf-8")
    mine, _, _ = run(skype.read, PATH)
    theirs, _, _ = run(skype.read, other)
    assert [r["id"] for r in mine[:5]] == [r["id"] for r in theirs[:5]]


def test_a_message_without_a_time_is_warned_about(tmp_path):
    """A message whose ``originalarrivaltime`` is missing or does not read was dated
    1970-01-01 with no word: it is kept, with a warning at its place."""
    path = tmp_path / "messages.json"
    path.write_text(
        '{"userId": "8:me", "exportDate": "2023-05-01T10:00", "conversations": [{"id": "8:bea",'
        ' "displayName": "Bea", "properties": {}, "MessageList": ['
        '{"id": "1", "originalarrivaltime": "", "messagetype": "Text", "content": "one",'
        ' "conversationid": "8:bea", "from": "8:bea"},'
        '{"id": "2", "originalarrivaltime": "2023-04-01T10:00:00.000Z", "messagetype": "Text",'
        ' "content": "two", "conversationid": "8:bea", "from": "8:bea"}]}]}',
        encoding="utf-8",
    )
    recs, rejects, warnings = run(skype.read, path)
    assert not rejects
    assert [r["textChunks"][0] for r in recs] == ["one", "two"]
    assert warnings == ["messages.json:1#msg-1: no readable originalarrivaltime; time left unknown"]


def test_detect_among_builtins():
    assert skype.sniff(Source(PATH)) >= 90
    assert detect_name(fresh_registry(skype), PATH) == "skype"


def test_global_registry_detects():
    assert registry.detect(Source(PATH)).name == "skype"


def test_2025_export_events_voice_messages_and_cards():
    """Message types of the exports made before Skype closed (2025): an event of a kind
    not known here (``InviteFreeRelationshipChanged/Initialized``: its fields are an
    ``<eventtime>`` and an ``<initiator>``) read as its kind, not as its fields run
    together; a voice message, a card, ``HistoryDisclosedUpdate``."""
    recs, rejects, warnings = run(skype.read, FIXTURES / "skype" / "2025" / "messages.json")
    assert not rejects and not warnings
    got = [(r["textChunks"][0], r["tags"]) for r in recs]
    assert got[0] == ("[InviteFreeRelationshipChanged/Initialized]", ["system"])
    assert got[3:] == [
        ("[call ended, 1m24s]", ["system"]),
        ("[voice message] audio.m4a", []),
        ("[card]", []),
        ("[HistoryDisclosedUpdate: true]", ["system"]),
    ]
    assert recs[2]["replyTo"] == "skype:19:abc@thread.skype:1"
