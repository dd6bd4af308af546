"""Amazon Q Developer CLI conversations (``convo.importers.agents.amazon_q``): ``/save``'s
``ConversationState`` (turns with their request metadata, a tool's results, a cancelled
call, ``next_message``, ``latest_summary``, ``valid_history_range``), the older pairs, a
state of its transcript alone, and the CLI's ``data.sqlite3``. They were "format not
recognised"."""

from __future__ import annotations

import json
import sqlite3

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents import amazon_q
from convo.importers.registry import registry

DIR = FIXTURES / "amazon_q"


def _said(recs):
    return [(r["metadata"]["speaker"], r["timestamp"], r["tags"], r["textChunks"]) for r in recs]


def test_saved_conversation():
    path = DIR / "kettle-chat.json"
    assert registry.detect(Source(path)).name == "amazon-q"
    recs, rejects, warnings = run(amazon_q.read, path)
    assert not rejects
    assert warnings == [
        "kettle-chat.json: the transcript (3 lines) is the history's copy: not read again"
    ]
    assert _said(recs) == [
        ("user", "2025-09-10T07:00:00Z", ["evicted"], ["why does my kettle click off early?"]),
        ("assistant", "2025-09-10T07:00:02Z", ["evicted"],
         ["I'll read the thermostat.", '[tool_use fs_read] {"operations":[{"mode":"Line","path":"thermo.py"}]}']),
        ("tool", "2025-09-10T07:00:02Z", [], ["[tool_result fs_read] CUTOFF = 90"]),
        ("assistant", "2025-09-10T07:00:03Z", [], ['[tool_use execute_bash] {"command":"pytest -q"}']),
        ("tool", "2025-09-10T07:01:00Z", [], ["[tool_result execute_bash error] Tool use was cancelled by the user"]),
        ("user", "2025-09-10T07:01:00Z", [], ["don't run the tests, just raise it"]),
        ("assistant", "2025-09-10T07:01:02Z", [], ["Raised CUTOFF to 100."]),
        ("user", "2025-09-10T07:05:00Z", ["pending"], ["now commit it"]),
        ("system", "2025-09-10T07:01:11Z", ["system", "summary"],
         ["The user asked why the kettle clicks off; the cutoff was raised to 100."]),
    ]  # fmt: skip
    assert {r["thread"] for r in recs} == {"amazon-q:0e2a3c0e-1c2f-4f5e-9d7a-1234567890ab"}
    assert recs[0]["extra"] == {"cwd": "/srv/ann/kettle"}
    assert recs[2]["metadata"]["listeners"] == ["assistant"]


def test_older_pairs_and_a_transcript_alone():
    recs, rejects, warnings = run(amazon_q.read, DIR / "old-pairs.json")
    assert not rejects and len(warnings) == 2
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        ("user", ["list files here"]),
        ("assistant", ["There are two files: thermo.py and README.md."]),
    ]
    assert recs[1]["extra"]["model"] == "CLAUDE_SONNET_4_20250514_V1_0"
    recs, rejects, _ = run(amazon_q.read, DIR / "transcript-only.json")
    assert [(r["metadata"]["speaker"], r["textChunks"][0][:20]) for r in recs] == [
        ("user", "can you use /srv/ann"),
        ("assistant", "Sure! Let me take a "),
        ("assistant", "It is a kettle contr"),
    ]


def test_the_clis_database(tmp_path):
    path = tmp_path / "data.sqlite3"
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE state (key TEXT PRIMARY KEY, value BLOB);"
        "CREATE TABLE auth_kv (key TEXT PRIMARY KEY, value TEXT);"
        "CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT);"
    )
    con.execute(
        "INSERT INTO conversations VALUES (?, ?)",
        ("/srv/ann/kettle", (DIR / "kettle-chat.json").read_text()),
    )
    con.execute("INSERT INTO conversations VALUES (?, ?)", ("/srv/ann/broken", "not json"))
    con.execute(
        "INSERT INTO auth_kv VALUES ('codewhisperer:odic:token', '{\"access_token\": \"secret\"}')"
    )
    con.commit()
    con.close()
    assert registry.detect(Source(path)).name == "amazon-q"
    recs, rejects, _ = run(amazon_q.read, path)
    assert len(recs) == 9 and "secret" not in json.dumps(recs)
    assert [r.where for r in rejects] == ["data.sqlite3#conversations-/srv/ann/broken"]
