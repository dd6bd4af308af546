"""Snapchat's My Data chat history (``convo.importers.apps.snapchat``).

``mydata_2024/messages/json/chat_history.json`` is the conversation-keyed layout: a chat
of two (text, non-ASCII, a media item with two ``Media IDs``, a sticker with null
``Content``, an empty text, a time that does not read) and a titled group (a status
notice, a share, an element that is not a row); ``snap_history.json`` beside it the
snaps. ``mydata_2021/json/chat_history.json`` is the older Received/Sent layout with
HTML entities.
"""

from __future__ import annotations

import json
from datetime import datetime

from formats_helpers import FIXTURES, NAME, TEXT, assert_one_text_an_id, files_taken, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.io import Source
from convo.core.timestamps import iso_ts
from convo.importers.apps import snapchat
from convo.importers.apps.common import utc_named
from convo.importers.registry import registry

NEW = FIXTURES / "snapchat" / "mydata_2024" / "messages" / "json" / "chat_history.json"
SNAPS = NEW.with_name("snap_history.json")
OLD = FIXTURES / "snapchat" / "mydata_2021" / "json" / "chat_history.json"


def test_goldens_and_detection():
    for path, golden in ((NEW, "2024"), (SNAPS, "2024-snaps"), (OLD, "2021")):
        recs, _, _ = run(snapchat.read, path)
        assert_golden(f"formats/snapchat/{golden}.jsonl", recs)
        assert registry.detect(Source(path)).name == "snapchat"


def test_newer_layout():
    recs, rejects, warnings = run(snapchat.read, NEW)
    chat = [r for r in recs if r["thread"] == "ann.lee"]
    assert [
        (r["metadata"]["speaker"], r["metadata"]["listeners"], r["textChunks"]) for r in chat
    ] == [
        ("ann.lee", ["maple_owl"], ["was he good? 🐶"]),
        ("maple_owl", ["ann.lee"], ["very — café après"]),
        ("ann.lee", ["maple_owl"], ["[media]"]),
        ("maple_owl", ["ann.lee"], ["[sticker]"]),
    ]
    assert chat[0]["timestamp"] == "2024-04-20T01:29:22Z" and chat[0]["extra"]["saved"] is True
    assert chat[2]["extra"]["media_ids"] == ["b~EiQSFTM0SEdmSTFN", "b~EioSFWVueWoyb2lJ"]
    group = [r for r in recs if r["thread"] == "Garden crew 🌱"]
    assert group[0]["metadata"]["listeners"] == ["maple_owl", "ann.lee"]
    assert group[2]["textChunks"] == ["[a message was erased]"] and group[2]["tags"] == ["system"]
    assert [r.reason for r in rejects] == [
        "Created 'yesterday' is not a time",
        "not a Snapchat chat item (not an object)",
    ]
    assert rejects[0].where.endswith("chat_history.json#ann.lee[5]")
    assert warnings == [
        "chat_history.json: skipped empty messages (no text, no media): 1 "
        "(at chat_history.json#ann.lee[4])"
    ]
    assert len({r["id"] for r in recs}) == len(recs)


def test_snaps_and_older_layout():
    snaps, _, _ = run(snapchat.read, SNAPS)
    assert [r["textChunks"] for r in snaps] == [["[image]"], ["[video]"]]
    recs, rejects, warnings = run(snapchat.read, OLD)
    assert (rejects, warnings) == ([], [])
    assert [
        (r["metadata"]["speaker"], r["metadata"]["listeners"], r["thread"], r["textChunks"])
        for r in recs
    ] == [
        ("ann.lee", [], "ann.lee", ["it's Ann & Bob"]),
        ("bob.ray", [], "bob.ray", ["[media]"]),
        (None, ["ann.lee"], "ann.lee", ["ja, gerne 😊"]),
    ]


def test_no_other_file_is_read_as_snapchat():
    assert files_taken({"snapchat"}, {"snapchat"}) == {}


@settings(max_examples=30, deadline=None)
@given(
    st.dictionaries(
        NAME,
        st.lists(st.tuples(st.booleans(), TEXT), min_size=1, max_size=5),
        min_size=1,
        max_size=4,
    )
)
def test_any_history_reads_back(tmp_path_factory, chats):
    doc = {
        friend: [
            {"From": "me_acct" if mine else friend, "Media Type": "TEXT",
             "Created": f"2024-01-01 00:{k // 60:02d}:{k % 60:02d} UTC", "Content": text,
             "Conversation Title": None, "IsSender": mine, "IsSaved": False, "Media IDs": ""}
            for k, (mine, text) in enumerate(rows)
        ]
        for friend, rows in chats.items()
    }  # fmt: skip
    path = tmp_path_factory.mktemp("snap") / "chat_history.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    recs, rejects, warnings = run(snapchat.read, path)
    assert not rejects and not warnings
    assert [(r["thread"], r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        (friend, "me_acct" if mine else friend, [text])
        for friend, rows in chats.items()
        for mine, text in rows
    ]
    assert_one_text_an_id(recs)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300), st.integers(0, 2000))
def test_hostile_input_never_crashes(tmp_path_factory, noise, cut):
    from convo.core.errors import ConvoError

    raw = NEW.read_bytes()
    path = tmp_path_factory.mktemp("hostile") / "chat_history.json"
    path.write_bytes(raw[: max(len(raw) - cut, 80)] + noise)
    try:
        recs, _, _ = run(snapchat.read, path)
    except ConvoError:
        return
    assert_one_text_an_id(recs)


@settings(max_examples=60, deadline=None)
@given(st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1)))
def test_the_utc_suffix_fast_path_reads_as_dateutil_does(when):
    text = when.strftime("%Y-%m-%d %H:%M:%S") + " UTC"
    assert iso_ts(utc_named(text)) == iso_ts(text)
