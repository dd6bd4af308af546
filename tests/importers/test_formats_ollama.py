"""Ollama (``convo.importers.agents.ollama``): the desktop app's ``db.sqlite``
(ollama/ollama ``app/store/database.go``, schema 13: chats, messages, tool_calls,
attachments) built here from its schema, and the API's answers saved from a stream
(``/api/chat`` pieces with ``thinking``, a tool call, an ``/api/generate`` answer)."""

from __future__ import annotations

import sqlite3

from formats_helpers import FIXTURES, THINKING, run

from convo.core.io import Source
from convo.importers.agents import ollama
from convo.importers.registry import registry

DIR = FIXTURES / "ollama"
CHAT = "8b1f6c2e-4d3a-4b5c-9e8f-0a1b2c3d4e5f"


def _app_db(path):
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE settings (id INTEGER PRIMARY KEY CHECK (id = 1), device_id TEXT NOT NULL DEFAULT '',
            schema_version INTEGER NOT NULL DEFAULT 13);
        INSERT OR IGNORE INTO settings (id) VALUES (1);
        CREATE TABLE chats (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '',
            created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, browser_state TEXT);
        CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, chat_id TEXT NOT NULL,
            role TEXT NOT NULL, content TEXT NOT NULL DEFAULT '', thinking TEXT NOT NULL DEFAULT '',
            stream BOOLEAN NOT NULL DEFAULT 0, model_name TEXT, model_cloud BOOLEAN,
            model_ollama_host BOOLEAN, created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
            updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, thinking_time_start TIMESTAMP,
            thinking_time_end TIMESTAMP, tool_result TEXT);
        CREATE TABLE tool_calls (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id INTEGER NOT NULL,
            type TEXT NOT NULL, function_name TEXT NOT NULL, function_arguments TEXT NOT NULL,
            function_result TEXT);
        CREATE TABLE attachments (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id INTEGER NOT NULL,
            filename TEXT NOT NULL, data BLOB NOT NULL);
        """
    )
    con.execute(
        "INSERT INTO chats VALUES (?, 'Kettle cutoff', '2025-08-01 12:00:00.5+02:00', NULL)",
        (CHAT,),
    )
    rows = [
        ("user", "Why does my kettle stop early?", "", None, "2025-08-01 12:00:01.1+02:00", None),
        ("assistant", "Let me check its sensor.", "Read the sensor first.", "qwen3:8b",
         "2025-08-01 12:00:03.2+02:00", None),
        ("tool", "", "", None, "2025-08-01 12:00:04+02:00", '{"celsius": 90}'),
        ("assistant", "It stops at 90 C: raise the cutoff.", "", "qwen3:8b",
         "2025-08-01 12:00:06+02:00", None),
    ]  # fmt: skip
    for role, content, thinking, model, created, result in rows:
        con.execute(
            "INSERT INTO messages (chat_id, role, content, thinking, model_name, created_at, "
            "updated_at, tool_result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (CHAT, role, content, thinking, model, created, created, result),
        )
    con.execute(
        "INSERT INTO attachments (message_id, filename, data) VALUES (1, 'kettle.png', x'89504e47')"
    )
    con.execute(
        "INSERT INTO tool_calls (message_id, type, function_name, function_arguments, function_result) "
        "VALUES (2, 'function', 'read_sensor', '{\"device\":\"kettle\"}', NULL)"
    )
    con.execute(
        "INSERT INTO messages (chat_id, role, content) VALUES (?, 'user', x'00ff')", (CHAT,)
    )
    con.commit()
    con.close()


def test_the_apps_database(tmp_path):
    db = tmp_path / "db.sqlite"
    _app_db(db)
    assert registry.detect(Source(db)).name == "ollama"
    recs, rejects, _ = run(ollama.read, db)
    got = [
        (r["metadata"]["speaker"], r["metadata"]["listeners"], r["timestamp"], r["textChunks"])
        for r in recs
    ]
    assert got == [
        ("user", ["assistant"], "2025-08-01T10:00:01Z", ["Why does my kettle stop early?", "[file kettle.png]"]),
        ("assistant", ["user"], "2025-08-01T10:00:03Z", ["Let me check its sensor.", '[tool_use read_sensor] {"device":"kettle"}']),
        ("tool", ["assistant"], "2025-08-01T10:00:04Z", ['[tool_result read_sensor] {"celsius":90}']),
        ("assistant", ["user"], "2025-08-01T10:00:06Z", ["It stops at 90 C: raise the cutoff."]),
    ]  # fmt: skip
    assert {r["thread"] for r in recs} == {f"ollama:{CHAT}"}
    assert recs[0]["subject"] == "Kettle cutoff" and "subject" not in recs[1]
    assert recs[1]["extra"] == {"model": "qwen3:8b", "thinking": ["Read the sensor first."]}
    assert [r.where for r in rejects] == ["db.sqlite#messages-5"]
    think, _, _ = run(ollama.read, db, THINKING)
    assert think[1]["textChunks"][0] == "[thinking] Read the sensor first."


def test_api_answers_streamed():
    path = DIR / "chat-stream.jsonl"
    assert registry.detect(Source(path)).name == "ollama"
    recs, rejects, _ = run(ollama.read, path)
    assert [(r["timestamp"], r["textChunks"]) for r in recs] == [
        ("2025-08-01T10:00:01Z", ["Its cutoff is set too low."]),
        ("2025-08-01T10:01:00Z", ['[tool_use get_temperature] {"device":"kettle"}']),
        ("2025-08-01T10:02:00Z", ["Boiling is 100 C at sea level."]),
    ]
    assert recs[0]["extra"]["thinking"] == ["The kettle question: check the cutoff."]
    assert recs[0]["extra"]["stats"]["eval_count"] == 9 and recs[0]["extra"]["pieces"] == 5
    assert recs[2]["extra"]["model"] == "llama3.2"
    assert [r.where for r in rejects] == ["chat-stream.jsonl#line-8"]
