"""Folder walks lose nothing silently: every file no format recognised is listed in the
summary and kept with ``--rejects``; a conversation file type among them makes the run
exit 1. Read commands on such a file say "format not recognised" as ``ingest`` does."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest

from conftest import records
from convo.cli.app import app
from convo.pipeline.ingest import CONVERSATION_SUFFIXES, is_conversation_file
from convo.pipeline.run import unrecognised_text

REC = {"textChunks": ["hi"], "metadata": {"speaker": "A", "listeners": []}, "tags": [],
       "timestamp": "2024-03-06T10:02:30Z", "source_id": "x#1", "format": "jsonl", "id": "a"}  # fmt: skip


@pytest.fixture
def folder(tmp_path) -> Path:
    root = tmp_path / "export"
    root.mkdir()
    (root / "a.jsonl").write_bytes(orjson.dumps(REC) + b"\n")
    (root / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n not a chat")
    return root


def _rejects(path: Path) -> list[dict]:
    return [orjson.loads(x) for x in path.read_bytes().splitlines()]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_other_files_are_listed_and_kept_but_do_not_fail_the_run(runner, folder, tmp_path, jobs):
    rej = tmp_path / "rejects.jsonl"
    r = runner.invoke(app, ["ingest", str(folder), "-o", "-", "--rejects", str(rej), "-j", jobs])
    assert r.exit_code == 0, r.output
    assert len(records(r.stdout)) == 1
    assert f"1 file not recognised: {folder}/picture.png" in r.stderr
    assert _rejects(rej) == [
        {"where": f"{folder}/picture.png", "reason": "format not recognised",
         "hint": "not a conversation file type: listed, the run goes on", "raw": None}
    ]  # fmt: skip


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_unrecognised_conversation_file_fails_the_run(runner, folder, tmp_path, jobs):
    (folder / "sub").mkdir()
    (folder / "sub" / "chat.json").write_text('{"who": "knows"}')
    (folder / "sub" / "log.txt.gz").write_bytes(gzip.compress(b"just notes\n"))
    rej = tmp_path / "rejects.jsonl"
    r = runner.invoke(app, ["ingest", str(folder), "-o", "-", "--rejects", str(rej), "-j", jobs])
    assert r.exit_code == 1, r.output
    assert "rejected 2" in r.stderr
    assert "3 files not recognised" in r.stderr and "(2 counted as rejected" in r.stderr
    where = sorted(x["where"] for x in _rejects(rej))
    assert where == [f"{folder}/picture.png", f"{folder}/sub/chat.json", f"{folder}/sub/log.txt.gz"]
    assert "Traceback" not in r.output


def test_summary_names_the_first_few():
    names = [f"d/{i}.json" for i in range(8)]
    text = unrecognised_text(names)
    assert text.startswith("8 files not recognised: d/0.json, d/1.json")
    assert "and 3 more" in text and "(8 counted as rejected" in text


def test_conversation_suffixes_are_the_issue_list():
    for suffix in (".json", ".jsonl", ".txt", ".xml", ".vtt", ".srt", ".sbv", ".mbox", ".eml",
                   ".zip", ".log", ".ass", ".ssa", ".ttml", ".dfxp", ".srv3", ".traj"):  # fmt: skip
        assert suffix in CONVERSATION_SUFFIXES
        assert is_conversation_file(f"x{suffix.upper()}") and is_conversation_file(f"x{suffix}.gz")
    assert not is_conversation_file("README.md") and not is_conversation_file("a.png")


@pytest.mark.parametrize("command", ["list", "show", "query"])
def test_read_commands_say_format_not_recognised(runner, tmp_path, command):
    notes = tmp_path / "notes.txt"
    notes.write_text("just some notes\nnothing like a chat\n" * 30)
    r = runner.invoke(app, [command, str(notes)])
    assert r.exit_code == 2
    assert "format not recognised" in r.stderr and "--from FORMAT" in r.stderr
    assert "invalid JSON" not in r.stderr and r.stderr.count("\n") <= 2


def test_damaged_records_are_still_reported_line_by_line(runner, tmp_path):
    bad = tmp_path / "store.jsonl"
    bad.write_text('{"oops": 1\n' + orjson.dumps(REC).decode() + "\n")
    r = runner.invoke(app, ["list", str(bad), "-f", "jsonl"])
    assert "store.jsonl:1" in r.stderr


def test_strict_stops_at_an_unrecognised_conversation_file(runner, folder):
    (folder / "chat.json").write_text('{"who": "knows"}')
    r = runner.invoke(app, ["ingest", str(folder), "-o", "-", "--strict"])
    assert r.exit_code == 2 and "chat.json: format not recognised" in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_apple_mail_mbox_folder_files_beside_the_mailbox_are_passed_over(runner, tmp_path, jobs):
    """Apple Mail's export is a ``Name.mbox`` folder: ``mbox`` and ``table_of_contents``
    (its store: ``Info.plist`` too). Those hold no message: not listed as unread files;
    the same names elsewhere still are."""
    box = tmp_path / "Mail" / "Inbox.mbox"
    box.mkdir(parents=True)
    (box / "mbox").write_bytes(
        b"From a@b.org Mon Jan  1 00:00:00 2024\nFrom: a@b.org\nDate: Mon, 1 Jan 2024 00:00:00"
        b" +0000\nMessage-ID: <1@b.org>\n\nhi\n"
    )
    (box / "table_of_contents").write_bytes(b"\x00\x00\x00\x02\x00\xff toc")
    (box / "Info.plist").write_bytes(b'<?xml version="1.0" encoding="UTF-8"?>\n<plist/>\n')
    (tmp_path / "Mail" / "Info.plist").write_bytes(b'<?xml version="1.0"?>\n<plist/>\n')
    r = runner.invoke(app, ["ingest", str(tmp_path / "Mail"), "-o", "-", "-j", jobs])
    assert r.exit_code == 0, r.output
    assert len(records(r.stdout)) == 1
    assert f"1 file not recognised: {tmp_path}/Mail/Info.plist" in r.stderr
    assert "table_of_contents" not in r.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_apple_mail_attachments_stored_apart_are_passed_over(runner, tmp_path, jobs):
    """Apple Mail's store keeps a ``.partial.emlx`` message's attachments in
    ``Data/N/Attachments/<message>/<part>/``: the message lists them; the files (a
    ``.txt`` among them) are not conversations of their own."""
    data = tmp_path / "V10" / "INBOX.mbox" / "ABC" / "Data" / "1"
    (data / "Messages").mkdir(parents=True)
    (data / "Attachments" / "123" / "2").mkdir(parents=True)
    msg = b"From: a@b.org\nDate: Mon, 1 Jan 2024 00:00:00 +0000\nMessage-ID: <1@b.org>\n\nhi\n"
    (data / "Messages" / "123.partial.emlx").write_bytes(b"%d\n" % len(msg) + msg)
    (data / "Attachments" / "123" / "2" / "notes.txt").write_bytes(b"shopping list\n")
    r = runner.invoke(app, ["ingest", str(tmp_path / "V10"), "-o", "-", "-j", jobs])
    assert r.exit_code == 0, r.output
    assert len(records(r.stdout)) == 1
    assert "not recognised" not in r.stderr
