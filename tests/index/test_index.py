"""The index file: build, staleness (append, truncate, edit behind convo's back), check,
drop, broken files, dedup ids, counts."""

from __future__ import annotations

import os

import orjson
import pytest
from tests.index.helpers import IndexQuery, count, ids, lookup, rec, write_store

from convo.index import check, drop, index_path, refresh, status
from convo.store.dedup import after_append, open_ids


@pytest.fixture
def store(tmp_path):
    return write_store(tmp_path / "s.jsonl", [rec(i) for i in range(10)])


def test_build_creates_a_fresh_index_beside_the_store(store):
    assert status(store).state == "missing"
    result = refresh(store)
    assert result.action == "rebuilt" and result.added == 10
    assert index_path(store).name == "s.jsonl.index.sqlite"
    assert status(store).fresh
    assert refresh(store).action == "fresh"
    assert check(store).ok


def test_append_behind_convos_back_is_indexed_incrementally(store):
    refresh(store)
    with open(store, "ab") as f:
        f.write(orjson.dumps(rec(99)) + b"\n")
    assert status(store).state == "append"
    result = refresh(store)
    assert (result.action, result.added) == ("appended", 1)
    assert check(store).ok


def test_truncation_is_detected_and_rebuilt(store):
    refresh(store)
    data = store.read_bytes()
    store.write_bytes(data[: data.index(b"\n") + 1])
    assert status(store).state == "rebuild"
    assert refresh(store).action == "rebuilt"
    assert count(store, IndexQuery()) == 1


