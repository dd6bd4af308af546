"""slackdump's archive chunk files (``convo.importers.apps.slackdump``).

The fixture follows slackdump's chunk format (rusq/slackdump
``cmd/slackdump/internal/man/assets/chunk.md`` and its ``source_archive`` test assets):
one chunk a line, ``t`` 6 (workspace), 3 (users), 7 (channel users), 0 (history, newest
first, written before its channel info), 5 (channel info), 1 (a thread: ``r``, ``p``
the parent, ``m`` the replies, a ``thread_broadcast`` reply also in the history), an IM
channel, a thread whose channel has no history, and a torn line. An archive folder
(``<channel>.json.gz`` beside ``users.json.gz`` and ``workspace.json.gz``) is built from
it by the tests.
"""

from __future__ import annotations

import gzip
import json

from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import slackdump
from convo.importers.registry import registry

PATH = FIXTURES / "slackdump" / "chunks.jsonl"


def _chunks() -> list[dict]:
    out = []
    for line in PATH.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def test_golden_reject_and_warning():
    recs, rejects, warnings = run(slackdump.read, PATH)
    assert_golden("formats/slackdump/chunks.jsonl", recs)
    assert [(r.where, r.reason) for r in rejects] == [("chunks.jsonl:7", "not a slackdump chunk")]
    assert warnings == [
        "chunks.jsonl: skipped empty messages (no text, no media): 1 (at chunks.jsonl:4#4)"
    ]


def test_mapping():
    recs, _, _ = run(slackdump.read, PATH)
    ask, broadcast, join, reply, dm, parent, bags = recs
    # the export's records: names, mrkdwn, ids, format slack
    assert ask["id"] == "slack:C0OUTING1:1709719200.000100" and ask["format"] == "slack"
    assert ask["textChunks"] == ["Rock pools on Saturday? @Bob Kowalski"]
    assert ask["thread"] == "outings"  # from the channel info written after the history
    assert ask["source_id"] == "chunks.jsonl:4#3"  # the chunk's third (oldest) message
    assert [broadcast["id"], reply["replyTo"]] == [
        "slack:C0OUTING1:1709719500.000300",
        "slack:C0OUTING1:1709719200.000100",
    ]
    assert [r["id"] for r in recs].count(broadcast["id"]) == 1  # the broadcast read once
    assert join["tags"] == ["system"]
    assert dm["thread"] == "dm:Bob Kowalski,Ann" and dm["metadata"]["listeners"] == ["Bob Kowalski"]
    assert parent["source_id"] == "chunks.jsonl:10#p" and bags["replyTo"] == parent["id"]


def test_an_archive_folder(tmp_path):
    """Channel files beside users.json.gz and workspace.json.gz, gzip-compressed."""
    chunks = _chunks()

    def write(name: str, items: list[dict]) -> None:
        with gzip.open(tmp_path / name, "wt", encoding="utf-8") as f:
            f.writelines(json.dumps(c) + "\n" for c in items)

    write("users.json.gz", [c for c in chunks if c["t"] == 3])
    write("workspace.json.gz", [c for c in chunks if c["t"] == 6])
    write("C0OUTING1.json.gz", [c for c in chunks if c.get("id") == "C0OUTING1"])
    write("D0BOBANN1.json.gz", [c for c in chunks if c.get("id") == "D0BOBANN1"])
    whole, _, _ = run(slackdump.read, PATH)
    outings, _, _ = run(slackdump.read, tmp_path / "C0OUTING1.json.gz")
    dm, _, _ = run(slackdump.read, tmp_path / "D0BOBANN1.json.gz")
    strip = lambda r: {k: v for k, v in r.items() if k != "source_id"}  # noqa: E731
    assert [strip(r) for r in outings + dm] == [strip(r) for r in whole[:5]]
    users, _, warnings = run(slackdump.read, tmp_path / "users.json.gz")
    assert users == [] and warnings == [
        "users.json.gz: slackdump archive file with no messages (users, channels or workspace)"
    ]
    assert detect_name(fresh_registry(slackdump), tmp_path / "C0OUTING1.json.gz") == "slackdump"


def test_detect_among_builtins():
    assert slackdump.sniff(Source(PATH)) >= 90
    assert detect_name(fresh_registry(slackdump), PATH) == "slackdump"


def test_global_registry_detects():
    assert registry.detect(Source(PATH)).name == "slackdump"


