"""Rocket.Chat messages (``convo.importers.apps.rocketchat``).

The fixtures follow Rocket.Chat's ``IMessage`` (``packages/core-typings``) in three
shapes: a REST ``channels.history`` answer (newest first; ``u``, ``mentions`` with
``here``, ``tmid`` thread replies, a quote attachment with ``message_link``, a file
upload, ``reactions``, ``editedAt``, a system ``au`` and a removed ``rm`` message); a
``mongoexport`` of ``rocketchat_message`` (extended-JSON ``$date`` as ISO and as
``$numberLong``, an edit's ``_hidden`` copy, a torn line) with ``rocketchat_room.json``
beside it; and a "Download my data" room file (``exportRoomMessagesToFile.ts``:
``{msg, username, ts, attachments?, type?}`` lines).
"""

from __future__ import annotations

import shutil

from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import rocketchat
from convo.importers.registry import registry

REST = FIXTURES / "rocketchat" / "rest-history.json"
MONGO = FIXTURES / "rocketchat" / "mongo" / "rocketchat_message.json"
DOWNLOAD = FIXTURES / "rocketchat" / "download" / "outings.json"


def test_rest_golden_reject_and_warning():
    recs, rejects, warnings = run(rocketchat.read, REST)
    assert_golden("formats/rocketchat/rest-history.jsonl", recs)
    assert [(r.where, r.reason) for r in rejects] == [
        ("rest-history.json#msg-6", "not a Rocket.Chat message (no msg and sender)")
    ]
    assert warnings == [
        "rest-history.json: skipped removed messages and older copies of edited ones: 1 "
        "(at rest-history.json#msg-3)"
    ]


def test_rest_mapping_in_time_order():
    recs, _, _ = run(rocketchat.read, REST)
    ask, added, answer, photo = recs
    assert [r["timestamp"][11:16] for r in recs] == ["10:00", "10:01", "10:05", "10:07"]
    assert ask["metadata"] == {"speaker": "Ann Lee", "listeners": ["Bob Kowalski"]}
    assert ask["extra"] == {"username": "ann.lee", "thread_replies": 1}
    assert added["textChunks"] == ["[added cara.m]"] and added["tags"] == ["system"]
    assert answer["replyTo"] == ask["id"] == "rocketchat:Aa9xK2LmQ7pRt4WvZ"
    assert answer["textChunks"][1] == "> Ann Lee:\n> Rock pools on Saturday? @bob.k"
    assert answer["extra"]["reactions"] == [{"emoji": ":+1:", "by": ["ann.lee", "cara.m"]}]
    assert photo["textChunks"] == ["[image] bags.jpg"]


def test_mongo_golden_and_rooms():
    recs, rejects, warnings = run(rocketchat.read, MONGO)
    assert_golden("formats/rocketchat/mongo.jsonl", recs)
    assert [r.where for r in rejects] == ["rocketchat_message.json:5"]
    assert warnings == [
        "rocketchat_message.json: skipped removed messages and older copies of edited ones: 1 "
        "(at rocketchat_message.json#line-2)"
    ]
    assert [r["thread"] for r in recs] == ["outings", "outings", "ann.lee, bob.k"]
    assert recs[1]["timestamp"] == "2024-03-06T10:05:00Z"  # $numberLong milliseconds


def test_mongo_without_the_room_file(tmp_path):
    alone = tmp_path / "rocketchat_message.json"
    shutil.copy(MONGO, alone)
    recs, _, _ = run(rocketchat.read, alone)
    assert recs[0]["thread"] == "Gx7LmQ2pRt4WvZa9K"
    mongo, _, _ = run(rocketchat.read, MONGO)
    assert [r["id"] for r in recs] == [r["id"] for r in mongo]


def test_download_golden():
    recs, rejects, _ = run(rocketchat.read, DOWNLOAD)
    assert_golden("formats/rocketchat/download.jsonl", recs)
    assert rejects == []
    assert {r["thread"] for r in recs} == {"outings"}
    assert recs[1]["textChunks"] == ["Added cara.m to the room by ann.lee"]
    assert recs[1]["tags"] == ["system"]


def test_detect_among_builtins():
    for path in (REST, MONGO, DOWNLOAD):
        assert rocketchat.sniff(Source(path)) >= 80
        assert detect_name(fresh_registry(rocketchat), path) == "rocketchat"


def test_global_registry_detects():
    for path in (REST, MONGO, DOWNLOAD):
        assert registry.detect(Source(path)).name == "rocketchat"


def test_a_message_without_its_time_is_warned_about(tmp_path):
    """A message whose ``ts`` is missing or does not read was dated 1970-01-01 with no
    word: it is kept, warned about at its place."""
    path = tmp_path / "h.json"
    path.write_text(
        '{"messages": [{"_id": "a1", "rid": "r", "msg": "no ts", "u": {"_id": "u", '
        '"username": "ann"}}, {"_id": "a2", "rid": "r", "msg": "ok", '
        '"ts": "2024-03-06T10:00:00.000Z", "u": {"_id": "u", "username": "ann"}}], '
        '"success": true}',
        encoding="utf-8",
    )
    recs, rejects, warnings = run(rocketchat.read, path)
    assert not rejects
    assert sorted(r["textChunks"][0] for r in recs) == ["no ts", "ok"]
    assert len(warnings) == 1 and warnings[0].endswith("no readable ts; time left unknown")


def test_files_descriptions_integration_cards_and_quotes():
    """A file's ``description`` (its sender's words), a bot's card (``title``, ``text``,
    ``fields``: no file), a quote's ``message_link`` (the quoted message), as
    RocketChat's ``IMessage`` attachments carry them."""
    path = FIXTURES / "rocketchat" / "cards" / "rocketchat_message.json"
    recs, rejects, _ = run(rocketchat.read, path)
    assert not rejects
    by_id = {r["id"]: r for r in recs}
    assert by_id["rocketchat:a3"]["textChunks"] == ["[file] seeds.pdf", "the list"]
    assert by_id["rocketchat:a5"]["textChunks"] == ["Build 12", "passed", "Branch: main"]
    assert by_id["rocketchat:a6"]["replyTo"] == "rocketchat:a2"
    assert by_id["rocketchat:a4"]["replyTo"] == "rocketchat:a3"
