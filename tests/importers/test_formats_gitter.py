"""Gitter room messages (``convo.importers.apps.gitter``).

The fixture follows the Gitter REST API messages resource
(developer.gitter.im/docs/messages-resource: ``id``, ``text``, ``html``, ``sent``,
``editedAt``, ``fromUser`` with ``username``/``displayName``, ``readBy``, ``urls``,
``mentions`` with ``screenName``/``userId``, ``issues``, ``meta``, ``v``; thread replies
with ``parentId`` and ``threadMessageCount``), as room archivers dump its pages.
"""

from __future__ import annotations

from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import gitter
from convo.importers.registry import registry

PATH = FIXTURES / "gitter" / "tea-party.json"


def test_golden_and_reject():
    recs, rejects, _ = run(gitter.read, PATH)
    assert_golden("formats/gitter/tea-party.jsonl", recs)
    assert [(r.where, r.reason) for r in rejects] == [
        ("tea-party.json#item-4", "not a Gitter message (no fromUser)")
    ]


def test_mapping():
    recs, _, _ = run(gitter.read, PATH)
    ask, answer, thanks = recs
    assert ask["metadata"] == {"speaker": "Alice Liddell", "listeners": []}
    assert ask["extra"]["username"] == "alice" and ask["thread"] == "tea-party"
    assert answer["metadata"] == {"speaker": "The Hatter", "listeners": ["Alice Liddell"]}
    assert answer["extra"]["edited_at"] == "2020-07-24T10:02:00.000Z"
    assert thanks["replyTo"] == "gitter:5f1a2b3c4d5e6f7a8b9c0d02"
    assert ask["timestamp"] == "2020-07-24T10:00:00Z"


def test_detect_among_builtins():
    assert gitter.sniff(Source(PATH)) >= 90
    assert detect_name(fresh_registry(gitter), PATH) == "gitter"


def test_global_registry_detects():
    assert registry.detect(Source(PATH)).name == "gitter"