def _database(path, chunks: list[dict]) -> None:
    """A slackdump.sqlite holding ``chunks`` as slackdump's repository writes them (the
    tables and columns the reader uses, from its migrations)."""
    import sqlite3

    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE CHUNK (ID INTEGER PRIMARY KEY, UNIX_TS INTEGER, SESSION_ID INTEGER,"
        " TYPE_ID SMALLINT, NUM_REC INTEGER, FINAL SMALLINT, CHANNEL_ID TEXT);"
        "CREATE TABLE MESSAGE (ID INTEGER, CHUNK_ID INTEGER, CHANNEL_ID TEXT, TS TEXT,"
        " PARENT_ID INTEGER, THREAD_TS TEXT, IS_PARENT SMALLINT, IDX INTEGER, TXT TEXT,"
        " DATA BLOB, PRIMARY KEY (ID, CHUNK_ID));"
        "CREATE TABLE CHANNEL (ID TEXT, CHUNK_ID INTEGER, NAME TEXT, IDX INTEGER, DATA BLOB);"
        "CREATE TABLE S_USER (ID TEXT, CHUNK_ID INTEGER, IDX INTEGER, USERNAME TEXT, DATA BLOB);"
        "CREATE TABLE CHANNEL_USER (CHANNEL_ID TEXT, USER_ID TEXT, CHUNK_ID INTEGER);"
        "CREATE TABLE WORKSPACE (ID INTEGER PRIMARY KEY, CHUNK_ID INTEGER, TEAM TEXT,"
        " USERNAME TEXT, TEAM_ID TEXT, USER_ID TEXT, URL TEXT, DATA BLOB);"
    )
    for n, c in enumerate(chunks, 1):
        con.execute(
            "INSERT INTO CHUNK VALUES (?, ?, 1, ?, 0, 1, ?)", (n, c["ts"], c["t"], c.get("id"))
        )
        msgs = c.get("m", [])
        if c["t"] == 1 and "p" in c:
            msgs = [c["p"], *msgs]  # the repository stores a thread's parent too
        for i, m in enumerate(msgs):
            mid = int(m["ts"].replace(".", ""))
            con.execute(
                "INSERT INTO MESSAGE VALUES (?, ?, ?, ?, NULL, ?, 0, ?, ?, ?)",
                (mid, n, c["id"], m["ts"], m.get("thread_ts"), i, m.get("text"), json.dumps(m)),
            )
        for i, u in enumerate(c.get("u", [])):
            con.execute(
                "INSERT INTO S_USER VALUES (?, ?, ?, ?, ?)",
                (u["id"], n, i, u["name"], json.dumps(u)),
            )
        if "ci" in c:
            con.execute(
                "INSERT INTO CHANNEL VALUES (?, ?, ?, 0, ?)",
                (c["id"], n, c["ci"].get("name"), json.dumps(c["ci"])),
            )
        for u in c.get("cu", []):
            con.execute("INSERT INTO CHANNEL_USER VALUES (?, ?, ?)", (c["id"], u, n))
        if "w" in c:
            w = c["w"]
            con.execute(
                "INSERT INTO WORKSPACE VALUES (NULL, ?, ?, ?, ?, ?, ?, ?)",
                (n, w["team"], w["user"], w["team_id"], w["user_id"], w["url"], json.dumps(w)),
            )
    con.commit()
    con.close()


def test_the_sqlite_archive(tmp_path):
    """The database gives the chunk files' records, each message once (its latest copy:
    a later chunk fetched it again, edited), in time order per channel."""
    chunks = _chunks()
    again = {"t": 0, "ts": 1709890001000000000, "id": "C0OUTING1", "n": 1, "m": [
        {"type": "message", "user": "U0ANN0001", "text": "Rock pools on Sunday? <@U0BOB0002>",
         "ts": "1709719200.000100", "thread_ts": "1709719200.000100", "reply_count": 2,
         "edited": {"user": "U0ANN0001", "ts": "1709720000.000000"}}]}  # fmt: skip
    db = tmp_path / "slackdump.sqlite"
    _database(db, [*chunks, again])
    recs, rejects, _ = run(slackdump.read, db)
    assert rejects == []
    assert_golden("formats/slackdump/sqlite.jsonl", recs)
    files, _, _ = run(slackdump.read, PATH)
    assert sorted(r["id"] for r in recs) == sorted(r["id"] for r in files)
    ask = next(r for r in recs if r["id"] == "slack:C0OUTING1:1709719200.000100")
    assert ask["textChunks"] == ["Rock pools on Sunday? @Bob Kowalski"]
    assert ask["source_id"] == "slackdump.sqlite#chunk-10.1"
    assert detect_name(fresh_registry(slackdump), db) == "slackdump"
    assert registry.detect(Source(db)).name == "slackdump"