def test_an_edit_in_place_is_detected(store):
    refresh(store)
    st = store.stat()
    data = store.read_bytes().replace(b"message number 5", b"message NUMBER 5")
    store.write_bytes(data)
    os.utime(store, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert status(store).state == "rebuild"
    refresh(store)
    assert check(store).ok


def test_an_edit_at_the_tail_and_an_append_is_detected(store):
    refresh(store)
    data = store.read_bytes().replace(b'"m9"', b'"x9"')
    store.write_bytes(data + orjson.dumps(rec(50)) + b"\n")
    assert status(store).state == "rebuild"


def test_a_replaced_store_is_rebuilt(store, tmp_path):
    refresh(store)
    other = write_store(tmp_path / "o.jsonl", [rec(1)])
    os.replace(other, store)
    assert status(store).reason == "the store was replaced"
    assert refresh(store).action == "rebuilt"


def test_check_finds_a_mismatch(store):
    refresh(store)
    import sqlite3

    conn = sqlite3.connect(index_path(store))
    conn.execute("UPDATE messages SET id = 'wrong' WHERE message_id = 3")
    conn.commit()
    conn.close()
    result = check(store)
    assert not result.ok and "m2" in result.problems[0]


def test_check_finds_a_wrong_format_count(store):
    refresh(store)
    assert check(store).ok
    import sqlite3

    conn = sqlite3.connect(index_path(store))
    conn.execute("UPDATE value_counts SET n = n + 1 WHERE field = 'format'")
    conn.commit()
    conn.close()
    result = check(store)
    assert not result.ok and "value_counts: format 'slack'" in result.problems[0]


def test_a_broken_index_is_not_an_error(store):
    index_path(store).write_bytes(b"this is not sqlite" * 100)
    assert status(store).state == "rebuild"
    assert len(ids(lookup(store, IndexQuery()))) == 10  # rebuilt on the way
    assert check(store).ok


def test_a_missing_index_says_why(store):
    got = lookup(store, IndexQuery(speakers=["alice"]))
    assert got == "no index"
    assert count(store, IndexQuery()) == "no index"


def test_disabled_by_environment(store, monkeypatch):
    refresh(store)
    monkeypatch.setenv("CONVO_NO_INDEX", "1")
    assert "CONVO_NO_INDEX" in lookup(store, IndexQuery())
    assert open_ids(store) is None


def test_a_partial_last_line_makes_the_index_unavailable(store):
    refresh(store)
    with open(store, "ab") as f:
        f.write(b'{"id": "half')
    assert isinstance(lookup(store, IndexQuery()), str)


def test_drop(store):
    refresh(store)
    assert drop(store) and not index_path(store).exists()
    assert not drop(store)


def test_dedup_ids_through_the_index(store):
    seen = open_ids(store)
    assert seen is not None
    assert "m3" in seen and "new" not in seen
    assert seen.add("new") and not seen.add("new") and not seen.add("m4")
    assert len(seen) == 11
    seen.close()
    with open(store, "ab") as f:
        f.write(orjson.dumps(rec(11, id="new")) + b"\n")
    assert after_append(store).added == 1
    assert check(store).ok


def test_dedup_of_a_large_save_keeps_its_new_ids_compact(store):
    import tracemalloc

    seen = open_ids(store)
    assert seen is not None
    tracemalloc.start()
    try:
        assert all(seen.add(f"new-message-{i:08d}@example.org") for i in range(100_000))
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        seen.close()
    assert len(seen) == 100_010
    assert held < 5 << 20  # a set of these strings holds about 11 MB


def test_dedup_creates_the_index_for_a_new_store(tmp_path):
    path = tmp_path / "sub" / "new.jsonl"
    seen = open_ids(path)
    assert seen is not None and len(seen) == 0
    seen.close()


def test_bad_lines_bom_and_crlf(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf"
        + orjson.dumps(rec(1))
        + b"\r\n\n  \nnot json\n"
        + orjson.dumps(rec(2))
        + b"\r\n"
    )
    refresh(path)
    assert ids(lookup(path, IndexQuery())) == ["m1", "m2"]
    assert check(path).ok


def test_count_and_sort(store):
    refresh(store)
    assert count(store, IndexQuery(speakers=["alice smith"])) == 10
    assert count(store, IndexQuery(speakers=["nobody"])) == 0
    got = ids(lookup(store, IndexQuery(), order="-time", limit=2))
    assert got == ["m9", "m8"]


def test_a_repaired_partial_line_needs_no_rebuild(store):
    refresh(store)
    whole = store.read_bytes()
    with open(store, "ab") as f:
        f.write(b'{"id": "half')
    refresh(store)  # indexes nothing: the partial line is not whole
    store.write_bytes(whole)  # what Store.append's repair does (truncate to the last newline)
    assert status(store).state == "append"
    assert refresh(store).action == "appended"
    assert status(store).fresh and check(store).ok


def test_readable_read_only_for_datasette(store):
    """What `datasette --immutable` and `sqlite-utils rows` see: the joined view."""
    import sqlite3

    refresh(store)
    conn = sqlite3.connect(f"file:{index_path(store)}?immutable=1", uri=True)
    conn.row_factory = sqlite3.Row
    row = conn.execute("SELECT * FROM messages_view WHERE id = 'm3'").fetchone()
    assert row["speaker"] == "Alice Smith <alice@x.org>" and row["format"] == "slack"
    assert set(row.keys()) >= {"id", "timestamp", "speaker", "listeners", "tags", "thread"}
    sql = (
        "SELECT m.id FROM messages_fts f JOIN messages m ON m.message_id = f.rowid"
        " WHERE messages_fts MATCH 'number' ORDER BY f.rank LIMIT 3"
    )
    assert len(conn.execute(sql).fetchall()) == 3
    conn.close()


def test_a_reader_opens_a_fresh_index_once_and_never_answers_from_a_stale_one(store, monkeypatch):
    """``lookup.reader`` decides freshness inside its read transaction and only then
    (not fresh) refreshes and opens again (docs/startup.md, "Third pass"): a fresh index
    is opened once; an index older than the store (appended, or edited in place with
    the same size) never answers: with ``update`` it is brought up to date first, without
    it the reader is the reason."""
    from convo.index import lookup, schema

    refresh(store)
    opened: list[str] = []
    connect = schema.connect
    monkeypatch.setattr(
        schema, "connect", lambda p, **kw: opened.append(str(p)) or connect(p, **kw)
    )
    with lookup.reader(store) as r:
        assert not isinstance(r, str) and r.count() == 10
    assert len(opened) == 1

    with open(store, "ab") as f:
        f.write(orjson.dumps(rec(99)) + b"\n")
    with lookup.reader(store, update=False) as r:
        assert isinstance(r, str)
    with lookup.reader(store) as r:
        assert not isinstance(r, str) and r.count() == 11

    st = store.stat()
    store.write_bytes(store.read_bytes().replace(b"message number 5", b"message NUMBER 5"))
    os.utime(store, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    with lookup.reader(store, update=False) as r:
        assert isinstance(r, str)
    with lookup.reader(store) as r:
        assert not isinstance(r, str)
        spans = list(r.spans("m.message_id IN (SELECT message_id FROM messages)"))
        assert len(spans) == 11
    assert check(store).ok
