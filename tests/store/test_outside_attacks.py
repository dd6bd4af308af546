"""The store attacked from the outside, through the command line: two saves at once, a
reader while ``compact`` renames a new store in, a store that is a link or a folder,
``$CONVO_STORE`` naming a file that is not a store. Each gives one clear line and its
exit code, never a traceback, and no message is lost. (A killed save:
``tests/store/test_journal.py``; signals during an index build or a rewrite:
``tests/hostile/test_signals.py``; a read-only store: ``tests/hostile/test_read_only.py``.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _rec(i: int) -> bytes:
    r = {"id": f"m{i}", "timestamp": "2024-01-01T00:00:00Z", "textChunks": [f"message {i}"],
         "metadata": {"speaker": f"p{i % 7}", "listeners": []}, "tags": [],
         "format": "slack", "source_id": f"s#{i}"}  # fmt: skip
    return orjson.dumps(r) + b"\n"


def _source(path: Path, start: int, n: int) -> Path:
    path.write_bytes(b"".join(_rec(i) for i in range(start, start + n)))
    return path


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), **extra}


def _convo(*args: str, **env: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "convo", *args]
    return subprocess.run(cmd, env=_env(**env), capture_output=True, text=True, timeout=300)


def _ids(path: Path) -> list[str]:
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    return [orjson.loads(x)["id"] for x in data.splitlines() if x.strip()]


FOREIGN = {
    "binary": bytes(range(256)) * 8,
    "json-array": b'[{"id": "a"}]\n',
    "text": b"my notes\nnot json\n",
    "csv": b"id,text\n1,hello\n",
}


@pytest.mark.parametrize("kind", list(FOREIGN))
def test_a_save_into_a_file_that_is_not_a_store_is_refused_and_the_file_kept(tmp_path, kind):
    target = tmp_path / "notes.dat"
    target.write_bytes(FOREIGN[kind])
    src = _source(tmp_path / "in.jsonl", 0, 3)
    done = _convo("ingest", "--save", str(src), CONVO_STORE=str(target))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "not a convo store" in lines[0] and str(target) in lines[0]
    assert "Traceback" not in done.stderr
    assert target.read_bytes() == FOREIGN[kind]  # nothing written, no torn tail moved out
    assert not Path(f"{target}.torn").exists()


@pytest.mark.parametrize("head", [b"", b"\n\n", b"\xef\xbb\xbf", b"\xef\xbb\xbf  \n"])
def test_an_empty_or_blank_store_is_still_saved_into(tmp_path, head):
    store = tmp_path / "s.jsonl"
    store.write_bytes(head)
    src = _source(tmp_path / "in.jsonl", 0, 3)
    done = _convo("--store", str(store), "ingest", "--save", str(src))
    assert done.returncode == 0, done.stderr
    assert _ids(store) == ["m0", "m1", "m2"]


def test_a_read_of_a_file_that_is_not_a_store_is_a_few_located_lines_and_exit_1(tmp_path):
    target = tmp_path / "notes.dat"
    target.write_bytes(b"my notes\nnot json\n")
    done = _convo("query", "--count", CONVO_STORE=str(target), CONVO_NO_INDEX="1")
    assert done.returncode == 1 and done.stdout.strip() == "0"
    said = [x for x in done.stderr.splitlines() if "note: index" not in x]
    assert [x.split(": rejected")[0] for x in said] == [
        f"convo: warning: {target}:{n}" for n in (1, 2)
    ]


def test_two_saves_at_once_add_every_message_once(tmp_path):
    store = tmp_path / "s.jsonl"
    a = _source(tmp_path / "a.jsonl", 0, 3000)
    b = _source(tmp_path / "b.jsonl", 2000, 3000)  # m2000..m2999 in both

    def save(src: Path) -> subprocess.Popen:
        cmd = [sys.executable, "-m", "convo", "--store", str(store), "ingest", "--save", str(src)]
        return subprocess.Popen(
            cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    procs = [save(a), save(b)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    ids = _ids(store)
    assert len(ids) == len(set(ids)) == 5000
    assert sum(int(err.split("new ")[1].split(",")[0]) for _, err in outs) == 5000
    check = _convo("--store", str(store), "index", "--check")
    assert check.returncode == 0, check.stderr


def test_a_reader_during_compact_sees_every_message(tmp_path):
    """``compact`` renames a new store over the old one while readers count: each read
    sees the old file or the new one, whole (the same messages: only repeated ids and
    bad lines go)."""
    store = tmp_path / "s.jsonl"
    lines = [_rec(i) for i in range(3000)]
    store.write_bytes(b"".join([*lines[:1500], _rec(7), b"not json\n", *lines[1500:]]))
    compact = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys\nfrom convo.store import Store\nfrom convo.store.rewrite import compact\n"
            "for _ in range(4):\n    compact(Store(sys.argv[1]))\n"
            "    open(sys.argv[1], 'ab').write(b'not json\\n')\n"
        ), str(store)],
        env=_env(),
    )  # fmt: skip
    counts = set()
    while True:
        done = _convo("--store", str(store), "query", "--count", "-q", "message")
        assert "Traceback" not in done.stderr
        counts.add(done.stdout.strip())
        if compact.poll() is not None:
            break
    assert compact.returncode == 0
    assert counts <= {"3000", "3001"}  # m7 twice before the first compact
    assert _convo("--store", str(store), "query", "--count").stdout.strip() == "3000"


@pytest.mark.parametrize("kind", ["link-to-folder", "folder", "dangling-link"])
def test_a_store_that_is_a_folder_or_a_bad_link_is_one_line_for_every_command(tmp_path, kind):
    store = tmp_path / "s.jsonl"
    if kind == "folder":
        store.mkdir()
    elif kind == "link-to-folder":
        (tmp_path / "d").mkdir()
        store.symlink_to(tmp_path / "d")
    else:
        store.symlink_to(tmp_path / "missing.jsonl")
    src = _source(tmp_path / "in.jsonl", 0, 2)
    for args in (["ingest", "--save", str(src)], ["query", "--count"], ["index"],
                 ["compact"], ["search", "message"]):  # fmt: skip
        done = _convo("--store", str(store), *args)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, (args, done.stderr)
        assert lines[0].startswith(f"convo: error: {store}"), (args, lines)
