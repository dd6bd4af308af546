"""LLM CLI logs, LM Studio chats, Jan threads and Continue sessions through the command line: detection of
a file and of a Jan data folder (each thread.json its messages' title, no warning),
rejects located, --include-thinking, and hostile titles and texts kept off the terminal."""

from __future__ import annotations

import json
import shutil

from conftest import ROOT, records
from convo.cli.app import app

FORMATS = ROOT / "tests" / "fixtures" / "formats"
TTY = {"CONVO_FORCE_TTY": "1", "NO_COLOR": "1"}
BAD = "\x1b]0;pwned\x07Kettle\x1b[2J"


def run(runner, *args, env=None):
    return runner.invoke(app, list(args), env=env)


def test_each_file_is_detected(runner):
    for rel, fmt, n in (
        ("llm_logs/logs.json", "llm-logs", 10),
        ("lmstudio/1742461200000.conversation.json", "lmstudio", 5),
        ("jan/threads/jan_1700000000/messages.jsonl", "jan", 2),
        ("continue_dev/sessions/0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d.json", "continue", 2),
    ):
        r = run(runner, "ingest", str(FORMATS / rel))
        assert r.exit_code in (0, 1), r.stderr
        recs = records(r.stdout_bytes)
        assert len(recs) == n and {x["format"] for x in recs} == {fmt}


def test_rejects_are_located_and_exit_1(runner):
    path = FORMATS / "llm_logs" / "logs.json"
    r = run(runner, "ingest", str(path))
    assert r.exit_code == 1
    assert f"{path}:150: rejected: not an LLM log entry (prompt, response)" in r.stderr
    assert "read 11, imported 10, rejected 1" in r.stderr


def test_jan_data_folder(runner, tmp_path):
    shutil.copytree(FORMATS / "jan", tmp_path / "jan")
    r = run(runner, "ingest", str(tmp_path / "jan"))
    recs = records(r.stdout_bytes)
    assert len(recs) == 7 and {x["format"] for x in recs} == {"jan"}
    assert {x.get("subject") for x in recs} == {None, "Kettle keeps clicking off", "Pelican names"}
    assert "a Jan thread's metadata" not in r.stderr  # each beside its messages: its title
    assert "rejected: not JSON" in r.stderr  # the torn line of one thread


def test_include_thinking(runner):
    path = FORMATS / "lmstudio" / "1742461200000.conversation.json"
    plain = records(run(runner, "ingest", str(path)).stdout_bytes)
    shown = records(run(runner, "ingest", "--include-thinking", str(path)).stdout_bytes)
    assert not any(c.startswith("[thinking]") for x in plain for c in x["textChunks"])
    assert shown[2]["textChunks"][0].startswith("[thinking] ")


def test_hostile_titles_and_texts_do_not_reach_the_terminal(runner, tmp_path):
    chat = tmp_path / "1.conversation.json"
    chat.write_text(json.dumps({"name": BAD, "createdAt": 1742461200000, "messages": [
        {"versions": [{"type": "singleStep", "role": "user",
                       "content": [{"type": "text", "text": "hi \x1b[31m" + BAD}]}],
         "currentlySelected": 0}]}))  # fmt: skip
    logs = tmp_path / "logs.json"
    logs.write_text(json.dumps([{"id": "01jq3v8k2pa1b2c3d4e5f6g7h8", "model": BAD,
        "prompt": BAD, "response": BAD, "conversation_id": "c", "conversation_name": BAD,
        "duration_ms": 5, "datetime_utc": "2025-01-01T00:00:00+00:00"}]))  # fmt: skip
    session = tmp_path / "c.json"
    session.write_text(json.dumps({"sessionId": "6f1c8e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b",
        "title": BAD, "workspaceDirectory": BAD, "history": [
            {"message": {"role": "user", "content": BAD}, "contextItems": [{"name": BAD}]}]}))  # fmt: skip
    store = tmp_path / "s.jsonl"
    r = run(runner, "--store", str(store), "ingest", "--save", str(chat), str(logs), str(session))
    assert r.exit_code == 0, r.stderr
    for command in ("show", "list", "threads"):
        r = run(runner, "--store", str(store), command, env=TTY)
        assert r.exit_code == 0, (command, r.stderr)
        out = r.stdout
        assert "\x1b]" not in out and "\x1b[2J" not in out and "\x07" not in out, command
