"""OpenHands, Cursor, Copilot CLI and Zed through the command line: a trajectory
detected and its stray element located (exit 1), the file store's conversation folder
(one event a file and the cache page holding the same events: one copy saved), a torn
file in one clear line, Cursor's User folder, Copilot's session-state and Zed's
conversations walked, and hostile texts kept off the terminal."""

from __future__ import annotations

import json
import shutil

from conftest import ROOT, records
from convo.cli.app import app

DIR = ROOT / "tests" / "fixtures" / "formats" / "openhands"
NEW = DIR / "trajectory-1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f.json"
TTY = {"CONVO_FORCE_TTY": "1", "NO_COLOR": "1"}
BAD = "\x1b]0;pwned\x07Kettle\x1b[2J"


def run(runner, *args, env=None):
    return runner.invoke(app, list(args), env=env)


def test_trajectory_detected_and_rejects_located(runner):
    r = run(runner, "ingest", str(NEW))
    assert r.exit_code == 1
    recs = records(r.stdout_bytes)
    assert len(recs) == 14 and {x["format"] for x in recs} == {"openhands"}
    assert f"{NEW}:271: rejected: not an OpenHands event (action or observation)" in r.stderr
    assert "read 15, imported 14, rejected 1" in r.stderr


def test_file_store_folder_saves_each_event_once(runner, tmp_path):
    shutil.copytree(DIR / "sessions", tmp_path / "sessions")
    store = tmp_path / "s.jsonl"
    r = run(runner, "--store", str(store), "ingest", "--save", str(tmp_path / "sessions"))
    assert r.exit_code == 0, r.stderr
    recs = records(store.read_bytes())
    assert sorted(x["id"] for x in recs) == [
        f"openhands:9f8e7d6c5b4a39281706f5e4d3c2b1a0:{n}" for n in range(4)
    ]
    r = run(runner, "--store", str(store), "ingest", "--save", str(NEW.parent / "sessions"))
    assert len(records(store.read_bytes())) == 4  # again: nothing new


def test_a_torn_trajectory_is_one_line(runner, tmp_path):
    path = tmp_path / "trajectory-x.json"
    path.write_text(NEW.read_text()[:1500])
    r = run(runner, "ingest", "--from", "openhands", str(path))
    assert r.exit_code != 0
    assert "Traceback" not in r.stderr and str(path) in r.stderr


def test_hostile_texts_do_not_reach_the_terminal(runner, tmp_path):
    path = tmp_path / f"trajectory-{BAD}.json"
    path.write_text(json.dumps([
        {"id": 0, "timestamp": "2025-01-01T00:00:00", "source": "user", "message": BAD,
         "action": "message", "args": {"content": BAD, "image_urls": [BAD]}},
        {"id": 1, "timestamp": "2025-01-01T00:00:01", "source": "agent", "message": BAD,
         "action": BAD, "args": {"thought": BAD, BAD: BAD}},
        {"id": 2, "timestamp": BAD, "source": BAD, "observation": "run", "content": BAD,
         "extras": {"metadata": {"exit_code": BAD}, BAD: [BAD]}},
    ]))  # fmt: skip
    store = tmp_path / "s.jsonl"
    r = run(runner, "--store", str(store), "ingest", "--save", str(path))
    assert r.exit_code == 0, r.stderr
    assert len(records(store.read_bytes())) == 3
    for command in ("show", "list", "threads"):
        r = run(runner, "--store", str(store), command, env=TTY)
        assert r.exit_code == 0, (command, r.stderr)
        assert "\x1b]" not in r.stdout and "\x1b[2J" not in r.stdout


CURSOR = ROOT / "tests" / "fixtures" / "formats" / "cursor"


def test_cursor_user_folder(runner, tmp_path):
    """Cursor's User folder walked: both databases read, rejects located, the warnings."""
    shutil.copytree(CURSOR, tmp_path / "User")
    r = run(runner, "ingest", str(tmp_path / "User"))
    assert r.exit_code == 1
    recs = records(r.stdout_bytes)
    assert len(recs) == 10 and {x["format"] for x in recs} == {"cursor"}
    assert "state.vscdb:bubbleId:3f1e2d4c-5b6a-4789-8a0b-1c2d3e4f5a6b:" in r.stderr
    assert "1 Cursor message stored empty (null)" in r.stderr


