"""Every real chat-app export in the shared corpus imports (or fails with one located line)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import corpus_dir, corpus_files, records
from convo.cli.app import app
from convo.core.errors import ConvoError
from convo.core.io import Source
from convo.importers.registry import registry

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "importers"))
from chat_exports_helpers import MY_FORMATS, ingest, stdin_comparable

# corpus file prefix -> the format that must read it
MINE = {
    "chatgpt-": "chatgpt",
    "discordchatexporter-": "discord",
    "discord-copypaste-": "discord-text",
    "facebook-messenger-": "messenger",
    "mattermost-": "mattermost",
    "msteams-": "teams",
    "slack-": "slack-file",
    "telegram-": "telegram",
    "whatsapp-": "whatsapp",
    "zoom-": "zoomchat",
}

# name -> (messages, some speakers)
EXPECTED = {
    "chatgpt-export-alyssafuward-conversations.json": (10, {"user", "assistant"}),
    "discordchatexporter-example-guild-general.json": (35, {"Adam", "Thomas", "Patrick"}),
    "discord-copypaste-langchain.txt": (19, {"talkingtower", "reporterbob"}),
    "discordchatexporter-example-guild-thread.json": (5, {"Adam", "Thomas"}),
    "discordchatexporter-zulip-general-2.json": (4, {"pieter", "hamlet"}),
    "facebook-messenger-langchain.json": (11, {"User 1", "User 2"}),
    "mattermost-bulk-export-zulip-direct_channel.jsonl": (
        11,
        {"Ron Weasley", "Harry Potter", "Tom Riddle"},
    ),
    "msteams-export-zulip-user-chats.json": (9, {"Pieter K"}),
    "slack-export-slackdump.zip": (16, {"WgO268Xc0KtFylJ"}),
    "slack-zulip-thread_with_broadcast_reply.json": (3, {"U061A5N1G", "U061A1R2R"}),
    "slack-dms-slackdump.json": (0, set()),
    "slack-mpims-slackdump.json": (0, set()),
    "telegram-desktop-langchain-mojibake.json": (3, {"Henry", "Grace 🧤 💍"}),
    "telegram-desktop-langchain-personal_chat.json": (4, {"Jimmeny Marvelton", "Batman & Robin"}),
    "telegram-desktop-tg2md-result.json": (19, {"test"}),
    "whatsapp-ios-langchain.txt": (12, {"Dr. Feather", "Jungle Jane"}),
    "zoom-chat-aekupor.txt": (4, {"Ashlee Kupor", "Dora Demszky"}),
}


def _mine(path: Path) -> str | None:
    return next((fmt for prefix, fmt in MINE.items() if path.name.startswith(prefix)), None)


@pytest.mark.parametrize("path", corpus_files("chat"), ids=lambda p: p.name)
def test_corpus_file(path):
    fmt = _mine(path)
    if fmt is None:
        # Not one of these formats: it must not be claimed by them.
        try:
            detected = registry.detect(Source(path)).name
        except ConvoError:
            return
        assert detected not in MY_FORMATS
        return
    assert registry.detect(Source(path)).name == fmt
    recs, rejects, _ = ingest(path)
    assert not rejects
    assert all(r["textChunks"] and r["timestamp"] for r in recs)
    ids = [r["id"] for r in recs]
    assert len(ids) == len(set(ids))
    if path.name in EXPECTED:
        count, speakers = EXPECTED[path.name]
        assert len(recs) == count
        assert speakers <= {r["metadata"]["speaker"] for r in recs}


@pytest.mark.parametrize("path", corpus_files("chat"), ids=lambda p: p.name)
def test_corpus_file_from_stdin(path, runner):
    if _mine(path) is None:
        return
    result = runner.invoke(app, ["ingest", "-", "-o", "-"], input=path.read_bytes())
    assert result.exit_code == 0, result.output
    expected, _, _ = ingest(path)
    got = stdin_comparable(records(result.stdout))
    assert [r["id"] for r in got] == [r["id"] for r in stdin_comparable(expected)]


def test_corpus_slack_folder_matches_zip():
    folder = corpus_dir() / "chat" / "slack-export-slackdump"
    if not folder.is_dir():
        pytest.skip("corpus not found")
    a, rej_a, _ = ingest(folder)
    b, rej_b, _ = ingest(folder.with_suffix(".zip"))
    assert not rej_a and not rej_b
    assert [r["id"] for r in a] == [r["id"] for r in b] and len(a) == 16
    replies = [r for r in a if r.get("replyTo")]
    assert replies and all(r["replyTo"].startswith("slack:CO69735E8A:") for r in replies)


def test_corpus_discord_details():
    path = corpus_dir() / "chat" / "discordchatexporter-example-guild-thread.json"
    if not path.exists():
        pytest.skip("corpus not found")
    recs, _, _ = ingest(path)
    assert recs[0]["thread"] == "Thomas is Thomas"
    assert recs[0]["extra"]["parent_channel"] == "general"
    assert recs[2]["metadata"]["listeners"] == ["Adam"]
    assert recs[3]["replyTo"] == "discord:1060927520008065176"


def test_corpus_whatsapp_ios():
    path = corpus_dir() / "chat" / "whatsapp-ios-langchain.txt"
    if not path.exists():
        pytest.skip("corpus not found")
    recs, _, _ = ingest(path)
    assert recs[0]["tags"] == ["system"]
    images = [r for r in recs if r.get("extra", {}).get("media") == "image"]
    assert len(images) == 3 and all(r["textChunks"] == ["image omitted"] for r in images)
    assert recs[-1]["timestamp"] == "2023-08-15T21:25:16Z"
