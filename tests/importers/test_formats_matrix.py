"""Matrix rooms exported by Element as JSON (``convo.importers.apps.matrix``).

The fixture follows matrix-org/matrix-react-sdk ``src/utils/exportUtils/JSONExport.ts``
(``room_name``, ``room_creator``, ``topic``, ``export_date``, ``exported_by``,
``messages`` = the events' JSON) and the event shapes of the Matrix client-server spec
(spec.matrix.org: ``m.room.message`` msgtypes text / emote / image, reply fallbacks with
``m.in_reply_to``, ``m.replace`` edits with ``m.new_content``, ``m.annotation``
reactions, ``m.mentions``, ``m.room.member`` with ``displayname``, ``m.room.encrypted``,
redacted events with empty content).
"""

from __future__ import annotations

from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import matrix
from convo.importers.registry import registry

PATH = FIXTURES / "matrix" / "element-export.json"


RELATIONS = FIXTURES / "matrix" / "element-export-relations.json"


def test_golden_and_rejects():
    recs, rejects, warnings = run(matrix.read, PATH)
    assert_golden("formats/matrix/element-export.jsonl", recs)
    assert [r.reason for r in rejects] == [
        "an encrypted event (export with the keys loaded to read it)",
    ]
    assert all(r.where.startswith("element-export.json:") for r in rejects)
    assert warnings == [
        "element-export.json: 1 deleted (redacted) event: kept without text, tagged deleted"
    ]


def test_mapping():
    recs, _, _ = run(matrix.read, PATH)
    join, _, ask, answer, reaction, emote, image, edit, deleted = recs
    assert deleted["textChunks"] == [""] and deleted["tags"] == ["deleted"]
    assert answer["extra"]["html"] == "No room! No room!"  # <mx-reply> fallback dropped
    assert join["tags"] == ["system"] and join["metadata"]["speaker"] == "Alice"
    assert ask["id"] == "matrix:$msg1" and ask["thread"] == "!tea:wonder.land"
    assert ask["subject"] == "Tea Party" and ask["timestamp"] == "2022-03-01T10:00:00Z"
    assert answer["textChunks"] == ["No room! No room!"]  # the quoted fallback is dropped
    assert answer["replyTo"] == "matrix:$msg1"
    assert answer["metadata"] == {"speaker": "The Hatter", "listeners": ["Alice"]}
    assert answer["extra"]["sender"] == "@hatter:hat.example"
    assert reaction["tags"] == ["reaction"] and reaction["replyTo"] == "matrix:$msg2"
    assert emote["tags"] == ["action"] and emote["metadata"]["listeners"] == ["The Hatter"]
    assert image["textChunks"] == ["[image] watch.png (mxc://hat.example/AbCd)"]
    assert edit["tags"] == ["edit"] and edit["extra"]["replaces"] == "matrix:$msg1"
    assert edit["textChunks"] == ["Is there any tea, please?"]


def test_detect_among_builtins():
    assert matrix.sniff(Source(PATH)) >= 90
    assert detect_name(fresh_registry(matrix), PATH) == "matrix"


def test_global_registry_detects():
    assert registry.detect(Source(PATH)).name == "matrix"


def test_golden_relations_redactions_threads_and_undecryptable():
    """Element's export of a room with a thread (``is_falling_back`` replies), a message
    deleted by a moderator (``unsigned.redacted_because``, and the ``m.room.redaction``
    event itself), a reaction taken back, an old-style edit (no ``m.new_content``) and a
    message Element could not decrypt (its ``m.bad.encrypted`` placeholder)."""
    recs, rejects, warnings = run(matrix.read, RELATIONS)
    assert_golden("formats/matrix/element-export-relations.jsonl", recs)
    by_id = {r["id"]: r for r in recs}
    # A thread's falling-back reply answers the root; a real reply in a thread its target.
    assert by_id["matrix:$t1"]["replyTo"] == by_id["matrix:$t2"]["replyTo"] == "matrix:$root"
    assert by_id["matrix:$t3"]["replyTo"] == "matrix:$t1"
    assert by_id["matrix:$t3"]["textChunks"] == ["Yours!"]
    # The deleted message: kept, no text invented, who deleted it and why.
    gone = by_id["matrix:$gone"]
    assert gone["textChunks"] == [""] and gone["tags"] == ["deleted"]
    assert gone["metadata"]["speaker"] == "@cat:cheshire.example"
    assert gone["extra"] == {
        "redacted": True, "redacted_by": "@queen:hearts.example",
        "redacted_at": "2022-03-04T10:01:00Z", "reason": "Treason",
    }  # fmt: skip
    assert by_id["matrix:$r1"]["replyTo"] == "matrix:$gone"  # the reply still resolves
    edit = by_id["matrix:$e1"]
    assert edit["textChunks"] == ["That was unkind, Your Majesty."] and edit["tags"] == ["edit"]
    assert edit["extra"]["replaces"] == "matrix:$r1"
    assert "matrix:$rx" not in by_id and "matrix:$red1" not in by_id
    assert [(r.where, r.reason) for r in rejects] == [
        ("element-export-relations.json:53",
         "an encrypted event (export with the keys loaded to read it)"),
    ]  # fmt: skip
    assert warnings == [
        "element-export-relations.json: 1 deleted (redacted) event: kept without text, "
        "tagged deleted",
        "element-export-relations.json: not imported as messages: 1 redaction event (the "
        "deletions themselves), 1 reaction taken back (redacted)",
    ]