def test_cursor_hostile_text_stays_off_the_terminal(runner, tmp_path):
    import sqlite3

    path = tmp_path / "state.vscdb"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    con.execute("INSERT INTO cursorDiskKV VALUES ('composerData:c', ?)", (json.dumps(
        {"name": BAD, "conversation": [{"type": 1, "bubbleId": BAD, "text": BAD}]}),))  # fmt: skip
    con.commit()
    con.close()
    store = tmp_path / "s.jsonl"
    r = run(runner, "--store", str(store), "ingest", "--save", str(path))
    assert r.exit_code == 0, r.stderr
    for command in ("show", "list", "threads"):
        r = run(runner, "--store", str(store), command, env=TTY)
        assert r.exit_code == 0, (command, r.stderr)
        assert "\x1b]" not in r.stdout and "\x1b[2J" not in r.stdout


COPILOT = ROOT / "tests" / "fixtures" / "formats" / "copilot_cli" / "session-state"


def test_copilot_session_state_folder(runner, tmp_path):
    shutil.copytree(COPILOT, tmp_path / "session-state")
    r = run(runner, "ingest", str(tmp_path / "session-state"))
    assert r.exit_code == 1
    recs = records(r.stdout_bytes)
    assert len(recs) == 12 and {x["format"] for x in recs} == {"copilot-cli"}
    assert "events.jsonl:10: rejected: not JSON" in r.stderr
    assert "session events skipped (the UI's state)" in r.stderr


def test_copilot_hostile_text_stays_off_the_terminal(runner, tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text(
        json.dumps({"type": "user.message", "id": BAD, "timestamp": BAD, "parentId": None,
                    "data": {"content": BAD, "attachments": [{"type": BAD, BAD: BAD}]}}) + "\n"
        + json.dumps({"type": "session.error", "id": "x", "timestamp": "2026-01-01T00:00:00Z",
                      "parentId": None, "data": {"errorType": BAD, "message": BAD}}) + "\n"
    )  # fmt: skip
    store = tmp_path / "s.jsonl"
    r = run(runner, "--store", str(store), "ingest", "--save", "--from", "copilot-cli", str(path))
    assert r.exit_code == 0, r.stderr
    for command in ("show", "list", "threads"):
        r = run(runner, "--store", str(store), command, env=TTY)
        assert r.exit_code == 0, (command, r.stderr)
        assert "\x1b]" not in r.stdout and "\x1b[2J" not in r.stdout


ZED = ROOT / "tests" / "fixtures" / "formats" / "zed" / "conversations"


def test_zed_conversations_folder(runner, tmp_path):
    shutil.copytree(ZED, tmp_path / "conversations")
    r = run(runner, "ingest", str(tmp_path / "conversations"))
    assert r.exit_code == 1
    recs = records(r.stdout_bytes)
    assert len(recs) == 7 and {x["format"] for x in recs} == {"zed"}
    assert "Kettle clicks off early - 1.zed.json:messages[5]: rejected:" in r.stderr
    assert "Zed records no times" in r.stderr


def test_zed_hostile_text_stays_off_the_terminal(runner, tmp_path):
    text = f"{BAD}\n{BAD}\n"
    path = tmp_path / "x.zed.json"
    path.write_text(json.dumps({"id": BAD, "zed": "context", "version": "0.4.0", "text": text,
        "summary": BAD, "messages": [
            {"id": {"replica_id": 0, "value": 0}, "start": 0, "metadata": {"role": "user", "status": "Done"}},
            {"id": {"replica_id": 0, "value": 1}, "start": len(BAD.encode()) + 1,
             "metadata": {"role": "assistant", "status": {"Error": BAD}}}],
        "slash_command_output_sections": [{"range": {"start": 0, "end": 3}, "label": BAD, "icon": BAD}]}))  # fmt: skip
    store = tmp_path / "s.jsonl"
    r = run(runner, "--store", str(store), "ingest", "--save", str(path))
    assert r.exit_code == 0, r.stderr
    for command in ("show", "list", "threads"):
        r = run(runner, "--store", str(store), command, env=TTY)
        assert r.exit_code == 0, (command, r.stderr)
        assert "\x1b]" not in r.stdout and "\x1b[2J" not in r.stdout
