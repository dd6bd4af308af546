"""What the mutated-export property (test_export_mutations_property.py) found, pinned:
an id a source repeats on another message (every format, in the pipeline), a
DiscordChatExporter preamble written twice, a Letta memory block no agent names, a
sigtop message whose fields were joined to the one before, a sigtop body line beginning
``From:`` before the next header."""

from __future__ import annotations

import json

from formats_helpers import FIXTURES, run

from conftest import ROOT
from convo.importers.agents import letta
from convo.importers.apps import discord_txt, signal
from convo.importers.context import ImportOptions
from convo.pipeline.ingest import Ingest


def _ingest(fmt: str, path) -> tuple[list, list[str]]:
    warnings: list[str] = []
    run_ = Ingest(ImportOptions(), format_name=fmt, on_warning=warnings.append)
    return list(run_.messages([path])), warnings


def test_an_id_repeated_on_another_message_gets_its_content_hash(tmp_path):
    """An edited message exported again beside the first (Discord's JSON: one id, two
    texts): the first keeps the id, the other its content hash, with one warning; the
    same message again keeps its id (the store counts it as already there)."""
    doc = json.loads((ROOT / "sample_data/chat/discord.json").read_text())
    first = doc["messages"][0]
    edited = {**first, "content": first["content"] + " (edited)"}
    doc["messages"] += [edited, dict(first)]
    path = tmp_path / "discord.json"
    path.write_text(json.dumps(doc))
    msgs, warnings = _ingest("discord", path)
    same = [m for m in msgs if m.text_chunks[0].startswith(first["content"])]
    assert [m.id.startswith("h:") for m in same] == [False, True, False]
    assert same[0].id == same[2].id
    assert any("1 message repeats the id of another message" in w for w in warnings)


def test_a_preamble_written_twice_loses_nothing_unsaid(tmp_path):
    src = (FIXTURES / "discord_txt" / "dm-de.txt").read_text()
    rule = src.splitlines()[0]
    path = tmp_path / "dm-de.txt"
    path.write_text(f"{rule}\n{rule}\n{src}")
    recs, rejects, _ = run(discord_txt.read, path)
    assert [r["textChunks"][0][:6] for r in recs][:1] == ["Hallo!"]
    assert rejects  # the repeated preamble's lines, each reported


def test_a_letta_block_no_agent_names_is_warned(tmp_path):
    doc = json.loads((FIXTURES / "letta" / "agent-file-v2.af").read_text())
    for block in doc["blocks"]:
        block.pop("id")
    path = tmp_path / "agent.af"
    path.write_text(json.dumps(doc))
    recs, _, warnings = run(letta.read, path)
    assert not any("memory" in r["tags"] for r in recs)
    assert any("memory block that no agent's block_ids names" in w for w in warnings)


def test_sigtop_lines_outside_an_edit_history_are_kept(tmp_path):
    src = (FIXTURES / "signal" / "sigtop-bob.txt").read_text().splitlines(keepends=True)
    at = next(i for i, x in enumerate(src) if x.startswith("Edited: "))
    start = max(i for i in range(at) if src[i].startswith("From: ") and src[i - 1] == "\n")
    src.insert(start, src[0])  # a Conversation line: the message's fields join the one before
    path = tmp_path / "sigtop-bob.txt"
    path.write_text("".join(src))
    recs, _, _ = run(signal.read, path)
    text = "\n".join(c for r in recs for c in r["textChunks"])
    assert "Lovely!" in text and "See you at ten" in text


def test_a_sigtop_body_line_beginning_from_before_a_header_stays_text(tmp_path):
    """A body paragraph ``From: ...`` right before the next message's ``From:`` line was
    taken for that message's header and its sender lost (a message has one sender)."""
    src = (FIXTURES / "signal" / "sigtop-bob.txt").read_text().splitlines(keepends=True)
    at = next(i for i, x in enumerate(src) if x == "From: You\n")
    src.insert(at, "From: the pier, not the beach\n")
    path = tmp_path / "sigtop-bob.txt"
    path.write_text("".join(src))
    recs, _, _ = run(signal.read, path)
    assert any("From: the pier, not the beach" in c for r in recs for c in r["textChunks"])
    assert "You" in {r["metadata"]["speaker"] for r in recs}


def test_a_sigtop_edit_history_whose_version_line_repeats_keeps_its_newest_text(tmp_path):
    """A ``| Version: N`` line repeated before the history (a damaged file's) ended the
    newest version before its text: the edited message lost its words unsaid."""
    src = (FIXTURES / "signal" / "sigtop-bob.txt").read_text().splitlines(keepends=True)
    at = next(i for i, x in enumerate(src) if x.startswith("| Version: "))
    src.insert(at, src[at])
    path = tmp_path / "sigtop-bob.txt"
    path.write_text("".join(src))
    recs, _, _ = run(signal.read, path)
    assert any("See you at ten" in c for r in recs for c in r["textChunks"])
