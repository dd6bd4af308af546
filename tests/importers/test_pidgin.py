"""Pidgin's plain-text logs (``convo.importers.apps.pidgin``), as libpurple's
``txt_logger_write`` writes them: the ``Conversation with ... at ... on ... (...)``
header (``%c`` dates in two locales' shapes), ``(%X) name: text``, ``***name`` actions,
``<AUTO-REPLY>``, events, a message's later lines, a day's change (the clock going
back) and ``%x %X`` times of a log a day old."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.core.timestamps import get_zone
from convo.importers.apps import pidgin
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

IM = next((FIXTURES / "pidgin" / "jabber").rglob("*.txt"))
IRC = FIXTURES / "pidgin" / "irc" / "2024-03-04.100000+0000UTC.txt"


def test_detected():
    assert registry.detect(Source(IM)).name == "pidgin"
    assert registry.detect(Source(IRC)).name == "pidgin"


def test_an_im_log_across_midnight():
    recs, rejects, warnings = run(pidgin.read, IM)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["tags"], r["timestamp"]) for r in recs]
    assert got == [
        ("bob@example.org", "are the seeds in?", [], "2024-03-04T23:58:05Z"),
        ("alice@example.org", "yes, tomatoes\nand beans", [], "2024-03-04T23:58:40Z"),
        ("bob@example.org", "dances", ["action"], "2024-03-04T23:59:02Z"),
        ("bob@example.org", "I am away", [], "2024-03-05T00:00:10Z"),
        (None, "bob@example.org has signed off.", ["system"], "2024-03-05T00:01:00Z"),
        ("alice@example.org", "morning", [], "2024-03-06T09:00:00Z"),
    ]
    assert recs[0]["thread"] == "bob@example.org"
    assert recs[0]["metadata"]["listeners"] == ["alice@example.org"]
    assert recs[3]["extra"]["auto_reply"] is True
    assert recs[0]["extra"]["protocol"] == "jabber"


def test_an_irc_room_in_tz():
    recs, rejects, _ = run(pidgin.read, IRC, ImportOptions(tz=get_zone("Europe/Berlin")))
    assert not rejects
    got = [(r["metadata"]["speaker"], r["tags"]) for r in recs]
    assert got == [("alice", []), (None, ["system"]), (None, ["system"]), ("bob", [])]
    assert recs[0]["thread"] == "#tea" and recs[0]["timestamp"] == "2024-03-04T09:00:05Z"


def test_text_before_the_header_is_rejected(tmp_path):
    path = tmp_path / "log.txt"
    path.write_text("notes\n" + IRC.read_text(encoding="utf-8"), encoding="utf-8")
    recs, rejects, _ = run(pidgin.read, path)
    assert pidgin.sniff(Source(path)) == 0  # not detected: named, it is read
    assert [(r.where, r.reason) for r in rejects] == [
        ("log.txt:1", "text before the first Pidgin log line")
    ]
    assert len(recs) == 4
