"""The store: dedup, locking across processes, torn tails, SIGKILL at any moment."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson

from convo.core.jsonl import dumps
from convo.store import Store, default_store_path


def _line(i: int, tag: str = "") -> tuple[str, bytes]:
    rid = f"id-{i}"
    rec = {"textChunks": [f"message {i} {tag}" + "x" * (i % 50)], "metadata": {"speaker": "A", "listeners": []},
           "tags": [], "timestamp": "2024-01-01T00:00:00Z", "source_id": "t#1", "id": rid, "format": "t"}  # fmt: skip
    return rid, dumps(rec)


def _ids(path: Path) -> list[str]:
    return [orjson.loads(x)["id"] for x in path.read_bytes().splitlines() if x.strip()]


def test_default_path(monkeypatch, tmp_path):
    monkeypatch.delenv("CONVO_STORE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_store_path() == tmp_path / "convo" / "messages.jsonl"
    monkeypatch.setenv("CONVO_STORE", "/x/y.jsonl")
    assert default_store_path() == Path("/x/y.jsonl")
    assert default_store_path("/a/b.jsonl") == Path("/a/b.jsonl")


def test_append_skips_known_ids(tmp_path):
    st = Store(tmp_path / "s.jsonl")
    r1 = st.append(_line(i) for i in range(5))
    r2 = st.append(_line(i) for i in range(3, 8))
    assert (r1.added, r1.duplicates) == (5, 0)
    assert (r2.added, r2.duplicates) == (3, 2)
    assert _ids(st.path) == [f"id-{i}" for i in range(8)]


def test_duplicates_within_one_batch(tmp_path):
    st = Store(tmp_path / "s.jsonl")
    r = st.append([_line(1), _line(1), _line(2)])
    assert (r.added, r.duplicates) == (2, 1)


def test_torn_tail_moved_aside_and_reported(tmp_path):
    st = Store(tmp_path / "s.jsonl")
    st.append(_line(i) for i in range(2))
    with open(st.path, "ab") as f:
        f.write(b'{"textChunks": ["half')
    r = st.append([_line(9)])
    assert r.torn_bytes == len(b'{"textChunks": ["half')
    assert "torn" in r.notes[0]
    assert _ids(st.path) == ["id-0", "id-1", "id-9"]
    assert Path(str(st.path) + ".torn").read_bytes().startswith(b'{"textChunks": ["half')


def _append_worker(path: str, start: int, n: int) -> None:
    st = Store(path)
    for k in range(0, n, 10):
        st.append(_line(i, "w") for i in range(start + k, start + k + 10))


def test_concurrent_appends_never_interleave(tmp_path):
    path = str(tmp_path / "s.jsonl")
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_append_worker, args=(path, w * 1000, 200)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    ids = _ids(Path(path))  # every line parses
    assert len(ids) == 800 == len(set(ids))


def test_concurrent_appends_of_same_ids_add_once(tmp_path):
    path = str(tmp_path / "s.jsonl")
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_append_worker, args=(path, 0, 100)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert sorted(_ids(Path(path))) == sorted(f"id-{i}" for i in range(100))


def test_sigkill_during_ingest_never_leaves_a_partial_record(tmp_path):
    """Kill `convo ingest --save` at random moments; the store stays readable, at most a torn
    last line remains (reported by readers), and the next ingest repairs it and adds the rest."""
    src = tmp_path / "big.jsonl"
    with open(src, "wb") as f:
        for i in range(20000):
            f.write(_line(i)[1])
    store = tmp_path / "store.jsonl"
    convo = [sys.executable, "-m", "convo"]
    env = {**os.environ, "CONVO_STORE": str(store)}
    rng = random.Random(7)
    for _ in range(6):
        p = subprocess.Popen([*convo, "ingest", "--save", "--quiet", str(src)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        time.sleep(rng.uniform(0.05, 1.2))
        p.send_signal(signal.SIGKILL)
        p.wait()
        if store.exists():
            lines = store.read_bytes().split(b"\n")
            for raw in lines[:-1]:  # every complete line is a whole record
                assert orjson.loads(raw)["id"].startswith("id-")
    done = subprocess.run(
        [*convo, "ingest", "--save", str(src)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    ids = _ids(store)
    assert len(ids) == len(set(ids)) == 20000


def test_idset_behaves_like_a_set():
    from convo.core.idset import IdSet

    ids = IdSet(capacity=4)
    ref: set[str] = set()
    for i in range(5000):
        rid = f"<{i % 3700}@x>"
        assert ids.add(rid) == (rid not in ref)
        ref.add(rid)
    assert len(ids) == len(ref) == 3700
    assert "<5@x>" in ids and "<nope@x>" not in ids
