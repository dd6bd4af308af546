"""An edit in place that keeps the store's size and puts its mtime back (``touch -r``,
``os.utime``, a sync tool keeping times) was answered from the old rows: the index took
same inode + size + mtime for "nothing changed". Its ctime, which no user can set back,
is now part of that test (``index.state.freshness``), read from the ``fstat`` the check
already makes; convo's own writes record the ctime they leave, so they cost no rebuild."""

from __future__ import annotations

import errno
import os
import time

import orjson
import pytest
from tests.index.helpers import rec, write_store

from convo.cli.app import app
from convo.core.errors import InputError
from convo.index import check, refresh, status
from convo.index.schema import index_file
from convo.index.state import freshness, read_meta
from convo.store import Store
from convo.store import append as append_mod


def _line(i: int) -> bytes:
    """A whole record's line, as a save takes it."""
    r = {**rec(i), "source_id": f"x#{i}", "metadata": {"speaker": "A", "listeners": []}}
    return orjson.dumps(r) + b"\n"


@pytest.fixture
def store(tmp_path):
    return write_store(
        tmp_path / "s.jsonl", [rec(i, tags=["urgent"] if i == 5 else []) for i in range(10)]
    )


def _edit_keeping_size_and_time(path, old: bytes, new: bytes) -> None:
    assert len(old) == len(new)
    st = path.stat()
    time.sleep(0.01)  # the ctime moves on (file times are coarser than a nanosecond)
    with open(path, "r+b") as f:
        data = f.read()
        f.seek(data.index(old))
        f.write(new)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        st.st_size,
        st.st_mtime_ns,
        st.st_ino,
    )


def test_an_edit_keeping_size_and_mtime_is_stale(store):
    refresh(store)
    assert status(store).fresh
    _edit_keeping_size_and_time(store, b'"urgent"', b'"sorted"')
    current = status(store)
    assert current.state == "rebuild" and "changed in place" in current.reason
    refresh(store)
    assert status(store).fresh and check(store).ok


def test_a_query_does_not_answer_from_the_old_rows(store, runner):
    r = runner.invoke(app, ["--store", str(store), "index"])
    assert r.exit_code == 0, r.output
    ask = ["--store", str(store), "query", "tag:urgent", "-f", "jsonl"]
    assert [orjson.loads(x)["id"] for x in runner.invoke(app, ask).stdout.splitlines()] == ["m5"]
    _edit_keeping_size_and_time(store, b'"urgent"', b'"sorted"')
    r = runner.invoke(app, ask)
    assert r.exit_code == 0 and r.stdout == "", r.output  # not m5 from the index's tag row
    r = runner.invoke(app, [*ask[:3], "tag:sorted", "-f", "jsonl"])
    assert [orjson.loads(x)["id"] for x in r.stdout.splitlines()] == ["m5"]


def test_convos_own_rewrites_and_saves_leave_the_index_fresh(store):
    refresh(store)
    st = Store(store)
    st.tag(None, add=["seen"], ids=["m1"])  # a rewrite: a rename moves the ctime
    assert status(store).fresh
    st.append([("m42", _line(42))])
    assert status(store).fresh
    assert check(store).ok


def test_a_failed_save_cut_back_leaves_the_index_fresh(store, monkeypatch):
    st = Store(store)
    st.append([("m40", _line(40))])
    assert status(store).fresh

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(append_mod.os, "write", full)
    with pytest.raises(InputError):
        st.append([("m41", _line(41))])
    monkeypatch.undo()
    assert status(store).fresh  # the cut moved the ctime alone: recorded, no rebuild


def test_the_check_costs_no_more_than_the_stat_it_had(store):
    """The indexed read's freshness check: one ``fstat``, as before, and a comparison."""
    refresh(store)
    meta = read_meta(index_file(store))
    assert meta is not None and "store_ctime_ns" in meta
    calls = []
    real = os.fstat
    with open(store, "rb") as f:
        os.fstat = lambda fd: calls.append(fd) or real(fd)  # type: ignore[assignment]
        try:
            assert freshness(meta, f) == ("fresh", "")
        finally:
            os.fstat = real  # type: ignore[assignment]
    assert len(calls) == 1


def test_an_index_made_before_the_ctime_was_kept_is_still_fresh(store):
    refresh(store)
    meta = read_meta(index_file(store))
    assert meta is not None
    del meta["store_ctime_ns"]
    with open(store, "rb") as f:
        assert freshness(meta, f) == ("fresh", "")
