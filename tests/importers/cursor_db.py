"""Cursor ``state.vscdb`` databases built for the tests, in the shapes
``convo.importers.agents.cursor`` documents: a global database (composers with header
lists and one bubble a key: text, thinking, a tool call with its result, a failed one,
an edit's code blocks, an image, attached files, a ``null`` bubble, a bubble the headers
do not list, one that is not JSON; an older composer with its messages inline; the
account's token in ``ItemTable``, never read) and a workspace database of the old chat
panel (``workbench.panel.aichat.view.aichat.chatdata``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

SCHEMA = (
    "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
    "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
)
C1 = "3f1e2d4c-5b6a-4789-8a0b-1c2d3e4f5a6b"
C2 = "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"
C3 = "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"
B = [f"b{n}a7e1c2-4d3b-4e5f-8a9b-0c1d2e3f4a5b" for n in range(8)]
SECRET = "not-a-real-token"


def _db(path: Path, tables: tuple[str, ...]) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    for sql in tables:
        con.execute(sql)
    return con


def _put(con: sqlite3.Connection, table: str, key: str, value: object) -> None:
    raw = value if isinstance(value, bytes) else json.dumps(value).encode()
    con.execute(f"INSERT INTO {table} VALUES (?, ?)", (key, raw))


def build_global(path: Path) -> Path:
    con = _db(path, SCHEMA)
    _put(con, "ItemTable", "cursorAuth/accessToken", SECRET)
    _put(con, "cursorDiskKV", f"composerData:{C1}", {
        "_v": 10, "composerId": C1, "name": "Fix the boil test", "createdAt": 1751450100000,
        "lastUpdatedAt": 1751450400000, "status": "completed", "unifiedMode": "agent",
        "modelConfig": {"modelName": "claude-4-sonnet", "maxMode": False},
        "fullConversationHeadersOnly": [
            {"bubbleId": B[0], "type": 1}, {"bubbleId": B[1], "type": 2, "serverBubbleId": "s1"},
            {"bubbleId": B[2], "type": 2}, {"bubbleId": B[3], "type": 2},
            {"bubbleId": B[4], "type": 1}, {"bubbleId": B[5], "type": 2},
            {"bubbleId": "missing-bubble", "type": 2},
        ],
        "conversationMap": {}, "context": {"fileSelections": []}, "text": "", "richText": ""})  # fmt: skip
    bubbles = {
        B[0]: {
            "_v": 3,
            "type": 1,
            "bubbleId": B[0],
            "text": "The boil test hangs, can you look?",
            "createdAt": "2025-07-02T10:15:02.000Z",
            "requestId": "r1",
            "images": [{"path": "/Users/ann/shot.png", "dimension": {"width": 10, "height": 10}}],
            "attachedCodeChunks": [{"relativeWorkspacePath": "kettle/boil.py", "content": "x"}],
            "modelInfo": {"modelName": "claude-4-sonnet"},
        },
        B[1]: {
            "_v": 3,
            "type": 2,
            "bubbleId": B[1],
            "text": "Let me run it first.",
            "createdAt": "2025-07-02T10:15:09.000Z",
            "requestId": "r1",
            "thinking": {"text": "Run the test with a timeout."},
            "tokenCount": {"inputTokens": 1200, "outputTokens": 40},
        },
        B[2]: {
            "_v": 3,
            "type": 2,
            "bubbleId": B[2],
            "text": "",
            "requestId": "r1",
            "timingInfo": {"clientRpcSendTime": 1751451312000, "clientEndTime": 1751451315000},
            "toolFormerData": {
                "tool": 15,
                "name": "run_terminal_cmd",
                "rawArgs": '{"command": "timeout 5 pytest -q"}',
                "result": '{"output": "1 failed", "exitCode": 1}',
                "status": "completed",
            },
        },
        B[3]: {
            "_v": 3,
            "type": 2,
            "bubbleId": B[3],
            "text": "",
            "requestId": "r1",
            "createdAt": "2025-07-02T10:15:20.000Z",
            "codeBlocks": [
                {
                    "content": "while temp <= 100:",
                    "languageId": "python",
                    "uri": {"path": "/Users/ann/kettle/boil.py"},
                }
            ],
            "toolFormerData": {
                "name": "edit_file",
                "params": {"target_file": "kettle/boil.py"},
                "status": "error",
                "result": None,
                "additionalData": {"status": "error"},
            },
        },
        B[4]: None,
        B[5]: {
            "_v": 3,
            "type": 2,
            "bubbleId": B[5],
            "text": "Fixed: the loop stopped one degree short.",
            "createdAt": "2025-07-02T10:15:31.000Z",
        },
        B[6]: {
            "_v": 3,
            "type": 1,
            "bubbleId": B[6],
            "text": "an earlier try, reverted",
            "createdAt": "2025-07-02T10:14:00.000Z",
        },
    }
    for bid, value in bubbles.items():
        _put(con, "cursorDiskKV", f"bubbleId:{C1}:{bid}", value)
    _put(con, "cursorDiskKV", f"bubbleId:{C1}:{B[7]}", b'{"type": 2, "text": "torn')
    _put(con, "cursorDiskKV", f"composerData:{C2}", {
        "composerId": C2, "name": "Pelican names", "createdAt": 1733040000000,
        "conversation": [
            {"type": 1, "bubbleId": "u1", "text": "Name three pelicans"},
            {"type": 2, "bubbleId": "a1", "text": "Percy, Penny and Pip."},
        ]})  # fmt: skip
    _put(con, "cursorDiskKV", f"composerData:{C3}", {"_v": 10, "composerId": C3,
         "fullConversationHeadersOnly": [], "conversationMap": {}, "text": "", "createdAt": 1766538343722})  # fmt: skip
    con.commit()
    con.close()
    return path


def build_workspace(path: Path) -> Path:
    con = _db(path, SCHEMA[:1])
    _put(con, "ItemTable", "workbench.panel.aichat.view.aichat.chatdata", {"tabs": [
        {"tabId": "7d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a", "chatTitle": "Regex for dates",
         "lastSendTime": 1701424800000, "bubbles": [
             {"type": "user", "id": "q1", "text": "A regex for ISO dates?",
              "selections": [], "image": None},
             {"type": "ai", "id": "a1", "text": "`\\d{4}-\\d{2}-\\d{2}`", "rawText": "",
              "modelType": "gpt-4"},
             "a stray value"]},
        {"tabId": "", "chatTitle": "", "bubbles": []},
    ]})  # fmt: skip
    _put(con, "ItemTable", "workbench.panel.aichat.view.aichat.chatdata.other", {"x": 1})
    con.commit()
    con.close()
    return path


if __name__ == "__main__":  # writes the committed copies: python tests/importers/cursor_db.py
    root = Path(__file__).resolve().parents[1] / "fixtures" / "formats" / "cursor"
    build_global(root / "globalStorage" / "state.vscdb")
    build_workspace(root / "workspaceStorage" / "5f4e3d2c1b0a99887766554433221100" / "state.vscdb")
