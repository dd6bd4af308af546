"""Telegram Desktop result.json details (``convo.importers.apps.telegram``), as Telegram
Desktop's ``export_output_json.cpp`` writes them: ``reply_to_peer_id`` beside
``reply_to_message_id`` when the message replied to is in another chat (a discussion
group's comment on its channel's post), and a file the export left out written as the
reason in place of its path (``pushPath``: ``(File not included. ...)``, ``(File exceeds
maximum size. ...)``). The fixture is written here in that shape."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import telegram
from convo.importers.registry import registry

PATH = FIXTURES / "telegram" / "discussion-result.json"


def test_golden():
    assert registry.detect(Source(PATH)).name == "telegram"
    recs, rejects, warnings = run(telegram.read_telegram, PATH)
    assert not rejects and not warnings
    assert_golden("formats/telegram/discussion-result.jsonl", recs)


def test_reply_to_another_chat_is_not_a_reply_here():
    recs, _, _ = run(telegram.read_telegram, PATH)
    comment, answer = recs[1], recs[2]
    assert "replyTo" not in comment and comment["metadata"]["listeners"] == []
    assert comment["extra"]["reply_elsewhere"] == {"peer": "channel1779999999", "message_id": "812"}
    assert answer["replyTo"] == "telegram:1771234567:41"
    assert answer["metadata"]["listeners"] == ["Mina Park"]


def test_left_out_files_are_named_not_their_reason():
    recs, _, _ = run(telegram.read_telegram, PATH)
    assert recs[3]["textChunks"] == ["[sticker] 🎉"]
    assert recs[4]["textChunks"] == ["full notes", "[file] changelog-2.3.pdf"]
    assert recs[5]["textChunks"] == ["[photo]"]
    assert recs[5]["extra"]["media"]["photo"].startswith("(File not included.")


SERVICE = FIXTURES / "telegram" / "service-result.json"


def test_service_messages_keep_what_the_export_says():
    """As ``export_output_json.cpp`` writes them: a join by link names its ``inviter``, a
    group call's length is ``duration`` (not ``duration_seconds``), a poll answer added is
    ``answer``, a custom action has ``information_text`` and no ``action``, a pin its
    ``message_id``; a name written ``null`` beside its id is a deleted account (the app's
    "Deleted Account"), and a message Desktop could not export (``unsupported``) is
    warned with its place, not counted as empty."""
    recs, rejects, warnings = run(telegram.read_telegram, SERVICE)
    assert not rejects
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        ("Rosa Vidal", ["[join_group_by_link] from Hiking Club"]),
        ("Deleted Account", ["see you at the trailhead"]),
        ("Rosa Vidal", ["[remove_members] Deleted Account"]),
        ("Rosa Vidal", ["[group_call] 95 s"]),
        ("Tomas Berg", ['[poll_append_answer] "Sunday"']),
        ("Tomas Berg", ["[service] Tomas Berg boosted the group"]),
        ("Rosa Vidal", ["[pin_message]"]),
    ]
    assert recs[1]["extra"]["from_id"] == "user5550002"
    assert recs[2]["extra"]["members"] == ["Deleted Account"]
    assert recs[6]["extra"]["message_id"] == "11"
    assert len(warnings) == 1 and "chat-1-msg-8" in warnings[0] and "unsupported" in warnings[0]


def test_a_forum_topic_is_no_reply_to_its_first_message():
    """In a forum, Telegram gives every message of a topic that is no reply the topic's
    ``topic_created`` message as its ``reply_to_msg_id`` (tdesktop: "In a topic every
    message 'replies' to the topic itself"), and the export writes it as
    ``reply_to_message_id``: such a message replied to the topic's creator. Now it is no
    reply, ``extra.topic`` names the topic; a real reply in it stays one."""
    recs, rejects, warnings = run(
        telegram.read_telegram, FIXTURES / "telegram" / "forum-result.json"
    )
    assert not rejects and not warnings
    in_topic, reply, general = recs[2], recs[3], recs[4]
    assert "replyTo" not in in_topic and in_topic["metadata"]["listeners"] == []
    assert in_topic["extra"]["topic"] == {"id": "2", "title": "3D printing"}
    assert reply["replyTo"] == "telegram:1806543210:3"
    assert reply["metadata"]["listeners"] == ["Ben Ruiz"]
    assert "replyTo" not in general and "topic" not in general["extra"]


def test_a_channel_posts_signature_and_saved_from_are_kept():
    """``export_output_json.cpp`` writes a channel post's signature as ``author`` and the
    chat a message was saved from as ``saved_from``: both were dropped."""
    recs, rejects, _ = run(telegram.read_telegram, FIXTURES / "telegram" / "channel-result.json")
    assert not rejects
    assert recs[0]["metadata"]["speaker"] == "Harbour News"
    assert recs[0]["extra"]["author"] == "Lena Park"
    assert recs[1]["extra"]["saved_from"] == "Port Authority"


# A result.json that breaks off. Telegram Desktop writes it as it goes
# (``export_output_json.cpp``: ``writeDialogStart`` opens the chat and its ``messages``,
# each ``writeDialogSlice`` appends a slice of messages, ``writeDialogEnd`` closes them), so
# an export stopped part-way ends after a whole message with the array and the object
# open (stopped-result.json), and a copy cut short ends anywhere, here inside a string
# (cut-result.json). Both were refused whole ("not valid JSON ...; is the file
# complete?", exit 2, nothing imported).
CUT = FIXTURES / "telegram" / "cut-result.json"
STOPPED = FIXTURES / "telegram" / "stopped-result.json"
CUT_FULL = FIXTURES / "telegram" / "cut-full-result.json"


def test_a_cut_export_keeps_the_messages_before_the_cut():
    recs, rejects, warnings = run(telegram.read_telegram, CUT)
    assert [r["textChunks"] for r in recs] == [
        ["Are we still on for the climbing gym?"],
        ["Yes, 6 pm. I'll bring the spare harness."],
        ["Great, see you there"],
    ]
    # a personal chat's two passes (its senders first) still give its listeners
    assert recs[0]["metadata"]["listeners"] == ["Tomas Berg"]
    [cut] = rejects  # once, though the personal chat's messages are read twice
    assert cut.where == "cut-result.json:58"
    assert cut.reason == (
        "the file breaks off here, after 3 messages: not valid JSON (unterminated string)"
    )
    assert "export the chat again" in (cut.hint or "")
    assert not warnings


def test_an_interrupted_export_keeps_every_message_it_wrote():
    recs, rejects, _ = run(telegram.read_telegram, STOPPED)
    assert len(recs) == 3
    assert [r.where for r in rejects] == ["stopped-result.json:50"]
    assert rejects[0].reason.startswith("the file breaks off here, after 3 messages: ")


def test_a_cut_full_export_keeps_the_chats_and_messages_before_the_cut():
    """A full export breaks off inside a chat (Desktop appends a chat's messages a slice
    at a time): the chats before it, and that chat's messages before the break, which is
    read from the chat's first byte (``StreamedDoc.broken``), with the account's ids."""
    recs, rejects, _ = run(telegram.read_telegram, CUT_FULL)
    assert [(r["id"], r["textChunks"]) for r in recs] == [
        ("telegram:1770000001:1", ["Saturday route: the ridge loop"]),
        ("telegram:1770000001:2", ["Count me in"]),
        ("telegram:4440009876/5550001234:1", ["Are we still on for the climbing gym?"]),
    ]
    assert [r.where for r in rejects] == ["cut-full-result.json:75"]
    assert rejects[0].reason.startswith("the file breaks off here, after 1 message: ")


def test_a_full_export_cut_before_a_chats_messages_rejects_at_the_chat(tmp_path):
    text = CUT_FULL.read_text(encoding="utf-8")
    cut = tmp_path / "result.json"
    cut.write_text(text[: text.index('"Nadia Kowalski"') + 6], encoding="utf-8")
    recs, rejects, _ = run(telegram.read_telegram, cut)
    assert len(recs) == 2
    assert [r.reason.split(":")[0] for r in rejects] == ["the file breaks off here, after 1 chat"]


def test_ingest_of_a_cut_export_exits_1_with_the_place(runner):
    from convo.cli.app import app

    r = runner.invoke(app, ["ingest", str(CUT), "-o", "-"])
    assert r.exit_code == 1, r.output
    assert len(r.stdout.splitlines()) == 3
    assert f"{CUT}:58: rejected: the file breaks off here, after 3 messages" in r.stderr
    assert "read 4, imported 3, rejected 1" in r.stderr


def test_every_cut_of_a_full_export_keeps_a_prefix_of_its_messages(tmp_path):
    """Cut at every line and inside it: never an error past the head, never a message
    the longer cut does not also give, and the break always one rejection."""
    from convo.core.errors import InputError

    text = CUT_FULL.read_bytes()
    every = [m["id"] for m in run(telegram.read_telegram, CUT_FULL)[0]]
    path = tmp_path / "result.json"
    cuts = [i for i in range(len(text)) if text[i : i + 1] == b"\n"] + [len(text) - 3]
    for end in cuts:
        path.write_bytes(text[: end + 1])
        try:
            recs, rejects, _ = run(telegram.read_telegram, path)
        except InputError:
            assert b'"list"' not in text[: end + 1], end  # only before the chats begin
            continue
        ids = [r["id"] for r in recs]
        assert ids == every[: len(ids)], end
        assert len(rejects) == 1, (end, rejects)
