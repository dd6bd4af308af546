"""Issue 20 items 5 and 6 and issue 13 on the store: an append is all or nothing (Ctrl-C, a
full disk), OS failures name the store, a waiting writer is told who holds the lock and can
give up, readers never see a live writer's unfinished line as torn, and the store holds
only what ``convo validate`` accepts."""

from __future__ import annotations

import errno
import fcntl
import os
import threading
import time
from pathlib import Path

import orjson
import pytest

from conftest import SAMPLE_DATA
from convo.cli.app import app
from convo.core import lock as store_lock
from convo.core.errors import InputError, RecordError
from convo.core.io import open_binary
from convo.core.jsonl import committed_end, iter_lines, lock_path, writer_active
from convo.core.record import ConversationMessage, ConversationMessageMeta
from convo.store import Store
from convo.store import append as store_mod

VTT = SAMPLE_DATA / "transcripts" / "standup.vtt"


def _rec(i: int, **over) -> dict:
    rec = {"textChunks": [f"message {i}"], "metadata": {"speaker": "A", "listeners": []},
           "tags": [], "timestamp": "2024-01-01T00:00:00Z", "source_id": "t#1", "id": f"id-{i}",
           "format": "t"}  # fmt: skip
    return {**rec, **over}


def _item(i: int, **over) -> tuple[str, bytes]:
    rec = _rec(i, **over)
    return rec["id"], orjson.dumps(rec) + b"\n"


def test_ctrl_c_during_an_append_leaves_the_store_as_it_was(tmp_path, monkeypatch):
    st = Store(tmp_path / "s.jsonl")
    st.append(_item(i) for i in range(3))
    before = st.path.read_bytes()
    os.utime(st.path, ns=(1_000_000_000, 1_000_000_000))  # a time no write can leave
    monkeypatch.setattr(store_mod, "BATCH_BYTES", 200)  # several batches are written

    def items():
        for i in range(10, 40):
            yield _item(i)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        st.append(items())
    assert st.path.read_bytes() == before
    # Its time too: the index takes the same size with another time for an edit (rebuilds).
    assert st.path.stat().st_mtime_ns == 1_000_000_000
    assert st.append(_item(i) for i in range(10, 40)).added == 30  # a re-run completes it


def test_a_full_disk_names_the_store_and_appends_nothing(tmp_path, monkeypatch):
    st = Store(tmp_path / "s.jsonl")
    st.append([_item(0)])
    before = st.path.read_bytes()

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_mod.os, "write", full)
    with pytest.raises(InputError) as e:
        st.append(_item(i) for i in range(1, 5))
    assert str(e.value).startswith(f"{st.path}: no space left on device; nothing was appended")
    monkeypatch.undo()
    assert st.path.read_bytes() == before


def test_a_read_only_store_is_a_located_error(runner, tmp_path, monkeypatch):
    path = tmp_path / "s.jsonl"
    path.touch()
    real_open = os.open

    def read_only(p, flags, *a):
        if Path(p) == path and flags & (os.O_WRONLY | os.O_RDWR):
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(p, flags, *a)

    monkeypatch.setattr(store_mod.os, "open", read_only)
    r = runner.invoke(app, ["--store", str(path), "ingest", "--save", str(VTT)])
    assert r.exit_code == 2, r.output
    assert f"convo: error: {path}: read-only file system" in r.stderr
    assert "internal error" not in r.stderr


def test_dangling_and_looping_store_links_are_located_errors(runner, tmp_path):
    dangling = tmp_path / "d.jsonl"
    dangling.symlink_to(tmp_path / "missing" / "x.jsonl")
    r = runner.invoke(app, ["--store", str(dangling), "ingest", "--save", str(VTT)])
    assert r.exit_code == 2 and f"{dangling}: the store is a dangling symbolic link" in r.stderr
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    for args in (["ingest", "--save", str(VTT)], ["list"]):
        r = runner.invoke(app, ["--store", str(loop), *args], env={"CONVO_NO_STDIN": "1"})
        assert r.exit_code == 2 and f"{loop}: symbolic link loop" in r.stderr, r.output
        assert "internal error" not in r.stderr


def _hold_lock(path: Path, ready: threading.Event, release: threading.Event) -> None:
    with store_lock.hold(path, str(path)):
        ready.set()
        release.wait(10)


