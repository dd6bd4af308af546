"""Mattermost bulk export (``convo.importers.apps.mattermost``): the post fields of
mattermost/mattermost's ``server/channels/app/imports/import_types.go`` (``PostImportData``,
``ReplyImportData``, ``DirectPostImportData``: ``type``, ``props``, ``is_pinned``,
``replies``, ``attachments``), the integrations' posts whose words are only in
``props.attachments``, and a post left empty by an export without its files.
"""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.apps import mattermost
from convo.importers.registry import registry

EXPORT = FIXTURES / "mattermost" / "integrations.jsonl"
ROOT = FIXTURES.parents[2]


def test_integration_cards_pins_and_replies_of_an_empty_post():
    assert registry.detect(Source(EXPORT)).name == "mattermost"
    recs, rejects, warnings = run(mattermost.read, EXPORT)
    assert not rejects
    got = [(r["metadata"]["speaker"], r["textChunks"], r.get("replyTo")) for r in recs]
    assert got == [
        ("Ann Lee", ["@bob tomatoes?"], None),
        ("Bobby", ["yes"], "mattermost:garden:seeds:1714557600000:ann"),
        ("Bobby", ["nice photo"], None),
        ("Bobby", ["CI\nBuild 12\npassed in 3 min\nBranch: main"], None),
        ("Bobby", ["see you", "[attachment] data/ann/photo.jpg"], None),
    ]
    assert recs[0]["extra"]["pinned"] is True
    assert recs[3]["extra"]["type"] == "slack_attachment"
    assert recs[3]["extra"]["cards"][0]["title"] == "Build 12"
    assert warnings == ["integrations.jsonl:7: empty post skipped (1 replies to it kept)"]


def test_a_user_defined_after_the_posts_naming_them_is_said(tmp_path):
    """Mattermost writes its users before the posts; a file that names a user only after
    their posts keeps the username on those posts and says so (the name is not dropped
    unsaid)."""
    lines = (ROOT / "sample_data" / "chat" / "mattermost.jsonl").read_text().splitlines()
    bob = next(i for i, x in enumerate(lines) if '"username":"bob"' in x)
    moved = [x for i, x in enumerate(lines) if i != bob] + [lines[bob]]
    path = tmp_path / "export.jsonl"
    path.write_text("\n".join(moved) + "\n")
    recs, _, warnings = run(mattermost.read, path)
    assert "bob" in {r["metadata"]["speaker"] for r in recs}
    assert warnings == [
        "export.jsonl: 1 user defined after posts naming it: those posts keep the username "
        "(Mattermost writes its users first)"
    ]
