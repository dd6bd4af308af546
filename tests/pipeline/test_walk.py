"""Issue 20 item 4: folder walks end, read each real folder once, and go on past odd entries
(links that loop, dangling links, sockets, FIFOs, unreadable files and folders)."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import orjson
import pytest

from conftest import records
from convo.cli.app import app
from convo.core import walk
from convo.core.walk import Walker
from convo.importers.context import iter_dir_entries, iter_dir_files
from convo.pipeline.ingest import Ingest

REC = {"textChunks": ["hi"], "metadata": {"speaker": "A", "listeners": []}, "tags": [],
       "timestamp": "2024-03-06T10:02:30Z", "source_id": "x#1", "format": "jsonl"}  # fmt: skip


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "export"
    (root / "sub").mkdir(parents=True)
    (root / "a.jsonl").write_bytes(orjson.dumps({**REC, "id": "a"}) + b"\n")
    (root / "sub" / "b.jsonl").write_bytes(orjson.dumps({**REC, "id": "b"}) + b"\n")
    return root


def _ingest(runner, root: Path, out: Path):
    r = runner.invoke(app, ["ingest", str(root), "-o", str(out)])
    return r, sorted(x["id"] for x in records(out.read_bytes())) if out.exists() else []


def test_two_dot_links_do_not_make_the_walk_explode(runner, tree, tmp_path):
    (tree / "l1").symlink_to(".")
    (tree / "l2").symlink_to(".")
    (tree / "sub" / "l3").symlink_to(".")
    r, ids = _ingest(runner, tree, tmp_path / "o.jsonl")
    assert r.exit_code == 0, r.output
    assert ids == ["a", "b"]


def test_a_parent_link_does_not_read_everything_again(runner, tree, tmp_path):
    (tree / "sub" / "up").symlink_to("..")
    (tree / "root").symlink_to("/")
    r, ids = _ingest(runner, tree, tmp_path / "o.jsonl")
    assert r.exit_code == 0, r.output
    assert ids == ["a", "b"]


def test_a_link_to_a_folder_elsewhere_is_read_once(runner, tree, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "c.jsonl").write_bytes(orjson.dumps({**REC, "id": "c"}) + b"\n")
    (tree / "x1").symlink_to(other)
    (tree / "x2").symlink_to(other)
    r, ids = _ingest(runner, tree, tmp_path / "o.jsonl")
    assert r.exit_code == 0 and ids == ["a", "b", "c"]
    assert "the same folder as" in r.stderr


def test_special_entries_are_skipped_with_a_warning_and_never_block(runner, tree, tmp_path):
    os.mkfifo(tree / "pipe.jsonl")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tree / "s.sock"))
    try:
        r, ids = _ingest(runner, tree, tmp_path / "o.jsonl")
    finally:
        sock.close()
    assert r.exit_code == 0, r.output
    assert ids == ["a", "b"]
    assert "pipe.jsonl: skipped, a FIFO" in r.stderr and "s.sock: skipped, a socket" in r.stderr


def test_a_dangling_link_is_a_located_reject_and_the_rest_imports(runner, tree, tmp_path):
    (tree / "gone.jsonl").symlink_to(tree / "nowhere.jsonl")
    (tree / "loop").symlink_to(tree / "loop")
    r, ids = _ingest(runner, tree, tmp_path / "o.jsonl")
    assert r.exit_code == 1, r.output
    assert ids == ["a", "b"]
    assert "gone.jsonl: rejected: dangling symbolic link" in r.stderr
    assert "loop: rejected:" in r.stderr and "internal error" not in r.stderr


def test_an_unreadable_file_is_rejected_and_the_rest_imports(runner, tree, tmp_path, monkeypatch):
    bad = tree / "locked.jsonl"
    bad.write_bytes(orjson.dumps({**REC, "id": "z"}) + b"\n")
    bad.chmod(0)
    real_open = open

    def no_access(path, *a, **k):  # root reads mode-000 files: simulate a normal user
        if Path(path) == bad:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *a, **k)

    monkeypatch.setattr("convo.core.io.open", no_access, raising=False)
    r, ids = _ingest(runner, tree, tmp_path / "o.jsonl")
    assert r.exit_code == 1, r.output
    assert ids == ["a", "b"]
    assert "locked.jsonl: rejected: cannot read (Permission denied)" in r.stderr


def test_an_unreadable_folder_is_rejected_and_the_rest_imports(runner, tree, tmp_path, monkeypatch):
    real_scandir = os.scandir

    def no_list(path="."):
        if Path(path) == tree / "sub":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(walk.os, "scandir", no_list)
    r, ids = _ingest(runner, tree, tmp_path / "o.jsonl")
    assert r.exit_code == 1, r.output
    assert ids == ["a"]
    assert "cannot list folder (Permission denied)" in r.stderr and "internal" not in r.stderr


def test_strict_stops_at_an_unreadable_entry(tree):
    from convo.core.errors import InputError
    from convo.importers.context import ImportOptions

    (tree / "gone.jsonl").symlink_to(tree / "nowhere")
    with pytest.raises(InputError, match="dangling"):
        list(Ingest(ImportOptions(strict=True)).messages([tree]))


def test_iter_dir_files_follows_links_once_and_reports_odd_entries(tree, tmp_path):
    (tree / "sub" / "again").symlink_to(tree / "sub")
    (tree / "dot").symlink_to(".")
    os.mkfifo(tree / "fifo")
    (tree / "dangling").symlink_to(tmp_path / "missing")
    skipped: list[walk.Entry] = []
    files = [p.relative_to(tree).as_posix() for p in iter_dir_files(tree, skipped.append)]
    assert files == ["a.jsonl", "sub/b.jsonl"]
    kinds = {e.path.name: e.kind for e in skipped}
    assert kinds == {"again": walk.REPEAT, "dot": walk.REPEAT, "fifo": walk.SPECIAL,
                     "dangling": walk.UNREADABLE}  # fmt: skip


def test_iter_dir_entries_yields_paths_and_passes_the_rest_aside(tree):
    os.mkfifo(tree / "fifo")
    w = Walker(tree)
    skipped: list[walk.Entry] = []
    got = [p.name for p in iter_dir_entries(tree, w, skipped.append)]
    assert got == ["a.jsonl", "sub"]
    assert [(e.path.name, e.detail) for e in skipped] == [("fifo", "a FIFO")]
    assert w.classify(tree / "sub").kind == walk.REPEAT  # handed out once per walk


def test_walk_of_a_deep_link_lattice_is_linear(tmp_path):
    root = tmp_path / "r"
    cur = root
    for i in range(12):  # 12 levels, each with two links back to the root and to itself
        cur.mkdir(parents=True)
        (cur / "up").symlink_to(root)
        (cur / "self").symlink_to(".")
        (cur / f"f{i}.txt").write_bytes(b"x")
        cur = cur / "d"
    skipped: list[walk.Entry] = []
    files = list(Walker(root).files(root, skipped.append))
    assert len(files) == 12 and len(skipped) == 24
    assert all(stat.S_ISREG(os.stat(f).st_mode) for f in files)
