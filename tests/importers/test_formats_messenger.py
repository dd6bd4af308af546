"""Messenger thread files (``convo.importers.apps.messenger``): the E2EE download.

Since the switch to end-to-end encryption, Messenger's chats come in a separate download
(messenger.com's "secure storage" export): one ``<Name>_<n>.json`` a thread, media in a
shared ``media/`` folder, and the thread schema spelled in camelCase: participants as
plain names, ``threadName``, messages with ``senderName``, ``text``, ``timestamp`` in
milliseconds, ``type`` (``text``/``media``/``link``/``placeholder``), ``media: [{"uri"}]``
(the literal ``Failed to download media`` when the file is missing), ``reactions`` and
``isUnsent``, as the importers of that download read it (timelinize's E2EE Messenger
reader). The fixture ``messenger/Hiking_Crew_12.json`` is a small hand-written group
thread of that shape.
"""

from __future__ import annotations

import json

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.apps import messenger
from convo.importers.registry import registry

E2EE = FIXTURES / "messenger" / "Hiking_Crew_12.json"


def test_e2ee_download_is_detected_and_every_message_kept():
    assert registry.detect(Source(E2EE)).name == "messenger"
    recs, rejects, warnings = run(messenger.read_messenger, E2EE)
    assert not rejects and not warnings
    assert len(recs) == 6
    assert {r["thread"] for r in recs} == {"Hiking_Crew_12"}
    first, yes, photo, missing, link, unsent = recs
    assert first["metadata"] == {"speaker": "Omar Haddad", "listeners": []}  # a group
    assert first["timestamp"] == "2025-05-01T04:00:00Z"
    assert yes["textChunks"] == ["Yes! Forecast says dry ☀️"]
    assert yes["extra"]["reactions"] == [
        {"reaction": "👍", "actor": "Mei Chen"},
        {"reaction": "❤", "actor": "Omar Haddad"},
    ]
    assert photo["textChunks"] == ["[media] ./media/5f0c2b9e-1d3a-4c8e-9b7f-2a6d4e8c0f13.jpeg"]
    assert missing["textChunks"] == ["[media] Failed to download media"]
    assert link["textChunks"] == ["https://maps.example.com/trail/42"]
    assert unsent["textChunks"] == ["[unsent]"] and unsent["extra"]["unsent"] is True


def test_e2ee_one_to_one_names_the_listener(tmp_path):
    path = tmp_path / "Omar_Haddad_3.json"
    path.write_text(
        json.dumps(
            {
                "participants": ["Lena Novak", "Omar Haddad"],
                "threadName": "Omar_Haddad_3",
                "messages": [
                    {"senderName": "Lena Novak", "text": "hi", "timestamp": 1746072000000,
                     "type": "text", "isUnsent": False, "media": [], "reactions": []},
                ],
            }
        )
    )  # fmt: skip
    assert registry.detect(Source(path)).name == "messenger"
    recs, _, _ = run(messenger.read_messenger, path)
    assert recs[0]["metadata"] == {"speaker": "Lena Novak", "listeners": ["Omar Haddad"]}


def test_old_download_timestamp_in_seconds(tmp_path):
    """2017-2018 downloads wrote ``timestamp`` in seconds, before ``timestamp_ms``."""
    path = tmp_path / "message.json"
    path.write_text(
        json.dumps(
            {
                "participants": ["Ann"],
                "title": "Ann",
                "messages": [
                    {"sender_name": "Ann", "timestamp": 1527000000, "content": "old"},
                    {"sender_name": "Me", "timestamp": 1526999000, "content": "older"},
                ],
            }
        )
    )
    recs, _, _ = run(messenger.read_messenger, path)
    assert [(r["textChunks"], r["timestamp"]) for r in recs] == [
        (["older"], "2018-05-22T14:23:20Z"),
        (["old"], "2018-05-22T14:40:00Z"),
    ]


# The older thread files' message types (Generic, Share, Call, Subscribe, Unsubscribe) as
# a public write-up of the download's schema documents them: membership events and unsent
# messages come without ``content``.

GROUP = FIXTURES / "messenger" / "inbox" / "hikingcrew_8f2k" / "message_1.json"


def test_membership_events_and_unsent_messages_without_content_are_kept():
    recs, rejects, warnings = run(messenger.read_messenger, GROUP)
    assert not rejects and not warnings  # none skipped as empty
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["tags"]) for r in recs]
    assert got == [
        ("María López", "Trail on Sunday? 🌲", []),
        ("María López", "[subscribe] Tom Reed, Ines Berg", ["system"]),
        ("Ines Berg", "[call] 3872 s", []),
        ("Tom Reed", "Last updated 8 september", []),
        ("María López", "[unsent]", []),
        ("Tom Reed", "[unsubscribe] Tom Reed", ["system"]),
    ]
    assert recs[1]["extra"]["users"] == ["Tom Reed", "Ines Berg"]
    assert recs[4]["extra"]["unsent"] is True
    assert recs[4]["extra"]["reactions"] == [{"reaction": "😍", "actor": "Ines Berg"}]
