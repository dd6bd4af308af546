"""The parallel build (batch.py in worker processes, fts.py on a thread) makes the index
the one-process build makes: every table, the full-text index, the meta, and check."""

from __future__ import annotations

import json
import os
import sqlite3

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.hostile.helpers import record as store_record
from tests.index.helpers import rec, write_store
from tests.index.test_rows import hostile

from convo.index import build, check, drop, refresh
from convo.index.batch import Task, read_range, rows_of
from convo.index.folding import unfolded
from convo.index.rows import fts_values, parse, row_of
from convo.index.schema import index_path

TABLES = {
    "messages": "SELECT * FROM messages ORDER BY message_id",
    "names": "SELECT * FROM names ORDER BY name_id",
    "name_tokens": "SELECT * FROM name_tokens ORDER BY token, name_id",
    "message_listeners": "SELECT * FROM message_listeners ORDER BY message_id, name_id",
    "message_tags": "SELECT * FROM message_tags ORDER BY message_id, tag_folded",
    "meta": "SELECT * FROM meta WHERE key NOT LIKE 'store_%' ORDER BY key",
    "fts terms": "SELECT term, col, doc, offset FROM v ORDER BY term, doc, col, offset",
    "fts sizes": "SELECT id, sz FROM messages_fts_docsize ORDER BY id",
    "fts config": "SELECT * FROM messages_fts_config ORDER BY k",
}


def _store(path, n=600):
    items = []
    for i in range(n):
        kw = {"tags": ["Ops", "ops"] if i % 3 == 0 else []}
        if i % 5 == 0:
            kw["metadata"] = {"speaker": f"P{i % 7} <p{i % 7}@x.org>", "listeners": ["Ann", "Bo"]}
        if i % 11 == 0:
            kw["text"] = "東京タワーへ行きました café naïve"
        if i % 13 == 0:
            kw["subject"] = f"Re: budget {i}"
        items.append(rec(i, **kw))
        if i % 97 == 0:
            items.append(b"not json")
    return write_store(path, items)


def _dump(store) -> dict[str, list]:
    conn = sqlite3.connect(index_path(store))
    conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, messages_fts, 'instance')")
    out = {name: conn.execute(sql).fetchall() for name, sql in TABLES.items()}
    conn.close()
    return out


def _build(store, monkeypatch, *, parallel: bool):
    # Parallel: tiny ranges on two workers and the side full-text database; else one
    # process writing everything itself (what every small store gets).
    monkeypatch.setattr(build, "PARALLEL_BYTES", 0 if parallel else 1 << 40)
    monkeypatch.setattr(build, "RANGE_BYTES", 2000)
    monkeypatch.setattr("convo.core.pool.cpu_count", lambda: 2)
    drop(store)
    assert refresh(store, wait=True).action == "rebuilt"
    assert check(store).ok
    leftovers = [p.name for p in store.parent.iterdir() if ".tmp-" in p.name]
    assert leftovers == []
    return _dump(store)


def test_parallel_build_is_the_one_process_build(tmp_path, monkeypatch):
    store = _store(tmp_path / "s.jsonl")
    serial = _build(store, monkeypatch, parallel=False)
    parallel = _build(store, monkeypatch, parallel=True)
    for name in TABLES:
        assert parallel[name] == serial[name], name
    assert len(serial["messages"]) == 600 and serial["fts terms"]


def test_parallel_append_after_a_parallel_build(tmp_path, monkeypatch):
    store = _store(tmp_path / "s.jsonl")
    _build(store, monkeypatch, parallel=True)
    with open(store, "ab") as f:
        f.write(b"".join(orjson.dumps(rec(1000 + i, tags=["new"])) + b"\n" for i in range(300)))
    assert refresh(store, wait=True).action == "appended"
    assert check(store).ok


def test_a_range_of_a_replaced_store_is_refused(tmp_path):
    store = _store(tmp_path / "s.jsonl", 5)
    st = os.stat(store)
    task = Task(str(store), st.st_dev, st.st_ino + 1, 0, st.st_size)
    with pytest.raises(OSError, match="replaced"):
        read_range(task)


def _dumps(record, escaped: bool) -> bytes:
    return json.dumps(record, ensure_ascii=escaped).encode("utf-8", "surrogatepass")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.one_of(hostile(), st.just(b"[1]"), st.just(b"  "), st.just(b"{bad")), max_size=6),
    st.booleans(),
)
def test_batch_rows_are_row_of(items, escaped):
    """``batch.rows_of`` (the build's hot path) reads each line as ``rows.row_of``, its
    non-ASCII text written as UTF-8 or as ``\\u`` escapes; CJK text is spaced either way."""
    items = [*items, {"textChunks": ["東京タワー", 1], "subject": "한국 "}]
    lines = [x if isinstance(x, bytes) else _dumps(x, escaped) for x in items]
    data = b"".join(x + (b"\r\n" if i % 2 else b"\n") for i, x in enumerate(lines))
    batch = rows_of(data, 100)
    records = [r for r in map(parse, lines) if r is not None]
    assert batch.count == len(records) == len(batch.subjects) == len(batch.texts)
    assert batch.bad == sum(1 for x in lines if x.strip() and parse(x) is None)
    listeners = list(zip(batch.listener_of, batch.listeners, strict=True))
    tags = list(zip(batch.tag_of, batch.tags_folded, batch.tags, strict=True))
    for n, record in enumerate(records):
        row = row_of(record)
        msg = batch.message_rows(n)
        assert (msg[0], msg[3], msg[4], msg[5], msg[6], msg[7], msg[8]) == (
            row.id, row.timestamp, row.speaker, row.thread, row.format, row.role, row.subject,
        )  # fmt: skip
        subject, text = fts_values(row)
        assert (batch.subjects[n], batch.texts[n]) == (subject.encode(), text.encode())
        assert [x for m, x in listeners if m == n] == row.listeners
        assert [(f, t) for m, f, t in tags if m == n] == [(t.casefold(), t) for t in row.tags]
        assert (n in batch.unfolded) == (unfolded(row.text) or unfolded(row.subject or ""))
    rows = [row_of(r) for r in records]
    names = {r.speaker for r in rows if r.speaker} | {x for r in rows for x in r.listeners}
    assert set(batch.names) == names


def test_a_killed_rebuilds_files_go_at_the_next_save(tmp_path):
    """A rebuild killed by SIGKILL leaves its temporary database (the old index stays, so
    no rebuild comes to remove it): the next update of the index, under the store's lock,
    removes it."""
    from convo.store import Store

    store = write_store(tmp_path / "s.jsonl", [rec(i) for i in range(20)])
    assert refresh(store, wait=True).action == "rebuilt"
    left = [
        index_path(store).with_name(index_path(store).name + end)
        for end in (".tmp-99999", ".tmp-99999.fts")
    ]
    for path in left:
        path.write_bytes(b"x" * 1000)
    new = [store_record(i) for i in range(100, 103)]
    Store(store).append([(r["id"], orjson.dumps(r) + b"\n") for r in new])
    assert not [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name]
    assert check(store).ok