def test_a_redacted_state_event_keeps_what_changed(tmp_path):
    """Redaction keeps a state event's ``membership``: the join still happened."""
    import json

    ev = {"type": "m.room.member", "sender": "@a:x.org", "state_key": "@a:x.org",
          "content": {"membership": "join"}, "origin_server_ts": 1646128700000,
          "event_id": "$j", "room_id": "!r:x.org",
          "unsigned": {"redacted_because": {"type": "m.room.redaction", "sender": "@m:x.org"}}}  # fmt: skip
    p = tmp_path / "room.json"
    p.write_text(json.dumps({"room_name": "R", "messages": [ev]}))
    (rec,), rejects, _ = run(matrix.read, p)
    assert rec["tags"] == ["system"] and rec["textChunks"] == ["[m.room.member] @a:x.org join"]
    assert not rejects


def test_polls_read_as_the_text_they_carry():
    """A poll (Element's unstable ``org.matrix.msc3381.poll.start`` and the spec's
    ``m.poll.start``) read ``[org.matrix.msc3381.poll.start]``, its question and answers
    lost: now the text the event carries for clients without polls (MSC1767's
    ``org.matrix.msc1767.text``, ``m.text``'s plain representation), tagged ``poll``."""
    recs, rejects, warnings = run(matrix.read, FIXTURES / "matrix" / "element-export-polls.json")
    assert not rejects and not warnings
    assert [(r["textChunks"], r["tags"]) for r in recs[1:]] == [
        (["Watering rota: which day?\n1. Tuesday\n2. Saturday"], ["poll"]),
        (["Compost delivery?\n1. Yes\n2. No"], ["poll"]),
        (["Ended poll"], ["poll"]),
    ]
    assert recs[1]["metadata"]["speaker"] == "Ines"


# Element's plain-text export (element-hq/element-web src/utils/exportUtils/
# PlainTextExport.ts: ``<formatFullDate> - <textForEvent>``; src/DateUtils.ts: the
# date in element-web's own words before 2023, ``Intl.DateTimeFormat`` since).

TXT = FIXTURES / "matrix" / "matrix - Seed Swap - Chat Export - 2024-03-07T13-10-00.000Z.txt"


def test_element_plain_text_export():
    from convo.importers.apps import matrix_txt

    assert registry.detect(Source(TXT)).name == "matrix-txt"
    recs, rejects, warnings = run(matrix_txt.read, TXT)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["tags"]) for r in recs]
    assert got == [
        (None, "Aya created and configured the room.", ["system"]),
        (None, "Ben joined the room", ["system"]),
        ("Aya", "the seed swap is on Saturday\nbring labels", []),
        ("Ben", "I will", []),
        ("Ben", "waves", ["action"]),
        (None, "Aya changed the topic to: seeds: swap and share.", ["system"]),
        ("Ben", "Ben sent an image.", []),
        ("Aya", "see you there", []),
    ]
    assert {r["format"] for r in recs} == {"matrix"}
    assert {r["thread"] for r in recs} == {"Seed Swap"}
    assert recs[3]["extra"]["quote"] == {
        "author": "@aya:example.org",
        "text": "the seed swap is on Saturday",
    }
    assert recs[3]["metadata"]["listeners"] == ["Aya"]
    assert recs[6]["extra"]["media"] == "Media omitted"
    assert recs[2]["timestamp"] == "2024-03-07T10:01:12Z"
    assert recs[7]["timestamp"] == "2024-03-07T13:06:00Z"


def test_element_plain_text_dates_of_today_and_zone():
    from convo.core.timestamps import get_zone
    from convo.importers.apps import matrix_txt
    from convo.importers.context import ImportOptions

    path = FIXTURES / "matrix" / "export.txt"
    assert registry.detect(Source(path)).name == "matrix-txt"
    recs, rejects, _ = run(matrix_txt.read, path, ImportOptions(tz=get_zone("Europe/London")))
    assert not rejects
    assert [r["timestamp"] for r in recs] == [
        "2024-03-07T13:05:00Z",
        "2024-03-07T13:06:00Z",
        "2024-03-07T16:58:32Z",
    ]
    assert recs[1]["textChunks"] == ["Aya: hello"] and recs[1]["metadata"]["speaker"] == "Ben"
    assert recs[2]["tags"] == ["system"]
