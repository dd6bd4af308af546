"""``convo.core.fields``: the conversation of a record and the file of a source id."""

from __future__ import annotations

import pytest

from convo.core import fields


@pytest.mark.parametrize(
    ("source_id", "file"),
    [
        ("team.mbox#msg-2", "team.mbox"),
        ("/x/whatsapp.txt:12", "/x/whatsapp.txt"),
        ("/x/mattermost.jsonl:7#reply-1", "/x/mattermost.jsonl"),
        ("a#b/standup.vtt#cue-3", "a#b/standup.vtt"),  # a '#' in a folder's name
        ("meeting:2.vtt#cue-1", "meeting:2.vtt"),
        ("notes.eml", "notes.eml"),
        ("x:", "x:"),
        ("#cue-1", "#cue-1"),
    ],
)
def test_source_file_takes_off_the_locator_and_the_line(source_id, file):
    assert fields.source_file(source_id) == file


def test_the_conversation_is_the_thread_else_the_file_else_the_id():
    assert fields.conversation({"thread": "t", "source_id": "a.vtt#cue-1", "id": "i"}) == "t"
    assert fields.conversation({"thread": "", "source_id": "a.vtt#cue-1", "id": "i"}) == "a.vtt"
    assert fields.conversation({"thread": 3, "id": "i"}) == "i"
    assert fields.conversation({}) is None
