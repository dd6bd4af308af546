"""Builds tests/fixtures/formats/imessage/chat.db: a small Messages database with the
columns of macOS 14's ``chat.db`` tables that ``convo.importers.apps.imessage_db`` reads
(as ReagentX/imessage-exporter's ``imessage-database/src/tables`` names them), an
``attributedBody`` typedstream laid out as that repository's
``test_data/streamtyped/AttributedBodyTextOnly2`` is, dates in nanoseconds since 2001 and
one in seconds (an older database's). Run: ``python tests/importers/imessage_chat_db.py
tests/fixtures/formats/imessage/chat.db``."""

import sqlite3
import sys

SCHEMA = """
CREATE TABLE handle (ROWID INTEGER PRIMARY KEY AUTOINCREMENT UNIQUE, id TEXT NOT NULL, country TEXT, service TEXT NOT NULL, uncanonicalized_id TEXT, person_centric_id TEXT, UNIQUE (id, service));
CREATE TABLE chat (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, style INTEGER, state INTEGER, account_id TEXT, properties BLOB, chat_identifier TEXT, service_name TEXT, room_name TEXT, account_login TEXT, is_archived INTEGER DEFAULT 0, last_addressed_handle TEXT, display_name TEXT, group_id TEXT, is_filtered INTEGER DEFAULT 0, successful_query INTEGER);
CREATE TABLE message (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, text TEXT, replace INTEGER DEFAULT 0, service_center TEXT, handle_id INTEGER DEFAULT 0, subject TEXT, country TEXT, attributedBody BLOB, version INTEGER DEFAULT 0, type INTEGER DEFAULT 0, service TEXT, account TEXT, account_guid TEXT, error INTEGER DEFAULT 0, date INTEGER, date_read INTEGER, date_delivered INTEGER, is_delivered INTEGER DEFAULT 0, is_finished INTEGER DEFAULT 0, is_emote INTEGER DEFAULT 0, is_from_me INTEGER DEFAULT 0, is_empty INTEGER DEFAULT 0, is_read INTEGER DEFAULT 0, is_system_message INTEGER DEFAULT 0, cache_has_attachments INTEGER DEFAULT 0, cache_roomnames TEXT, item_type INTEGER DEFAULT 0, other_handle INTEGER DEFAULT 0, group_title TEXT, group_action_type INTEGER DEFAULT 0, associated_message_guid TEXT, associated_message_type INTEGER DEFAULT 0, balloon_bundle_id TEXT, payload_data BLOB, expressive_send_style_id TEXT, message_summary_info BLOB, destination_caller_id TEXT, reply_to_guid TEXT, thread_originator_guid TEXT, thread_originator_part TEXT, date_retracted INTEGER DEFAULT 0, date_edited INTEGER DEFAULT 0, part_count INTEGER);
CREATE TABLE chat_message_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE, message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE, message_date INTEGER DEFAULT 0, PRIMARY KEY (chat_id, message_id));
CREATE TABLE chat_handle_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE, handle_id INTEGER REFERENCES handle (ROWID) ON DELETE CASCADE, UNIQUE(chat_id, handle_id));
CREATE TABLE attachment (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, created_date INTEGER DEFAULT 0, start_date INTEGER DEFAULT 0, filename TEXT, uti TEXT, mime_type TEXT, transfer_state INTEGER DEFAULT 0, is_outgoing INTEGER DEFAULT 0, user_info BLOB, transfer_name TEXT, total_bytes INTEGER DEFAULT 0);
CREATE TABLE message_attachment_join (message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE, attachment_id INTEGER REFERENCES attachment (ROWID) ON DELETE CASCADE, UNIQUE(message_id, attachment_id));
CREATE INDEX message_attachment_join_idx_message_id ON message_attachment_join(message_id);
"""


def typedstream(text: str) -> bytes:
    """An attributedBody as macOS writes one: its NSString after \\x01+ and a length."""
    data = text.encode()
    n = bytes([len(data)]) if len(data) < 0x80 else b"\x81" + len(data).to_bytes(2, "little")
    return (
        b"\x04\x0bstreamtyped\x81\xe8\x03\x84\x01@\x84\x84\x84\x12NSAttributedString\x00"
        b"\x84\x84\x08NSObject\x00\x85\x92\x84\x84\x84\x08NSString\x01\x94\x84\x01+"
        + n
        + data
        + b"\x86\x84\x02iI\x01\x06\x92\x84\x84\x84\x0cNSDictionary\x00\x94\x84\x01i\x01\x92"
        b"\x84\x96\x96\x1d__kIMMessagePartAttributeName\x86\x92\x84\x84\x84\x08NSNumber\x00"
        b"\x84\x84\x07NSValue\x00\x94\x84\x01*\x84\x99\x99\x00\x86\x86\x86"
    )


