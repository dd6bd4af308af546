"""Slack messages whose content is Block Kit ``blocks`` with an empty ``text``
(``convo.importers.apps.slack_blocks``): a monitoring bot's header, section with fields
and context, a workflow's rich text (channel, emoji, ordered list, quote, code), and an
e-mail integration's attachment holding only blocks, in an export's channel-day file.
A message with ``text`` keeps it (its blocks repeat it). The fixture is written here in
the shapes users of Slack's API report (see the module's docstring)."""

from __future__ import annotations

from chat_exports_helpers import ingest
from formats_helpers import FIXTURES

from conftest import ROOT, assert_golden

PATH = FIXTURES / "slack_blocks" / "alerts" / "2024-03-06.json"


def test_golden(monkeypatch):
    monkeypatch.chdir(ROOT)  # the source ids name the fixture from the repository's root
    recs, rejects, warnings = ingest(PATH.relative_to(ROOT))
    assert not rejects and not warnings
    assert {r["format"] for r in recs} == {"slack"}
    assert_golden("formats/slack/blocks-day.jsonl", recs)


def test_blocks_become_the_text():
    recs, _, _ = ingest(PATH)
    texts = [r["textChunks"] for r in recs]
    assert texts[0] == ["Deploy finished, see build 42 (https://ci.example.org/42)"]
    assert texts[1] == [
        "Disk almost full\n*db-1* is at 91% & rising, @U01ANN\n*Host:*\ndb-1\n"
        "Since: 10:01 <UTC>\nrunbook: Disk (https://wiki.example.org/disk)"
    ]
    assert recs[1]["metadata"]["listeners"] == ["U01ANN"]
    assert texts[2] == [
        "Steps for #C01OPS :wrench:\n1. free space\n2. restart <db>\n"
        "> never delete WAL files\n```\ndf -h /var\n```"
    ]
    assert texts[3] == ["*Invoice 1001* from billing@example.org"]


def test_a_file_shares_username_names_its_user(tmp_path):
    """An older export's ``file_share`` carries the person's ``username`` beside the
    ``user`` id (a 2018 export in zulip's Slack import tests): read alone, that share was
    spoken by ``k._``, the same person's next message by ``U6006P1CN``, and the share's
    ``<@U6006P1CN> uploaded a file`` made its own speaker a listener."""
    import json

    day = [
        {"type": "message", "subtype": "file_share", "user": "U6006P1CN", "username": "kay",
         "text": "<@U6006P1CN> uploaded a file: <https://x.slack.com/files/U6006P1CN/F1/a.md|a.md>",
         "file": {"id": "F1", "name": "a.md", "title": "a.md"}, "ts": "1516457078.000065"},
        {"type": "message", "user": "U6006P1CN", "text": "see the snippet", "ts": "1516457212.000035"},
        {"type": "message", "subtype": "bot_message", "bot_id": "B1", "username": "deploys",
         "text": "shipped", "ts": "1516457300.000001"},
    ]  # fmt: skip
    path = tmp_path / "2018-01-20.json"
    path.write_text(json.dumps(day), encoding="utf-8")
    recs, _, _ = ingest(path)
    assert [r["metadata"] for r in recs] == [
        {"speaker": "kay", "listeners": []},
        {"speaker": "kay", "listeners": []},
        {"speaker": "deploys", "listeners": []},
    ]
