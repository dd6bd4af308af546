"""A save is all-or-nothing under kill -9 too (``convo.core.journal``).

A child runs ``convo ingest --save`` and is killed: at chosen steps (it signals its own
process there), at random moments, and while a reader waits. Afterwards a reader that takes
no lock sees the store as it was before the save, or with the whole save; the next holder of
the lock (a save, ``convo index``, a read that brings the index up to date) cuts an
unfinished save back and says so; the index then matches the store.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orjson
import pytest

from convo.core import journal
from convo.core.io import open_binary
from convo.index import check, refresh, status
from convo.store import Store

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import os, signal, sys, time
from convo.core import journal
from convo.store import append, dedup
from convo.index import build

store, src, step = sys.argv[1:4]
kill = lambda: os.kill(os.getpid(), signal.SIGKILL)
append.BATCH_BYTES = int(os.environ.get("BATCH", "16384"))
calls = []

def patch(module, name, before=None, after=None):
    real = getattr(module, name)
    def wrapped(*args, **kwargs):
        calls.append(name)
        if before is not None:
            before(*args)
        out = real(*args, **kwargs)
        if after is not None:
            after(*args)
        return out
    setattr(module, name, wrapped)

def half_second_batch(fd, data):
    if calls.count("_write_all") == 2:
        os.write(fd, data[: len(data) // 2 + 7])  # whole lines and half of one
        kill()

def pause_after_first(fd, data):
    if calls.count("_write_all") == 1:
        open(os.environ["READY"], "w").close()
        time.sleep(600)

if step == "journal-written":
    patch(journal, "begin", after=lambda *a: kill())
elif step == "mid-save":
    patch(append, "_write_all", before=half_second_batch)
elif step == "all-written":
    patch(journal, "end", before=lambda *a: kill())
elif step == "before-index":
    patch(dedup, "after_append", before=lambda *a: kill())
elif step == "mid-index":
    patch(build, "_finish", after=lambda *a: kill())
elif step == "tell-begin":
    patch(journal, "begin", after=lambda *a: open(os.environ["READY"], "w").close())
elif step == "paused":
    patch(append, "_write_all", after=pause_after_first)
sys.argv = ["convo", "--store", store, "ingest", "--save", "--quiet", "-j", "1", src]
from convo.cli.app import main
main()
"""


def _rec(i: int) -> bytes:
    r = {"id": f"m{i}", "timestamp": f"2024-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z",
         "textChunks": [f"message {i} " + "x" * (i % 50)], "tags": ["t"] if i % 3 else [],
         "metadata": {"speaker": f"p{i % 7}", "listeners": []}, "format": "slack",
         "source_id": f"src#{i}"}  # fmt: skip
    return orjson.dumps(r) + b"\n"


def _source(path: Path, start: int, n: int) -> Path:
    path.write_bytes(b"".join(_rec(i) for i in range(start, start + n)))
    return path


def _convo(*args: str, code: str | None = None, env: dict[str, str] | None = None):
    cmd = [sys.executable, "-c", textwrap.dedent(code)] if code else [sys.executable, "-m", "convo"]
    full = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})}
    return subprocess.run([*cmd, *args], env=full, capture_output=True, text=True, timeout=300)


def _ids(data: bytes) -> list[str]:
    return [orjson.loads(x)["id"] for x in data.splitlines()]


def _seen(store: Path) -> bytes:
    """What a reader that takes no lock reads (the scan's open)."""
    with open_binary(store, snapshot=True) as f:
        return f.read()


def _count(store: Path, **env: str) -> str:
    done = _convo("--store", str(store), "query", "--count", env=env)
    said = [x for x in done.stderr.splitlines() if not x.startswith("convo: note: index not")]
    assert done.returncode == 0 and said == [], done.stderr  # no torn line, no warning
    return done.stdout.strip()


def _saved(tmp: Path, indexed: bool) -> tuple[Path, bytes]:
    store = tmp / "store.jsonl"
    first = _source(tmp / "first.jsonl", 0, 200)
    assert _convo("--store", str(store), "ingest", "--save", "--quiet", str(first)).returncode == 0
    if indexed:
        assert _convo("--store", str(store), "index").returncode == 0
        assert status(store).fresh
    return store, store.read_bytes()


UNDONE = ["journal-written", "mid-save", "all-written"]
KEPT = ["before-index", "mid-index"]


# Every step with and without an index, except inside an index update (only with one).
STEPS = [
    pytest.param(step, indexed, id=f"{step}-{'indexed' if indexed else 'no-index'}")
    for indexed in (False, True)
    for step in UNDONE + KEPT
    if indexed or step != "mid-index"
]


