"""§9: a valid SQLite index with a damaged meta or a table missing columns is detected,
reported by --check, bypassed by reads and rebuilt by the next write."""

from __future__ import annotations

import os
import sqlite3

import pytest

from convo.cli.app import app

from .helpers import VTT, write_store

DAMAGE = {
    "meta": ["UPDATE meta SET value = 'abc' WHERE key = 'store_size'"],
    "meta-null": ["UPDATE meta SET value = NULL WHERE key = 'indexed_bytes'"],
    "column": ["DROP VIEW messages_view", "ALTER TABLE messages DROP COLUMN subject"],
    "fts": ["DROP TABLE messages_fts"],
}


def _damage(runner, tmp_path, how):
    store = write_store(tmp_path / "s.jsonl")
    r = runner.invoke(app, ["--store", str(store), "index"])
    assert r.exit_code == 0, r.output
    st = store.stat()
    conn = sqlite3.connect(tmp_path / "s.jsonl.index.sqlite")
    for statement in DAMAGE[how]:
        conn.execute(statement)
    conn.commit()
    conn.close()
    os.utime(store, ns=(st.st_atime_ns, st.st_mtime_ns))
    return store


@pytest.mark.parametrize("how", list(DAMAGE))
def test_check_reports_a_damaged_index(runner, tmp_path, how):
    store = _damage(runner, tmp_path, how)
    r = runner.invoke(app, ["--store", str(store), "index", "--check"])
    assert r.exit_code == 1, r.output
    assert "damaged" in r.output and "internal error" not in r.output


@pytest.mark.parametrize("how", list(DAMAGE))
@pytest.mark.parametrize(
    "args",
    [
        ["list", "-f", "jsonl"],
        ["search", "message"],
        ["query", "speaker:Alice", "-f", "jsonl"],
        ["index"],
    ],
)
def test_commands_work_past_a_damaged_index(runner, tmp_path, how, args):
    store = _damage(runner, tmp_path, how)
    r = runner.invoke(app, ["--store", str(store), *args])
    assert r.exit_code == 0, r.output
    assert "internal error" not in r.output


@pytest.mark.parametrize("how", list(DAMAGE))
def test_a_save_rebuilds_a_damaged_index(runner, tmp_path, how):
    store = _damage(runner, tmp_path, how)
    (tmp_path / "a.vtt").write_text(VTT)
    r = runner.invoke(app, ["ingest", "--store", str(store), str(tmp_path / "a.vtt"), "--save"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["--store", str(store), "index", "--check"])
    assert r.exit_code == 0, r.output
