"""Goose sessions (``convo.importers.agents.goose``).

Fixtures follow block/goose ``crates/goose/src/session/legacy.rs`` (a metadata line,
then one ``Message`` a line) and ``crates/goose/src/conversation/message.rs``: text,
image, thinking, ``toolRequest``/``toolResponse`` (a list value and the newer
``{"content", "isError"}``, errors on both sides), ``systemNotification``, visibility
metadata, a line that is not JSON and one that is not a message; and an early session
(no metadata line, no ids, a ``summarizationRequested`` marker).
"""

from __future__ import annotations

import json

import pytest
from chat_exports_helpers import ingest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import goose
from convo.importers.registry import registry
from convo.pipeline.notes import clash_warning

DIR = FIXTURES / "goose"
SESSION = DIR / "20250301_101500.jsonl"
EARLY = DIR / "20250115_093000.jsonl"


@pytest.mark.parametrize("path", [SESSION, EARLY], ids=lambda p: p.name)
def test_golden(path):
    recs, _, _ = run(goose.read, path)
    assert_golden(f"formats/goose/{path.stem}.jsonl", recs)


def test_session():
    recs, rejects, warnings = run(goose.read, SESSION)
    assert [(r.where, r.reason) for r in rejects] == [
        ("20250301_101500.jsonl:7", "not JSON"),
        ("20250301_101500.jsonl:11", "not a Goose message (role, created, content)"),
    ]
    assert not warnings
    asked, run_it, ran, _view, viewed, missing, failed, answer = recs
    assert {r["thread"] for r in recs} == {"goose:20250301_101500"}
    assert asked["subject"] == "Fix the failing boil test"
    assert asked["extra"]["session"]["working_dir"] == "/Users/ann/kettle"
    assert asked["textChunks"] == [
        "The boil test hangs, can you look?",
        "[image image/png, 72 bytes]",
    ]
    assert asked["timestamp"] == "2025-03-01T09:15:00Z"
    assert asked["id"] == "goose:msg_0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    assert run_it["textChunks"] == [
        "Let me run it with a timeout.",
        '[tool_use developer__shell] {"command":"timeout 5 pytest tests/test_boil.py"}',
    ]
    assert run_it["extra"]["thinking"] == ["Run the test with a timeout first."]
    assert ran["metadata"] == {"speaker": "tool", "listeners": ["assistant"]}
    assert ran["extra"]["original_role"] == "user"
    assert ran["textChunks"] == [
        "[tool_result developer__shell] Terminated after 5s\n1 test timed out"
    ]
    assert viewed["textChunks"] == [
        "[tool_result developer__text_editor] while temp < 100:\n    pass"
    ]
    assert missing["textChunks"] == [
        "[tool_use toolu_01Zz error] -32602: Tool not found: developer__boil"
    ]
    assert failed["textChunks"] == [
        "[tool_result toolu_01Zz error] -32602: Tool not found: developer__boil"
    ]
    assert failed["tags"] == ["agent-only"]
    assert answer["tags"] == ["system", "user-only"]
    assert answer["textChunks"][1] == "[systemNotification] Context compacted"


def test_thinking_private_unless_asked():
    recs, _, _ = run(goose.read, SESSION, THINKING)
    assert recs[1]["textChunks"][0] == "[thinking] Run the test with a timeout first."


def test_early_session():
    recs, rejects, _ = run(goose.read, EARLY)
    assert not rejects
    assert [r["id"][:2] for r in recs] == ["h:"] * 3
    assert recs[2]["tags"] == ["system"]
    assert recs[2]["textChunks"] == [
        "[summarizationRequested] Your conversation has exceeded the model's context limit"
    ]


def test_detect_among_builtins(tmp_path):
    reg = fresh_registry(goose)
    for path in (SESSION, EARLY):
        assert detect_name(reg, path) == "goose"
        assert registry.detect(Source(path)).name == "goose"
    # a text-only session: its messages' keys (created, no name or tool fields) say Goose
    plain = tmp_path / "20250102_080000.jsonl"
    plain.write_text(
        "".join(
            json.dumps(
                {"role": r, "created": 1735804800 + i, "content": [{"type": "text", "text": t}]}
            )
            + "\n"
            for i, (r, t) in enumerate((("user", "hi"), ("assistant", "hello")))
        )
    )
    assert registry.detect(Source(plain)).name == "goose"


