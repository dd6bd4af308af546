"""§5: a rewrite (tag, rm, compact), a save, an index update and an embed that meet a
full disk are one located line each, and leave the store, its index and its vectors whole:
as they were, or with what was committed, and ``index --check`` / ``embed --check``
agree or say what to do. The disk fills through RLIMIT_FSIZE (EFBIG), in a child."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from .helpers import record, write_store

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _small_files(limit: int = 200_000) -> Callable[[], None]:
    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails: EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return limited


def _convo(cwd: Path, *args: str, limit: int | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "convo", "--store", "s.jsonl", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        preexec_fn=None if limit is None else _small_files(limit),
        timeout=120,
    )


@pytest.mark.parametrize(
    "command",
    [["tag", "add", "x", "--speaker", "Alice"], ["rm", "id:m1"], ["compact"]],
)
def test_a_full_disk_during_a_rewrite(tmp_path, command):
    store = write_store(tmp_path / "s.jsonl", 3000)
    with store.open("ab") as f:
        f.write(b"junk for compact\n")
    before = store.read_bytes()
    assert len(before) > 400_000
    proc = subprocess.run(
        [sys.executable, "-m", "convo", "--store", str(store), *command],
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        preexec_fn=_small_files(),
        timeout=60,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{store}: file too large; nothing was changed" in err
    assert store.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".s.jsonl.lock", "s.jsonl"]


@pytest.fixture
def saved(tmp_path) -> Path:
    """An indexed store of 1,500 records (258 kB; index 373 kB) and 1,500 more to save
    (261 kB: the store grows to 519 kB, its index to 668 kB)."""
    write_store(tmp_path / "s.jsonl", 1500)
    new = write_store(tmp_path / "new.jsonl", 3000)
    new.write_bytes(b"".join(new.read_bytes().splitlines(keepends=True)[1500:]))
    assert _convo(tmp_path, "index").returncode == 0
    return tmp_path


def _one_line(proc: subprocess.CompletedProcess, code: int) -> str:
    err = proc.stderr.decode()
    assert proc.returncode == code, err
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err, err
    return err


@pytest.mark.parametrize("limit", [100_000, 400_000], ids=["spool", "store"])
def test_a_full_disk_during_a_save_appends_nothing_and_the_index_still_matches(saved, limit):
    """At 100 kB the spool beside the store fills (its close flushed again and raised a bare
    OSError: an internal error); at 400 kB the store itself, cut back to where it began,
    its time restored: the index still matches it (it took the store for edited and
    rebuilt)."""
    before = (saved / "s.jsonl").read_bytes()
    err = _one_line(_convo(saved, "ingest", "new.jsonl", "--save", limit=limit), 2)
    assert "s.jsonl: file too large; nothing was appended" in err
    assert (saved / "s.jsonl").read_bytes() == before
    check = _convo(saved, "index", "--check")
    assert check.returncode == 0, check.stderr
    assert sorted(p.name for p in saved.iterdir()) == [
        ".s.jsonl.lock", "new.jsonl", "s.jsonl", "s.jsonl.index.sqlite"
    ]  # fmt: skip


def test_an_index_the_disk_cannot_hold_is_said_and_caught_up(saved):
    """The store takes the records and the index cannot grow past 600 kB: the save says
    so, ``index --check`` says what to do, and that mends it."""
    save = _convo(saved, "ingest", "new.jsonl", "--save", limit=600_000)
    err = _one_line(save, 0)
    assert "new 1500" in err and "cannot update the index" in err, err
    assert "the next command that reads the store updates it" in err
    assert len((saved / "s.jsonl").read_bytes().splitlines()) == 3000
    check = _convo(saved, "index", "--check")
    assert check.returncode == 1
    last = check.stderr.decode().splitlines()[-1]
    assert last.startswith("convo: index does not match the store (")
    assert last.endswith("; `convo index` brings it up to date")
    assert _convo(saved, "index").returncode == 0
    assert _convo(saved, "index", "--check").returncode == 0


def test_a_full_disk_during_an_embed_keeps_what_was_embedded(tmp_path):
    """The vectors file stops growing at 2.5 MB, past the first batch of 2,048 rows of 256
    float32 (2 MB) and before the second: one located line (it was an internal error),
    the committed batch kept; ``--check`` says to run ``convo embed``, which embeds the
    rest only."""
    write_store(tmp_path / "s.jsonl", 3000)
    err = _one_line(_convo(tmp_path, "embed", limit=2_500_000), 2)
    assert "s.jsonl.vectors: file too large; what was embedded is kept" in err
    check = _convo(tmp_path, "embed", "--check")
    assert check.returncode == 1 and "run `convo embed`" in check.stderr.decode()
    again = _convo(tmp_path, "embed")
    assert again.returncode == 0
    assert "embedded 952 new" in again.stderr.decode() and "2048 unchanged" in again.stderr.decode()
    assert _convo(tmp_path, "embed", "--check").returncode == 0


def test_a_full_disk_under_the_warnings_file_leaves_whole_lines(tmp_path):
    """The ``--warnings`` log stops at 5 kB (each write that crosses it is cut short, then
    refused): whole lines only, and one located line for the error; ``-o`` to a device
    is not limited, so the log is what fills."""
    lines = [b"{broken %d" % i if i % 7 == 0 else orjson.dumps(record(i)) for i in range(1, 2000)]
    (tmp_path / "in.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    args = ["ingest", "in.jsonl", "-o", os.devnull, "--warnings", "w.jsonl", "--quiet"]
    err = _one_line(_convo(tmp_path, *args, limit=5000), 2)
    assert "w.jsonl: cannot write here (file too large)" in err
    log = (tmp_path / "w.jsonl").read_bytes()
    assert 4000 < len(log) <= 5000 and log.endswith(b"\n")
    assert [orjson.loads(x)["kind"] for x in log.splitlines()] == ["rejected"] * log.count(b"\n")


def test_a_full_disk_during_a_parquet_export_is_plain_words_and_leaves_nothing(tmp_path):
    """Arrow's text named only the errno ("Error writing bytes to file. Detail: [errno
    27] File too large"); the hidden folder the dataset was written into is removed."""
    write_store(tmp_path / "s.jsonl", 3000)
    err = _one_line(_convo(tmp_path, "export", "--to", "parquet", "-o", "out", limit=20_000), 2)
    assert err == "convo: error: out: cannot write Parquet (file too large)\n"
    assert [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]  # a read takes no lock