@pytest.mark.parametrize(("step", "indexed"), STEPS)
def test_a_save_killed_at_each_step_is_whole_or_absent(tmp_path, step, indexed):
    store, before = _saved(tmp_path, indexed)
    src = _source(tmp_path / "big.jsonl", 150, 1500)  # m150..m199 are stored already
    whole = _ids(before) + [f"m{i}" for i in range(200, 1650)]
    killed = _convo(str(store), str(src), step, code=CHILD)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    on_disk = store.read_bytes()
    if step in UNDONE:
        assert Path(journal.journal_path(store)).exists()
        assert on_disk.startswith(before) and (on_disk != before) == (step != "journal-written")
        assert _seen(store) == before  # the unfinished save is not read
        assert _count(store, CONVO_NO_INDEX="1") == "200"
    else:
        assert _ids(on_disk) == whole and not Path(journal.journal_path(store)).exists()
        assert _seen(store) == on_disk
    # the next save takes the lock: an unfinished save is undone first, and said
    small = _source(tmp_path / "small.jsonl", 5000, 3)
    again = _convo("--store", str(store), "ingest", "--save", str(small))
    assert again.returncode == 0, again.stderr
    undone = step in ("mid-save", "all-written")
    assert ("an interrupted save" in again.stderr) == undone, again.stderr
    expected = (_ids(before) if step in UNDONE else whole) + ["m5000", "m5001", "m5002"]
    assert _ids(store.read_bytes()) == expected
    assert not Path(journal.journal_path(store)).exists()
    assert not Path(f"{store}.torn").exists()
    if indexed:  # followed by the save, never rebuilt for the undone bytes
        assert status(store).fresh and check(store).ok
    assert _count(store) == str(len(expected))


@pytest.mark.parametrize("via", ["index", "read"])
def test_a_reader_waits_for_nothing_and_the_next_lock_holder_undoes_the_killed_save(tmp_path, via):
    """A save paused after its first batch: readers see the store as it was; killed, the
    same; then ``convo index`` (or a read that updates the index) undoes it."""
    store, before = _saved(tmp_path, indexed=True)
    src = _source(tmp_path / "big.jsonl", 200, 2000)
    ready = tmp_path / "ready"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "READY": str(ready)}
    code = textwrap.dedent(CHILD)
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(store), str(src), "paused"], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not ready.exists():
            assert child.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        assert len(store.read_bytes()) > len(before)  # the first batch is on disk
        assert _seen(store) == before
        assert _count(store) == "200"  # through the scan: the index waits for the writer
        assert Store(store).count() == 200
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert _seen(store) == before
    if via == "index":
        done = _convo("--store", str(store), "index")
        assert done.returncode == 0 and "an interrupted save (pid" in done.stderr, done.stderr
    else:
        assert _count(store) == "200"  # brings the index up to date: takes the lock
    assert store.read_bytes() == before
    assert status(store).fresh and check(store).ok  # the undo gave the store its time back


@pytest.mark.slow
def test_a_save_killed_at_random_moments_is_whole_or_absent(tmp_path):
    """Killed at a random moment after its journal is written (it says so by a file):
    during the batches, between them and the index update, or after it ended."""
    store, before = _saved(tmp_path, indexed=True)
    rnd = random.Random(6)
    start, undone = 1000, 0
    for attempt in range(8):
        n = 3000
        src = _source(tmp_path / f"src-{attempt}.jsonl", start, n)
        whole = _ids(before) + [f"m{i}" for i in range(start, start + n)]
        ready = tmp_path / f"ready-{attempt}"
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "BATCH": "8192", "READY": str(ready)}
        child = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(CHILD), str(store), str(src), "tell-begin"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while not ready.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rnd.uniform(0.0, 1.2))
        child.send_signal(signal.SIGKILL)
        child.wait()
        undone += Path(journal.journal_path(store)).exists()
        seen = _seen(store)
        assert _ids(seen) in (_ids(before), whole), f"attempt {attempt}: a part of a save was read"
        refresh(store, wait=True)  # a reader that takes the lock
        now = store.read_bytes()
        assert now == seen, f"attempt {attempt}: a part of a save stayed"
        assert status(store).fresh and check(store).ok, f"attempt {attempt}"
        before = now
        start += n
    assert undone, "no attempt was killed during its save"


def test_a_save_that_fails_part_way_leaves_no_journal(tmp_path):
    from convo.store import append

    store = tmp_path / "s.jsonl"
    Store(store).append([(f"m{i}", _rec(i)) for i in range(3)])
    before = store.read_bytes()

    def items():
        for i in range(3, 2000):
            yield f"m{i}", _rec(i)
        raise KeyboardInterrupt

    real = append.BATCH_BYTES
    append.BATCH_BYTES = 4096
    try:
        with pytest.raises(KeyboardInterrupt):
            Store(store).append(items())
    finally:
        append.BATCH_BYTES = real
    assert store.read_bytes() == before
    assert not Path(journal.journal_path(store)).exists()


