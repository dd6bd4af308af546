"""Discord's data package, Google Hangouts' Takeout file, LinkedIn's messages.csv and
Snapchat's chat history through the command line."""

from __future__ import annotations

import shutil

from conftest import ROOT, records
from convo.cli.app import app

FIX = ROOT / "tests" / "fixtures" / "formats"
PACKAGE = FIX / "discord_package" / "package"
HANGOUTS = FIX / "hangouts" / "Hangouts.json"
LINKEDIN = FIX / "linkedin" / "Basic_LinkedInDataExport_06-01-2024" / "messages.csv"


def test_formats_lists_them(runner):
    r = runner.invoke(app, ["formats"])
    assert r.exit_code == 0, r.output
    for name in ("discord-package", "hangouts", "linkedin", "snapchat"):
        assert name in r.stdout


def test_a_package_messages_folder_ingests_every_channel(runner, tmp_path):
    rejects = tmp_path / "rejects.jsonl"
    r = runner.invoke(app, ["ingest", str(PACKAGE / "messages"), "--rejects", str(rejects)])
    assert r.exit_code == 1  # the row whose Timestamp does not read
    assert "messages.json:26" in r.stderr and "not recognised" not in r.stderr
    recs = records(r.stdout)
    assert len(recs) == 7 and {m["format"] for m in recs} == {"discord"}
    assert {m["thread"] for m in recs} == {
        "general in Garden club",
        "Direct Message with fern.k#0",
        "c446865271341187072",
    }
    assert [k["raw"]["Timestamp"] for k in records(rejects.read_bytes())] == ["yesterday"]


def test_the_package_and_the_others_in_one_folder_go_format_by_format(runner, tmp_path):
    shutil.copytree(PACKAGE, tmp_path / "package")
    shutil.copy(HANGOUTS, tmp_path / "Hangouts.json")
    shutil.copy(LINKEDIN, tmp_path / "messages.csv")
    r = runner.invoke(
        app, ["ingest", str(tmp_path / "package" / "messages"), str(tmp_path / "Hangouts.json"),
              str(tmp_path / "messages.csv")]
    )  # fmt: skip
    assert r.exit_code == 1, r.output  # each file's one bad row
    assert {m["format"] for m in records(r.stdout)} == {"discord", "hangouts", "linkedin"}


def test_list_and_query_by_speaker_and_tag(runner):
    r = runner.invoke(app, ["list", str(HANGOUTS), "-f", "jsonl", "-s", "Ann Müller"])
    assert r.exit_code == 1  # the file's two rejected elements, told on stderr
    assert "Hangouts.json:712" in r.stderr
    assert len(records(r.stdout)) == 5  # her messages in both chats
    old = FIX / "hangouts" / "Hangouts-2014.json"
    r = runner.invoke(app, ["list", str(old), "-f", "jsonl", "-s", "Bob"])
    assert r.exit_code == 0, r.output
    assert [m["textChunks"] for m in records(r.stdout)] == [["from 2014\nünïcode ✓"]]
    r = runner.invoke(app, ["query", "tag:draft", str(LINKEDIN), "-f", "jsonl"])
    assert r.exit_code == 1 and "messages.csv:10" in r.stderr
    assert [m["textChunks"] for m in records(r.stdout)] == [["I will (draft)"]]


def test_from_names_the_format_and_refuses_another_file(runner):
    r = runner.invoke(app, ["ingest", str(HANGOUTS), "--from", "linkedin"])
    assert r.exit_code != 0
    assert "not a LinkedIn messages.csv" in r.stderr and "Traceback" not in r.stderr


def test_snapchat_history_with_a_rejected_row(runner, tmp_path):
    path = FIX / "snapchat" / "mydata_2024" / "messages" / "json" / "chat_history.json"
    rejects = tmp_path / "rejects.jsonl"
    r = runner.invoke(app, ["ingest", str(path), "--rejects", str(rejects)])
    assert r.exit_code == 1
    assert "chat_history.json#ann.lee[5]" in r.stderr
    recs = records(r.stdout)
    assert len(recs) == 8 and {m["format"] for m in recs} == {"snapchat"}
    assert len(records(rejects.read_bytes())) == 2