def test_openai_messages_are_not_taken(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(
        '{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hello"}\n'
    )
    assert goose.sniff(Source(path)) == 0


def _sessions_db(path):
    """The session file as Goose 1.10+ keeps it after importing it: ``sessions.db``
    (``session_manager.rs``, schema 13), plus a row whose content is damaged."""
    import sqlite3

    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', "
        "description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE, "
        "session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL, "
        "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP, "
        "extension_data TEXT DEFAULT '{}', total_tokens INTEGER, provider_name TEXT, "
        "goose_mode TEXT NOT NULL DEFAULT 'auto');"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, "
        "session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, "
        "content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, "
        "timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);"
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP);"
    )
    con.execute(
        "INSERT INTO sessions (id, name, description, working_dir, created_at, total_tokens, "
        "provider_name) VALUES (?, ?, ?, ?, ?, ?, ?)",
        ("20250301_101500", "Fix the failing boil test", "", "/Users/ann/kettle",
         "2025-03-01 10:15:00", 5120, "anthropic"),
    )  # fmt: skip
    for line in SESSION.read_text().splitlines()[1:]:
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "created" not in msg:
            continue
        con.execute(
            "INSERT INTO messages (message_id, session_id, role, content_json, "
            "created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?)",
            (msg.get("id"), "20250301_101500", msg["role"], json.dumps(msg["content"]),
             msg["created"], json.dumps(msg.get("metadata")) if "metadata" in msg else None),
        )  # fmt: skip
    con.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) "
        "VALUES ('20250301_101500', 'user', 'not json', 1740820999)"
    )
    con.commit()
    con.close()


def test_the_sqlite_store_gives_the_session_files_records(tmp_path):
    """Goose keeps its sessions in ``sessions.db`` since 1.10 (it imports the old files):
    the database was "format not recognised"; now each session reads as its file did."""
    db = tmp_path / "sessions.db"
    _sessions_db(db)
    assert registry.detect(Source(db)).name == "goose"
    recs, rejects, _ = run(goose.read, db)
    from_file, _, _ = run(goose.read, SESSION)
    keys = ("textChunks", "metadata", "timestamp", "id", "thread", "role", "tags")
    assert [{k: r.get(k) for k in keys} for r in recs] == [
        {k: r.get(k) for k in keys} for r in from_file
    ]
    assert recs[0]["subject"] == "Fix the failing boil test"
    assert recs[0]["extra"]["session"]["working_dir"] == "/Users/ann/kettle"
    assert recs[0]["source_id"] == "sessions.db#messages-1"
    # the file's line that is no message is a row here too; the damaged row is said
    assert [r.reason for r in rejects] == ["not a Goose message (role, created, content)"] * 2
    assert rejects[-1].where == f"sessions.db#messages-{len(recs) + 2}"


def test_a_message_id_another_session_of_the_db_gave_other_text(tmp_path):
    """A ``sessions.db`` holds every session: a ``message_id`` a second session repeats
    on other text is held to the first message by the pipeline's rule over the whole
    file (the reader once held its ids per session only, so it never saw this clash):
    the content hash, one warning naming the file."""
    import sqlite3

    db = tmp_path / "sessions.db"
    _sessions_db(db)
    con = sqlite3.connect(db)
    con.execute(
        "INSERT INTO sessions (id, name, working_dir) VALUES ('20250302_080000', 'Two', '/')"
    )
    con.execute(
        "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp) "
        "VALUES (?, '20250302_080000', 'user', ?, 1740902400)",
        ("msg_0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", json.dumps([{"type": "text", "text": "Other"}])),
    )  # fmt: skip
    con.commit()
    con.close()
    recs, _, warnings = ingest(db, "goose")
    same = [r for r in recs if r["id"] == "goose:msg_0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"]
    assert [r["thread"] for r in same] == ["goose:20250301_101500"]
    other = next(r for r in recs if r["thread"] == "goose:20250302_080000")
    assert other["textChunks"] == ["Other"] and other["id"].startswith("h:")
    assert f"{db}: {clash_warning(1)}" in warnings