def ns(seconds_since_2001: int) -> int:
    return seconds_since_2001 * 1_000_000_000


T0 = 742_000_000  # 2024-07-07T23:06:40Z


def build(path: str) -> None:
    con = sqlite3.connect(path)
    con.execute("PRAGMA page_size = 1024")
    con.executescript(SCHEMA)
    con.executemany(
        "INSERT INTO handle (ROWID, id, service) VALUES (?, ?, ?)",
        [
            (1, "+15558675309", "iMessage"),
            (2, "ann@icloud.com", "iMessage"),
            (3, "+15550001111", "SMS"),
        ],
    )
    con.executemany(
        "INSERT INTO chat (ROWID, guid, style, chat_identifier, service_name, display_name) VALUES (?, ?, ?, ?, ?, ?)",
        [
            (1, "iMessage;-;+15558675309", 45, "+15558675309", "iMessage", ""),
            (2, "iMessage;+;chat123", 43, "chat123456", "iMessage", "Garden club"),
        ],
    )
    con.executemany("INSERT INTO chat_handle_join VALUES (?, ?)", [(1, 1), (2, 1), (2, 2)])
    M = [
        # rowid, guid, text, attributedBody, handle, from_me, date, extra columns
        (1, "A0000000-0000-4000-8000-000000000001", "Did the seeds come?", None, 1, 1, ns(T0), {}),
        (
            2,
            "A0000000-0000-4000-8000-000000000002",
            None,
            typedstream("Yes! Tomatoes and beans"),
            1,
            0,
            ns(T0 + 60),
            {"service": "iMessage"},
        ),
        (
            3,
            "A0000000-0000-4000-8000-000000000003",
            "",
            None,
            1,
            1,
            ns(T0 + 70),
            {
                "associated_message_guid": "p:0/A0000000-0000-4000-8000-000000000002",
                "associated_message_type": 2000,
            },
        ),
        (
            4,
            "A0000000-0000-4000-8000-000000000004",
            "\ufffc",
            None,
            1,
            0,
            ns(T0 + 80),
            {"cache_has_attachments": 1},
        ),
        (
            5,
            "A0000000-0000-4000-8000-000000000005",
            "beans first",
            None,
            1,
            1,
            ns(T0 + 90),
            {
                "thread_originator_guid": "A0000000-0000-4000-8000-000000000002",
                "thread_originator_part": "0:0:23",
                "date_edited": ns(T0 + 95),
            },
        ),
        (
            6,
            "A0000000-0000-4000-8000-000000000006",
            None,
            None,
            0,
            1,
            ns(T0 + 100),
            {"item_type": 2, "group_title": "Garden club"},
        ),
        (
            7,
            "A0000000-0000-4000-8000-000000000007",
            None,
            None,
            0,
            1,
            ns(T0 + 110),
            {"item_type": 1, "group_action_type": 0, "other_handle": 2},
        ),
        (
            8,
            "A0000000-0000-4000-8000-000000000008",
            "Welcome Ann 🌱",
            None,
            0,
            1,
            ns(T0 + 120),
            {"expressive_send_style_id": "com.apple.messages.effect.CKConfettiEffect"},
        ),
        (9, "A0000000-0000-4000-8000-000000000009", "thanks!", None, 2, 0, ns(T0 + 130), {}),
        (
            10,
            "A0000000-0000-4000-8000-000000000010",
            None,
            None,
            2,
            0,
            ns(T0 + 140),
            {"date_retracted": ns(T0 + 150), "date_edited": ns(T0 + 150)},
        ),
        (
            11,
            "A0000000-0000-4000-8000-000000000011",
            "Your code is 123456",
            None,
            3,
            0,
            742_000_200,
            {"service": "SMS"},
        ),
    ]
    for rowid, guid, text, body, handle, me, date, more in M:
        cols = {
            "ROWID": rowid,
            "guid": guid,
            "text": text,
            "attributedBody": body,
            "handle_id": handle,
            "is_from_me": me,
            "date": date,
            "service": "iMessage",
            **more,
        }
        con.execute(
            f"INSERT INTO message ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
            list(cols.values()),
        )
    con.executemany(
        "INSERT INTO chat_message_join (chat_id, message_id) VALUES (?, ?)",
        [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 6), (2, 7), (2, 8), (2, 9), (2, 10)],
    )
    con.execute(
        "INSERT INTO attachment (ROWID, guid, filename, mime_type, transfer_name, total_bytes) VALUES (1, 'AT1', '~/Library/Messages/Attachments/ab/11/AT1/IMG_0042.HEIC', 'image/heic', 'IMG_0042.HEIC', 1024)"
    )
    con.execute("INSERT INTO message_attachment_join VALUES (4, 1)")
    con.commit()
    con.execute("VACUUM")
    con.close()


if __name__ == "__main__":
    build(sys.argv[1])
