"""``convo export --to sqlite``: one database with the text, read by sqlite3 and datasette."""

from __future__ import annotations

import asyncio
import sqlite3

import orjson

from convo.cli.app import app


def _rec(i, speaker, text, **kw):
    return {"textChunks": [text], "metadata": {"speaker": speaker, "listeners": kw.pop("to", [])},
            "tags": kw.pop("tags", []), "timestamp": f"2024-03-06T10:00:0{i}Z",
            "source_id": f"c.json#{i}", "id": f"m{i}", "format": kw.pop("format", "slack"),
            **kw}  # fmt: skip


RECORDS = [
    _rec(0, "Alice", "Shall we use JWT tokens?", to=["Bob"], tags=["auth"], thread="t1"),
    _rec(1, "Bob", "Yes, JWT <img src=x onerror=alert(1)>", to=["Alice"], tags=["auth", "x"],
         thread="t1", replyTo="m0"),
    _rec(2, "Carol", "Lunch?", format="discord"),
    _rec(1, "Bob", "a duplicate id: the first is kept"),
]  # fmt: skip


def _export(runner, tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in RECORDS))
    db = tmp_path / "convo.db"
    r = runner.invoke(app, ["export", "--to", "sqlite", "-o", str(db), str(src)])
    assert r.exit_code == 0, r.output
    assert "exported 3 messages" in r.stderr
    return db


def test_tables_hold_the_text(runner, tmp_path):
    db = _export(runner, tmp_path)
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT id, speaker, text, tags FROM messages ORDER BY id").fetchall()
    assert rows[1] == ("m1", "Bob", "Yes, JWT <img src=x onerror=alert(1)>", '["auth","x"]')
    assert len(rows) == 3
    people = dict(conn.execute("SELECT name, messages FROM people").fetchall())
    assert people == {"Alice": 1, "Bob": 1, "Carol": 1}
    assert conn.execute("SELECT tag, messages FROM tags").fetchall() == [("auth", 2), ("x", 1)]
    assert conn.execute("SELECT thread, messages, participants FROM threads").fetchall() == [
        ("t1", 2, 2)
    ]
    hits = conn.execute(
        "SELECT m.id FROM messages_fts f JOIN messages m ON m.rowid = f.rowid "
        "WHERE messages_fts MATCH 'jwt' ORDER BY m.id"
    ).fetchall()
    assert hits == [("m0",), ("m1",)]


def test_export_to_stdout_is_refused(runner, tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_bytes(orjson.dumps(RECORDS[0]) + b"\n")
    r = runner.invoke(app, ["export", "--to", "sqlite", str(src)])
    assert r.exit_code == 2
    assert "-o PATH" in r.stderr


def test_datasette_lists_messages_with_text_and_search(runner, tmp_path):
    from datasette.app import Datasette

    db = _export(runner, tmp_path)

    async def fetch(path):
        ds = Datasette([str(db)])
        return (await ds.client.get(path)).json()

    page = asyncio.run(fetch("/convo/messages.json?_shape=objects&_facet=speaker"))
    texts = {row["id"]: row["text"] for row in page["rows"]}
    assert texts["m0"] == "Shall we use JWT tokens?"
    facets = {f["value"]: f["count"] for f in page["facet_results"]["speaker"]["results"]}
    assert facets == {"Alice": 1, "Bob": 1, "Carol": 1}
    found = asyncio.run(fetch("/convo/messages.json?_shape=objects&_search=jwt"))
    assert sorted(row["id"] for row in found["rows"]) == ["m0", "m1"]
