"""``--store`` naming a file that is no store (a gzipped export, an SQLite database):
a save refused it already; ``compact`` rewrote it as an empty store, its "lines" moved
to ``.torn`` without the blank ones (a gzip file no longer whole), and ``rm``/``tag``
read it as lines. Each now refuses it in one line and leaves it byte for byte."""

from __future__ import annotations

import gzip
import sqlite3

import pytest

from convo.cli.app import app
from convo.store import Store

from .helpers import write_store


def _gzip(tmp_path):
    plain = write_store(tmp_path / "plain.jsonl", 50)
    path = tmp_path / "store.jsonl"
    path.write_bytes(gzip.compress(plain.read_bytes() + b"\n\n \n" * 20))
    return path


def _sqlite(tmp_path):
    path = tmp_path / "store.jsonl"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.executemany("INSERT INTO t VALUES (?)", [("\n\n" * 50,)] * 20)
    conn.close()
    return path


@pytest.mark.parametrize("make", [_gzip, _sqlite])
@pytest.mark.parametrize("args", [["compact"], ["rm", "id:m1"], ["tag", "add", "x", "id:m1"]])
def test_a_rewrite_of_a_file_that_is_no_store_leaves_it(runner, tmp_path, make, args):
    """compact is refused; rm and tag find no record in it, and change nothing."""
    path = make(tmp_path)
    before = path.read_bytes()
    r = runner.invoke(app, ["--store", str(path), *args])
    if args == ["compact"]:
        assert r.exit_code == 2, r.output
        assert "not a convo store: the file does not begin with a JSON record" in r.output
        assert "nothing was changed" in r.output
    assert "internal error" not in r.output
    assert path.read_bytes() == before
    assert not (tmp_path / "store.jsonl.torn").exists()


def test_the_store_api_refuses_it_too(tmp_path):
    from convo.core.errors import InputError

    path = _gzip(tmp_path)
    before = path.read_bytes()
    with pytest.raises(InputError, match="not a convo store"):
        Store(path).compact()
    assert path.read_bytes() == before


def test_a_store_whose_first_line_is_damaged_is_still_one(runner, tmp_path):
    """A damaged first line before records: a store, which compact mends (a save was
    refused as 'not a convo store', and compact is what mends it)."""
    path = tmp_path / "store.jsonl"
    path.write_bytes(b"\x00\x17garbage\n" + write_store(tmp_path / "p.jsonl", 3).read_bytes())
    more = write_store(tmp_path / "more.jsonl", 5)
    r = runner.invoke(app, ["--store", str(path), "ingest", "--save", str(more)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["--store", str(path), "compact"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "store.jsonl.torn").read_bytes() == b"\x00\x17garbage\n"
    assert path.read_bytes().startswith(b"{")
