"""Messages' own database, ``chat.db`` (``convo.importers.apps.imessage_db``).

The fixture is built by ``tests/importers/imessage_chat_db.py`` with macOS 14's column
names (ReagentX/imessage-exporter ``imessage-database/src/tables``): a chat of two and a
group, a text only in ``attributedBody``, a tapback, an attachment, a threaded reply that
was edited, group events, an effect, an unsent message, an SMS in no chat with its date
in seconds.
"""

from __future__ import annotations

import sqlite3

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.apps import imessage_db
from convo.importers.registry import registry

DB = FIXTURES / "imessage" / "chat.db"
GUID = "imessage:A0000000-0000-4000-8000-0000000000"


def test_detected():
    assert imessage_db.sniff(Source(DB)) == 90
    assert registry.detect(Source(DB)).name == "imessage-db"


def test_messages_tapbacks_replies_and_events():
    recs, rejects, warnings = run(imessage_db.read, DB)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"], r["tags"], r["thread"]) for r in recs]
    assert got == [
        ("Me", ["Did the seeds come?"], [], "+15558675309"),
        ("+15558675309", ["Yes! Tomatoes and beans"], [], "+15558675309"),
        ("Me", ["[tapback] Loved"], ["reaction"], "+15558675309"),
        ("+15558675309", ["[attachment] IMG_0042.HEIC"], [], "+15558675309"),
        ("Me", ["beans first"], [], "+15558675309"),
        ("Me", ["[named] Garden club"], ["system"], "Garden club"),
        ("Me", ["[added] ann@icloud.com"], ["system"], "Garden club"),
        ("Me", ["Welcome Ann 🌱"], [], "Garden club"),
        ("ann@icloud.com", ["thanks!"], [], "Garden club"),
        ("ann@icloud.com", ["[unsent]"], ["deleted"], "Garden club"),
        ("+15550001111", ["Your code is 123456"], [], "orphaned"),
    ]
    assert {r["format"] for r in recs} == {"imessage"}
    assert recs[0]["id"] == GUID + "01" and recs[0]["timestamp"] == "2024-07-06T23:06:40Z"
    assert recs[0]["metadata"]["listeners"] == ["+15558675309"]
    assert recs[1]["metadata"]["listeners"] == ["Me"]
    assert recs[2]["replyTo"] == GUID + "02" and recs[4]["replyTo"] == GUID + "02"
    assert recs[3]["extra"]["attachments"][0]["type"] == "image/heic"
    assert recs[4]["extra"]["edited"] == "2024-07-06T23:08:15Z"
    assert recs[7]["extra"]["effect"] == "com.apple.messages.effect.CKConfettiEffect"
    assert recs[8]["metadata"]["listeners"] == []  # a group of three
    assert recs[10]["timestamp"] == "2024-07-06T23:10:00Z"  # seconds: an older database


def test_body_text_lengths():
    short = b"\x84\x01+\x06Test 3\x86\x84"
    long = b"\x84\x01+\x81\x9d\x00" + b"x" * 157 + b"\x86"
    assert imessage_db.body_text(short) == "Test 3"
    assert imessage_db.body_text(long) == "x" * 157
    assert imessage_db.body_text(b"no string") == "" and imessage_db.body_text(None) == ""


def test_an_older_database_without_the_later_columns(tmp_path):
    path = tmp_path / "sms.db"
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE handle (ROWID INTEGER PRIMARY KEY, id TEXT);"
        "CREATE TABLE chat (ROWID INTEGER PRIMARY KEY, chat_identifier TEXT);"
        "CREATE TABLE message (ROWID INTEGER PRIMARY KEY, guid TEXT, text TEXT,"
        " handle_id INTEGER, date INTEGER, is_from_me INTEGER);"
        "CREATE TABLE chat_message_join (chat_id INTEGER, message_id INTEGER);"
        "INSERT INTO handle VALUES (1, '+15558675309');"
        "INSERT INTO chat VALUES (1, '+15558675309');"
        "INSERT INTO message VALUES (1, 'G1', 'hi', 1, 400000000, 0);"
        "INSERT INTO chat_message_join VALUES (1, 1);"
    )
    con.commit()
    con.close()
    assert registry.detect(Source(path)).name == "imessage-db"
    recs, rejects, warnings = run(imessage_db.read, path)
    assert not rejects and not warnings
    assert [(r["metadata"]["speaker"], r["textChunks"], r["timestamp"]) for r in recs] == [
        ("+15558675309", ["hi"], "2013-09-04T15:06:40Z")
    ]
