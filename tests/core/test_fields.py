"""``convo.core.fields``: ``str_list`` (a C filter) is the comprehension it replaced (the
strings of a list, subclasses of ``str`` among them, and [] for anything that is not a
list); a record's conversation and the file of a source id."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convo.core import fields


class _Name(str):
    pass


VALUES = st.one_of(
    st.text(max_size=3), st.integers(), st.none(), st.text(max_size=3).map(_Name),
    st.lists(st.text(max_size=2), max_size=2),
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(VALUES, max_size=6) | VALUES)
def test_str_list_is_the_plain_comprehension(value):
    plain = [x for x in value if isinstance(x, str)] if isinstance(value, list) else []
    found = fields.str_list(value)
    assert found == plain
    assert found is not value


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
