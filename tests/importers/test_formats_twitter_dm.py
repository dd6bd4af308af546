"""X/Twitter archive direct messages (``convo.importers.apps.twitter_dms``).

Fixtures follow the archive layout (``data/direct-messages.js``,
``data/direct-messages-group.js`` and ``data/account.js``, each a
``window.YTD.<name>.part0 = [...]`` assignment) as documented by the archive's README and
read by alkihis/twitter-archive-reader: ``dmConversation`` with ``conversationId`` and
newest-first ``messages`` of ``messageCreate`` (``senderId``, ``recipientId``, ``text``,
``urls`` with ``expanded``, ``mediaUrls``, ``reactions``), ``participantsJoin``
(``initiatingUserId``, ``userIds``) and ``conversationNameUpdate`` events.
"""

from __future__ import annotations

import shutil

import pytest
from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import twitter_dms
from convo.importers.registry import registry

DIR = FIXTURES / "twitter_dm"


@pytest.mark.parametrize("name", ["direct-messages.js", "direct-messages-group.js"])
def test_golden(name):
    recs, _, _ = run(twitter_dms.read, DIR / name)
    assert_golden(f"formats/twitter_dm/{name.removesuffix('.js')}.jsonl", recs)


def test_one_to_one_oldest_first_owner_named():
    recs, rejects, _ = run(twitter_dms.read, DIR / "direct-messages.js")
    assert not rejects
    first, second = recs
    assert first["metadata"] == {"speaker": "2002", "listeners": ["alice_w"]}
    assert second["metadata"] == {"speaker": "alice_w", "listeners": ["2002"]}
    assert second["textChunks"] == ["See you there: https://example.com/tea-party"]
    assert first["textChunks"][1].startswith("[media https://ton.twitter.com/")
    assert second["extra"]["reactions"][0]["reactionKey"] == "funny"
    assert {r["thread"] for r in recs} == {"1001-2002"}
    assert second["id"] == "twitter:1600000000000000002"


def test_group_events_are_system_messages():
    recs, rejects, _ = run(twitter_dms.read, DIR / "direct-messages-group.js")
    assert [(r.where, r.reason) for r in rejects] == [
        ("direct-messages-group.js#conv-1.msg-4", "not a DM event (somethingNew)")
    ]
    join, rename, text = recs
    assert join["tags"] == ["system"] and join["textChunks"] == ["[participantsJoin] 3003, 4004"]
    assert rename["textChunks"] == ["[conversationNameUpdate] Croquet club"]
    assert text["metadata"] == {"speaker": "3003", "listeners": ["alice_w", "4004"]}
    assert text["subject"] == "Croquet club"


def test_without_account_js_ids_speak(tmp_path):
    shutil.copy(DIR / "direct-messages.js", tmp_path / "direct-messages.js")
    recs, _, _ = run(twitter_dms.read, tmp_path / "direct-messages.js")
    assert recs[1]["metadata"]["speaker"] == "1001"


def test_detect_among_builtins():
    reg = fresh_registry(twitter_dms)
    assert detect_name(reg, DIR / "direct-messages.js") == "twitter-dm"
    assert detect_name(reg, DIR / "direct-messages-group.js") == "twitter-dm"
    assert twitter_dms.sniff(Source(DIR / "account.js")) == 0


def test_global_registry_detects():
    assert registry.detect(Source(DIR / "direct-messages.js")).name == "twitter-dm"


def test_the_archives_html_escaping_is_undone(tmp_path):
    """The archive escapes ``&``, ``<`` and ``>`` in DM text as in ``tweets.js``; only
    those three come back (a literal ``&quot;`` the user typed stays)."""
    path = tmp_path / "direct-messages.js"
    path.write_text(
        'window.YTD.direct_messages.part0 = [{"dmConversation": {"conversationId": '
        '"1-2", "messages": [{"messageCreate": {"id": "9", "senderId": "1", '
        '"recipientId": "2", "text": "Tom &amp; Jerry &lt;3 -&gt; &quot;ok&quot;", '
        '"createdAt": "2022-03-01T10:00:00.000Z", "urls": [], "mediaUrls": []}}]}}]'
    )
    (rec,), _, _ = run(twitter_dms.read, path)
    assert rec["textChunks"] == ["Tom & Jerry <3 -> &quot;ok&quot;"]
    assert rec["extra"]["text"] == "Tom &amp; Jerry &lt;3 -&gt; &quot;ok&quot;"


def test_an_event_without_its_time_is_warned_about(tmp_path):
    """A message without ``createdAt`` was dated 1970-01-01 with no word: it is kept,
    warned about at its place."""
    path = tmp_path / "direct-messages.js"
    path.write_text(
        'window.YTD.direct_messages.part0 = [{"dmConversation": {"conversationId": "1-2", '
        '"messages": [{"messageCreate": {"recipientId": "2", "reactions": [], "urls": [], '
        '"text": "no time", "mediaUrls": [], "senderId": "1", "id": "99"}}]}}]',
        encoding="utf-8",
    )
    recs, rejects, warnings = run(twitter_dms.read, path)
    assert not rejects and [r["textChunks"][0] for r in recs] == ["no time"]
    assert warnings == ["direct-messages.js#conv-1.msg-1: no readable createdAt; time left unknown"]
