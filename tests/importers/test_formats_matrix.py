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


def test_golden_and_rejects():
    recs, rejects, warnings = run(matrix.read, PATH)
    assert_golden("formats/matrix/element-export.jsonl", recs)
    assert [r.reason for r in rejects] == [
        "an encrypted event (export with the keys loaded to read it)",
        "a redacted message (no content left)",
    ]
    assert all(r.where.startswith("element-export.json:") for r in rejects) and not warnings


def test_mapping():
    recs, _, _ = run(matrix.read, PATH)
    join, _, ask, answer, reaction, emote, image, edit = recs
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
