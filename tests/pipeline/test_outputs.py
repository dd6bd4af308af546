"""Issue 20 item 1: writing never replaces a device, FIFO or socket, and a symbolic link
keeps pointing where it did (its target is what gets replaced): ``-o``, ``--rejects`` and
the store. The suite runs as root, where a rename over a device would succeed."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from conftest import SAMPLE_DATA, records
from convo.cli.app import app
from convo.core.atomic import atomic_writer
from convo.core.errors import InputError

VTT = SAMPLE_DATA / "transcripts" / "standup.vtt"


def _drain(fifo: Path) -> tuple[threading.Thread, list[bytes]]:
    """A reader on ``fifo`` (a FIFO blocks its writer until someone reads)."""
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t, got


def _no_temp_files(folder: Path) -> bool:
    return not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


@pytest.fixture
def vtt() -> Path:
    if not VTT.exists():  # pragma: no cover - sample data ships with the repo
        pytest.skip("sample transcript missing")
    return VTT


def test_output_onto_a_fifo_writes_into_it_and_keeps_it(runner, tmp_path, vtt):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader, got = _drain(fifo)
    r = runner.invoke(app, ["ingest", str(vtt), "-o", str(fifo), "--quiet"])
    reader.join(10)
    assert r.exit_code == 0, r.output
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still a FIFO, not a regular file
    assert records(got[0]) and _no_temp_files(tmp_path)


def test_output_through_a_symlink_replaces_the_target_and_keeps_the_link(runner, tmp_path, vtt):
    target = tmp_path / "real" / "out.jsonl"
    target.parent.mkdir()
    target.write_bytes(b"old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    r = runner.invoke(app, ["ingest", str(vtt), "-o", str(link), "--quiet"])
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and Path(os.readlink(link)) == target
    assert records(target.read_bytes())[0]["format"] == "vtt"
    assert _no_temp_files(target.parent) and _no_temp_files(tmp_path)


def test_output_onto_a_character_device_is_written_into(tmp_path):
    dev = tmp_path / "null"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a private /dev/null
        with open(dev, "wb") as f:
            f.write(b"probe")
    except (PermissionError, OSError):
        pytest.skip("cannot make or open a device node here (not root, or nodev)")
    with atomic_writer(dev) as out:
        out.write(b'{"x": 1}\n')
    assert stat.S_ISCHR(os.lstat(dev).st_mode)
    assert _no_temp_files(tmp_path)


def test_block_devices_and_sockets_are_refused(tmp_path):
    import socket

    sock_path = tmp_path / "s.sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(sock_path))
    try:
        with pytest.raises(InputError, match="is a socket"), atomic_writer(sock_path) as out:
            out.write(b"x")
    finally:
        s.close()
    assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)


def test_a_symlink_loop_is_a_located_error(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(InputError, match="symbolic link loop") as e, atomic_writer(a) as out:
        out.write(b"x")
    assert e.value.where == str(a)


def test_rejects_onto_a_fifo_and_through_a_symlink(runner, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"textChunks": ["hi"], "metadata": {}}\nnope\n')
    fifo = tmp_path / "rejects.fifo"
    os.mkfifo(fifo)
    reader, got = _drain(fifo)
    r = runner.invoke(
        app, ["ingest", str(bad), "-o", str(tmp_path / "o.jsonl"), "--rejects", str(fifo)]
    )
    reader.join(10)
    assert r.exit_code == 1 and records(got[0])[0]["raw"] == "nope"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    target = tmp_path / "kept.jsonl"
    link = tmp_path / "rejects-link.jsonl"
    link.symlink_to(target)
    r = runner.invoke(
        app, ["ingest", str(bad), "-o", str(tmp_path / "o.jsonl"), "--rejects", str(link)]
    )
    assert (
        r.exit_code == 1 and link.is_symlink() and records(target.read_bytes())[0]["raw"] == "nope"
    )


def test_store_through_a_symlink_appends_to_the_target(runner, tmp_path, vtt):
    target = tmp_path / "data" / "messages.jsonl"
    target.parent.mkdir()
    target.touch()  # a link to a missing store is an error (see test_store_errors)
    link = tmp_path / "store-link.jsonl"
    link.symlink_to(target)
    r = runner.invoke(app, ["--store", str(link), "ingest", "--save", str(vtt), "--quiet"])
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and records(target.read_bytes())
    assert (target.parent / ".messages.jsonl.lock").exists()  # the lock lives by the real file


@pytest.mark.parametrize("kind", ["fifo", "chardev"])
def test_a_store_that_is_not_a_file_is_refused(runner, tmp_path, vtt, kind):
    path = tmp_path / "store"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 5))  # a private /dev/zero
        except (PermissionError, OSError):
            pytest.skip("cannot make a device node here")
    r = runner.invoke(app, ["--store", str(path), "ingest", "--save", str(vtt)])
    assert r.exit_code == 2 and "the store is a" in r.stderr and "internal" not in r.stderr
    assert not stat.S_ISREG(os.lstat(path).st_mode)


def test_a_full_disk_during_output_is_located_and_leaves_the_old_file(tmp_path, monkeypatch):
    import errno

    from convo.core import io as cio

    target = tmp_path / "out.jsonl"
    target.write_bytes(b"old\n")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cio.os, "fsync", full)
    with pytest.raises(InputError) as e, atomic_writer(target) as out:
        out.write(b"new\n")
    assert str(e.value).startswith(f"{target}: cannot write here (no space left on device)")
    assert target.read_bytes() == b"old\n" and _no_temp_files(tmp_path)
