"""A Slack huddle in an export (``convo.importers.apps.slack_huddle``): Slackbot's
``huddle_thread`` message with an empty ``text`` and a ``room`` (who started it, who took
part, when), the messages sent during it in its thread, and a running huddle whose
``blocks`` say "A huddle started". The fixture is written here in the shape of zulip's
Slack import fixtures and the API answers huddle trackers read."""

from __future__ import annotations

from chat_exports_helpers import ingest
from formats_helpers import FIXTURES

PATH = FIXTURES / "slack_huddle" / "standup" / "2024-05-06.json"


def test_a_huddle_is_a_record_of_who_started_it_and_who_took_part():
    """It was skipped as empty (counted, its people and length lost), leaving its
    thread's replies pointing at no record."""
    recs, rejects, warnings = ingest(PATH)
    assert not rejects and not warnings
    by_ts = {r["extra"]["ts"]: r for r in recs}
    call = by_ts["1714986300.000300"]
    assert call["metadata"] == {"speaker": "mira", "listeners": ["Jonas Feld"]}
    assert call["textChunks"] == ["[huddle] mira, Jonas Feld (17 min)"]
    assert call["tags"] == ["system"]
    assert call["extra"]["huddle"]["participants"] == ["U07MIRA", "U07JONAS"]
    assert by_ts["1714986400.000400"]["replyTo"] == call["id"]
    running = by_ts["1714990000.000500"]
    assert running["metadata"]["speaker"] == "Jonas Feld"
    assert running["textChunks"] == ["A huddle started", "[huddle] Jonas Feld"]