def test_a_waiting_writer_is_told_who_holds_the_lock_and_can_give_up(tmp_path):
    st = Store(tmp_path / "s.jsonl")
    ready, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold_lock, args=(st.real, ready, release), daemon=True)
    holder.start()
    ready.wait(5)
    told: list[str] = []
    t0 = time.monotonic()
    with pytest.raises(InputError) as e:
        st.append([_item(1)], wait=1.3, on_wait=told.append)
    assert 1.2 < time.monotonic() - t0 < 5
    assert f"the store is locked by pid {os.getpid()}" in str(e.value)
    assert len(told) == 1 and f"held by pid {os.getpid()}" in told[0]
    release.set()
    holder.join(5)
    assert st.append([_item(1)], wait=1).added == 1
    assert lock_path(st.real).read_bytes() == b""  # a released lock names nobody


def test_a_reader_during_a_live_append_never_sees_a_torn_line(tmp_path):
    st = Store(tmp_path / "s.jsonl")
    st.append(_item(i) for i in range(3))
    ready, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold_lock, args=(st.real, ready, release), daemon=True)
    holder.start()
    ready.wait(5)
    with open(st.path, "ab") as f:  # the writer is half-way through a line
        f.write(b'{"textChunks": ["half')
    assert writer_active(st.real)
    with open_binary(st.path) as f:
        lines = list(iter_lines(f))
    assert [ln.torn for ln in lines] == [False] * 3
    release.set()
    holder.join(5)
    assert not writer_active(st.real)
    with open_binary(st.path) as f:  # no writer any more: a real torn line, reported as such
        assert list(iter_lines(f))[-1].torn


def test_committed_end_when_the_file_grew_meanwhile(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a": 1}\n{"b"')
    with open(p, "rb") as f:
        assert committed_end(f, p) is None  # no writer: read it all (torn is reported)
        fd = os.open(lock_path(p), os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            assert committed_end(f, p) == 9
        finally:
            os.close(fd)


@pytest.mark.parametrize(
    "over",
    [
        {"textChunks": []},
        {"timestamp": "2024-01-01T02:00:00+02:00"},
        {"textChunks": "x"},
        {"metadata": {"speaker": "A"}},
        {"id": 7},
    ],
)
def test_the_store_refuses_what_validate_rejects(tmp_path, over):
    st = Store(tmp_path / "s.jsonl")
    st.append([_item(0)])
    with pytest.raises(RecordError, match=r"record 2 of the append"):
        st.append([_item(1), _item(2, **over), _item(3)])
    assert [orjson.loads(x)["id"] for x in st.path.read_bytes().splitlines()] == ["id-0"]


def test_append_messages_checks_each_message(tmp_path):
    st = Store(tmp_path / "s.jsonl")
    meta = ConversationMessageMeta(speaker="A", listeners=[])
    good = ConversationMessage(text_chunks=["hi"], metadata=meta, id="g", format="t",
                               source_id="s#1", timestamp="2024-01-01T02:00:00+02:00")  # fmt: skip
    empty = ConversationMessage(text_chunks=[], metadata=meta, id="e", format="t", source_id="s#2")
    with pytest.raises(RecordError, match="textChunks is empty"):
        st.append_messages([good, empty])
    assert not st.path.exists() or st.path.read_bytes() == b""
    assert st.append_messages([good]).added == 1
    assert orjson.loads(st.path.read_bytes())["timestamp"] == "2024-01-01T00:00:00Z"


def test_the_store_after_an_ingest_validates(runner, tmp_path):
    store = tmp_path / "s.jsonl"
    r = runner.invoke(app, ["--store", str(store), "ingest", "--save", str(SAMPLE_DATA), "--quiet"])
    assert r.exit_code in (0, 1), r.output
    v = runner.invoke(app, ["--store", str(store), "validate"], env={"CONVO_NO_STDIN": "1"})
    assert v.exit_code == 0, v.output


@pytest.mark.parametrize("args", [["list", "-f", "jsonl"], ["validate"], ["query", "-f", "jsonl"]])
def test_read_commands_during_a_live_append_report_nothing_torn(runner, tmp_path, args):
    st = Store(tmp_path / "s.jsonl")
    st.append(_item(i) for i in range(3))
    ready, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold_lock, args=(st.real, ready, release), daemon=True)
    holder.start()
    ready.wait(5)
    try:
        with open(st.path, "ab") as f:
            f.write(b'{"textChunks": ["half')
        r = runner.invoke(app, ["--store", str(st.path), *args], env={"CONVO_NO_STDIN": "1"})
    finally:
        release.set()
        holder.join(5)
    assert r.exit_code == 0, r.output
    assert "truncated" not in r.stderr and "torn" not in r.stderr