def test_full_temporary_files_of_the_workers_are_said_as_such(tmp_path):
    """``ingest -j 2`` spills each worker's records to ``$TMPDIR``; filling it was reported
    as a failure to write ``-o`` (here a device, which no file-size limit stops)."""
    for name in ("a.jsonl", "b.jsonl"):
        write_store(tmp_path / name, 2000)
    args = ["ingest", "a.jsonl", "b.jsonl", "-j", "2", "-o", os.devnull, "--quiet"]
    err = _one_line(_convo(tmp_path, *args, limit=100_000), 2)
    assert "cannot write temporary files (file too large)" in err
    assert "set TMPDIR to a folder with room, or use -j 1" in err


KNOWLEDGE = """
import sys
from convo.analysis.knowledge import extract

extract.SPOOL_MEMORY = 4096  # the spool between the passes goes to $TMPDIR at once
sys.argv = ["convo", "knowledge", sys.argv[1], "-j", "1", "--format", "json"]
from convo.cli.app import main
main()
"""


def test_a_full_disk_under_a_spool_in_tmpdir_is_said_as_such(tmp_path):
    """The knowledge spool (and the other spools of a run in ``$TMPDIR``) meeting a full
    disk was an internal error."""
    write_store(tmp_path / "in.jsonl", 2000)
    proc = subprocess.run(
        [sys.executable, "-c", KNOWLEDGE, "in.jsonl"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": SRC, "TMPDIR": str(tmp_path)},
        capture_output=True,
        preexec_fn=_small_files(50_000),
        timeout=120,
    )
    err = _one_line(proc, 2)
    assert err == (
        f"convo: error: {tmp_path}: cannot write temporary files (file too large); "
        "free some space there, or set TMPDIR to a folder with room\n"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["in.jsonl"]