def test_a_save_of_known_ids_only_writes_no_journal(tmp_path, monkeypatch):
    store = tmp_path / "s.jsonl"
    Store(store).append([(f"m{i}", _rec(i)) for i in range(3)])
    begun = []
    monkeypatch.setattr(journal, "begin", lambda *a: begun.append(a))
    result = Store(store).append([(f"m{i}", _rec(i)) for i in range(3)])
    assert (result.added, result.duplicates, begun) == (0, 3, [])


def test_a_journal_cut_short_or_of_another_file_is_dropped_and_nothing_cut(tmp_path):
    """A journal its writer died writing (nothing appended yet), and one naming another
    inode (the store replaced since): removed by the next lock holder, the store kept."""
    store = tmp_path / "s.jsonl"
    Store(store).append([(f"m{i}", _rec(i)) for i in range(3)])
    data = store.read_bytes()
    jpath = Path(journal.journal_path(store))
    jpath.write_bytes(b"convo-append-journal 1 pid=1 dev=1 ino=")
    assert _seen(store) == data
    Store(store).append([("m9", _rec(9))])
    assert not jpath.exists() and store.read_bytes() == data + _rec(9)
    st = os.stat(store)
    journal.begin(store, st)  # the store as it is now ...
    replaced = tmp_path / "new.jsonl"
    replaced.write_bytes(data + _rec(9) + _rec(10))
    os.replace(replaced, store)  # ... then another file renamed over it
    assert _seen(store) == data + _rec(9) + _rec(10)  # not this file's journal
    assert journal.recover(store) == "" and not jpath.exists()
    assert store.read_bytes() == data + _rec(9) + _rec(10)


def test_recover_undoes_and_gives_back_the_time(tmp_path):
    store = tmp_path / "s.jsonl"
    store.write_bytes(_rec(1))
    os.utime(store, ns=(1_000_000_000, 2_000_000_000))
    journal.begin(store, os.stat(store))
    with open(store, "ab") as f:
        f.write(_rec(2) + b'{"id": "m3", "te')
    assert _seen(store) == _rec(1)
    said = journal.recover(store)
    assert said.startswith(f"an interrupted save (pid {os.getpid()}") and "bytes" in said
    assert store.read_bytes() == _rec(1) and os.stat(store).st_mtime_ns == 2_000_000_000
    assert journal.recover(store) == ""


def test_a_store_named_by_a_link_is_read_up_to_its_journal(tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_bytes(_rec(1))
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    journal.begin(real, os.stat(real))  # the writer resolves the link
    with open(real, "ab") as f:
        f.write(_rec(2))
    assert _seen(link) == _rec(1)
    journal.end(real)
    assert _seen(link) == _rec(1) + _rec(2)


@pytest.mark.parametrize("cores", [False, True], ids=["one-core", "several"])
def test_the_scans_stop_where_the_journal_says(tmp_path, monkeypatch, cores):
    """The query scan, on one core and cut into ranges for several, reads none of an
    unfinished save (nor reports its half line as torn)."""
    from convo.pipeline.inputs import RawFile
    from convo.query import parallel
    from convo.query.filters import Filters
    from convo.query.scan import Selector

    monkeypatch.setattr(parallel, "RANGE", 4_000)  # many ranges on a small file
    store = tmp_path / "s.jsonl"
    store.write_bytes(b"".join(_rec(i) for i in range(300)))
    journal.begin(store, os.stat(store))
    with open(store, "ab") as f:
        f.write(b"".join(_rec(i) for i in range(300, 400)) + b'{"id": "m4')
    sel = Selector(Filters())
    sel.parallel = 1 if cores else None
    errors: list = []
    batches = sel.batches([RawFile(str(store))], lambda e, line: errors.append(e), False)
    got = [orjson.loads(m.raw)["id"] for batch in batches for m in batch]
    assert got == [f"m{i}" for i in range(300)] and errors == []


@pytest.mark.parametrize("command", [["compact"], ["tag", "+seen", "--", "from:p1"]])
def test_a_rewrite_undoes_a_killed_save_first_and_says_so(tmp_path, command):
    store, before = _saved(tmp_path, indexed=True)
    src = _source(tmp_path / "big.jsonl", 200, 1500)
    killed = _convo(str(store), str(src), "mid-save", code=CHILD)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    done = _convo("--store", str(store), *command)
    assert done.returncode == 0 and "an interrupted save (pid" in done.stderr, done.stderr
    assert _ids(store.read_bytes()) == _ids(before)
    assert status(store).fresh and check(store).ok
