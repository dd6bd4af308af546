"""The files of a Slack export that hold no messages (``convo.importers.apps.slack_files``):
``integration_logs.json`` (in every official export), ``canvases.json`` and a channel's
``canvas_in_the_conversation.json`` beside its day files (exports since canvases). The
fixture is written here in those shapes."""

from __future__ import annotations

from chat_exports_helpers import ingest
from formats_helpers import FIXTURES

from convo.core.io import Source
from convo.importers.registry import registry

EXPORT = FIXTURES / "slack_export_files"


def test_the_export_folder_reads_its_messages_and_says_a_canvas_is_not_read():
    recs, rejects, warnings = ingest(EXPORT)
    assert not rejects
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        ("pia", ["canvas is up"]),
        ("Ole Brun", ["thanks @pia"]),
    ]
    assert any("1 channel canvas (canvas_in_the_conversation.json) not read" in w for w in warnings)


def test_each_file_that_holds_no_messages_says_what_it_is():
    """They were "format not recognised" (a rejected file: exit 1)."""
    for rel, what in (
        ("integration_logs.json", "integration log"),
        ("canvases.json", "list of canvases"),
        ("general/canvas_in_the_conversation.json", "channel canvas"),
    ):
        assert registry.detect(Source(EXPORT / rel)).name == "slack-file"
        recs, rejects, warnings = ingest(EXPORT / rel)
        assert not recs and not rejects
        assert len(warnings) == 1 and f"a Slack export's {what}, no messages" in warnings[0]
