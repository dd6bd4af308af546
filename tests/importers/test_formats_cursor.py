"""Cursor's chats (``convo.importers.agents.cursor``).

The databases are built by ``tests/importers/cursor_db.py`` (committed copies under
``tests/fixtures/formats/cursor``) in the shapes the module documents.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from chat_exports_helpers import ingest
from cursor_db import C1, C2, SECRET, B, build_global, build_workspace
from formats_helpers import (
    FIXTURES,
    THINKING,
    detect_name,
    files_taken,
    finished,
    fresh_registry,
    run,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.agents import cursor
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.registry import registry
from convo.pipeline.notes import clash_warning

DIR = FIXTURES / "cursor"
GLOBAL = DIR / "globalStorage" / "state.vscdb"
WORKSPACE = DIR / "workspaceStorage" / "5f4e3d2c1b0a99887766554433221100" / "state.vscdb"


@pytest.mark.parametrize("name", ["global", "workspace"])
def test_golden(tmp_path, name):
    build = build_global if name == "global" else build_workspace
    recs, _, _ = run(cursor.read, build(tmp_path / "state.vscdb"))
    assert_golden(f"formats/cursor/{name}.jsonl", recs)


def test_committed_copies_read_as_built(tmp_path):
    for path, build in ((GLOBAL, build_global), (WORKSPACE, build_workspace)):
        assert run(cursor.read, path)[0] == run(cursor.read, build(tmp_path / "state.vscdb"))[0]


def test_composers(tmp_path):
    recs, rejects, warnings = run(cursor.read, build_global(tmp_path / "state.vscdb"))
    assert [r.where for r in rejects] == [f"state.vscdb:bubbleId:{C1}:{B[7]}"]
    assert rejects[0].reason.startswith("not JSON")
    assert warnings == [
        "state.vscdb: 1 Cursor message stored empty (null): nothing to read",
        "state.vscdb: 1 message a composer lists is not in the database",
    ]
    asked, said, ran, edit, done, reverted, pelicans, percy = recs
    assert {r["thread"] for r in recs[:6]} == {f"cursor:{C1}"}
    assert asked["subject"] == "Fix the boil test" and said.get("subject") is None
    assert asked["id"] == f"cursor:{C1}:{B[0]}"
    assert asked["metadata"] == {"speaker": "user", "listeners": ["assistant"]}
    assert asked["textChunks"] == [
        "The boil test hangs, can you look?",
        "[image] /Users/ann/shot.png",
    ]
    assert asked["extra"]["files"] == ["kettle/boil.py"]
    assert asked["timestamp"] == "2025-07-02T10:15:02Z"
    assert said["textChunks"] == ["Let me run it first."]
    assert said["extra"]["thinking"] == ["Run the test with a timeout."]
    assert said["extra"]["model"] == "claude-4-sonnet"  # the composer's
    assert ran["textChunks"] == [
        '[tool_use run_terminal_cmd] {"command":"timeout 5 pytest -q"}',
        '[tool_result run_terminal_cmd] {"output": "1 failed", "exitCode": 1}',
    ]
    assert ran["timestamp"] == "2025-07-02T10:15:12Z"  # timingInfo.clientRpcSendTime
    assert edit["textChunks"] == [
        "```python\nwhile temp <= 100:\n```",
        '[tool_use edit_file] {"target_file":"kettle/boil.py"}',
        "[tool_result edit_file error] ",
    ]
    assert done["textChunks"] == ["Fixed: the loop stopped one degree short."]
    assert reverted["tags"] == ["unlisted"]
    assert pelicans["thread"] == f"cursor:{C2}" and pelicans["subject"] == "Pelican names"
    assert pelicans["id"] == f"cursor:{C2}:u1"
    assert percy["timestamp"] == "2024-12-01T08:00:00Z"
    assert percy["extra"]["time_from"] == "conversation"
    assert SECRET not in json.dumps(recs) + repr(rejects) + repr(warnings)


def test_thinking_when_asked(tmp_path):
    recs, _, _ = run(cursor.read, build_global(tmp_path / "state.vscdb"), THINKING)
    assert recs[1]["textChunks"][0] == "[thinking] Run the test with a timeout."
    assert "thinking" not in recs[1]["extra"]


def test_old_chat_panel(tmp_path):
    recs, rejects, _ = run(cursor.read, build_workspace(tmp_path / "state.vscdb"))
    assert [r.reason for r in rejects] == ["not a Cursor message (type 1 or 2)"]
    question, answer = recs
    assert question["subject"] == "Regex for dates"
    assert question["thread"] == "cursor:7d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a"
    assert answer["metadata"]["speaker"] == "assistant"
    assert answer["textChunks"] == ["`\\d{4}-\\d{2}-\\d{2}`"]
    assert answer["extra"]["model"] == "gpt-4"
    assert {r["timestamp"] for r in recs} == {"2023-12-01T10:00:00Z"}


def test_detection(tmp_path):
    reg = fresh_registry(cursor)
    for path in (GLOBAL, WORKSPACE):
        assert detect_name(reg, path) == "cursor"
        assert registry.detect(Source(path)).name == "cursor"
    # VS Code's own state.vscdb (ItemTable, none of Cursor's keys) is not Cursor's
    vscode = tmp_path / "vscode" / "state.vscdb"
    vscode.parent.mkdir()
    con = sqlite3.connect(vscode)
    con.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    con.execute("INSERT INTO ItemTable VALUES ('workbench.sideBar.position', '0')")
    con.commit()
    con.close()
    assert cursor.sniff(Source(vscode)) == 0


def test_a_database_without_the_tables_is_one_error(tmp_path):
    path = tmp_path / "state.vscdb"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE cursorDiskKV (k TEXT)")  # the name, not the columns
    con.commit()
    con.close()
    with pytest.raises(InputError, match="not a readable Cursor database"):
        run(cursor.read, path)


def test_a_repeated_bubble_id_on_other_text(tmp_path):
    path = build_global(tmp_path / "state.vscdb")
    con = sqlite3.connect(path)
    value = json.dumps({"composerId": "c", "conversation": [
        {"type": 1, "bubbleId": "x", "text": "one"}, {"type": 2, "bubbleId": "x", "text": "two"}]})  # fmt: skip
    con.execute("INSERT INTO cursorDiskKV VALUES ('composerData:c', ?)", (value,))
    con.commit()
    con.close()
    recs, _, warnings = ingest(path, "cursor")
    ids = [r["id"] for r in recs if r["thread"] == "cursor:c"]
    assert ids[0] == "cursor:c:x" and ids[1].startswith("h:")
    assert f"{path}: {clash_warning(1)}" in warnings


def test_no_other_file_is_read_as_cursor():
    assert files_taken({"cursor"}, {"cursor"}) == {}


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8)
    | st.sampled_from([1, 2, "user", "ai", "", "a", "b", "2025-01-01T00:00:00Z"]),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "text", "bubbleId", "createdAt", "toolFormerData", "thinking",
                         "codeBlocks", "images", "name", "rawArgs", "result", "status",
                         "timingInfo", "conversation", "fullConversationHeadersOnly", "tabs",
                         "bubbles", "tabId"]), kids, max_size=4),
    max_leaves=10,
)  # fmt: skip


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    composers=st.lists(_values, max_size=3),
    bubbles=st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), _values), max_size=6),
    panel=_values,
)
def test_hostile_values_never_crash_nor_share_ids(tmp_path_factory, composers, bubbles, panel):
    """Any JSON under Cursor's keys: messages, rejections or warnings, never another
    exception; every message passes the store's check; once finished as the pipeline
    does (its own-id rule), no id names two texts."""
    path = tmp_path_factory.mktemp("h") / "state.vscdb"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    con.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    for i, value in enumerate(composers):
        con.execute(
            "INSERT INTO cursorDiskKV VALUES (?, ?)", (f"composerData:c{i}", json.dumps(value))
        )
        for bubble, body in bubbles:
            con.execute("INSERT INTO cursorDiskKV VALUES (?, ?)",
                        (f"bubbleId:c{i}:{bubble}", json.dumps(body).encode()))  # fmt: skip
    con.execute("INSERT INTO ItemTable VALUES (?, ?)", (cursor.PANEL, json.dumps(panel)))
    con.commit()
    con.close()
    source = Source(path)
    ctx = ImportContext(source, ImportOptions())
    by_id: dict[str, set[str]] = {}
    for msg, error in finished("cursor", source, cursor.read(source, ctx)):
        if error is not None:
            assert "text" in str(error), error
        if msg.id:
            by_id.setdefault(msg.id, set()).add(json.dumps(msg.text_chunks))
    assert {i: t for i, t in by_id.items() if len(t) > 1} == {}


def test_every_connection_opened_is_closed(monkeypatch):
    """The WAL-reading connection whose first query fails, and the one whose table list
    fails, are closed (they were left to the garbage collector)."""
    from convo.importers import sqlitedb

    opened: list = []
    real_connect = sqlitedb.connect

    class Tracked:
        def __init__(self, con):
            self.con, self.closed = con, False

        def execute(self, *a):
            if not opened.index(self):  # the first connection (the WAL's): its query fails
                raise sqlite3.OperationalError("unable to open the WAL")
            return self.con.execute(*a)

        def close(self):
            self.closed = True
            self.con.close()

    def connect(source, **kw):
        opened.append(Tracked(real_connect(source, **kw)))
        return opened[-1]

    monkeypatch.setattr(sqlitedb, "connect", connect)
    monkeypatch.setattr(
        sqlitedb, "tables", lambda con: (_ for _ in ()).throw(sqlite3.DatabaseError("x"))
    )
    with pytest.raises(InputError, match="cannot open the Cursor database"):
        run(cursor.read, GLOBAL)
    assert len(opened) == 2 and all(t.closed for t in opened)
