"""Issue 20 items 3 and 5: gzip inputs have size and ratio caps, a truncated or corrupt
``.gz`` is one located reject after the records before it, devices never hang a reader,
and a spool interrupted by Ctrl-C leaves no temporary file."""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import records
from convo.cli.app import app
from convo.core import compression
from convo.core import io as cio
from convo.core.compression import StreamError
from convo.core.errors import InputError
from convo.core.io import Source, open_binary

REC = {"textChunks": ["hello"], "metadata": {"speaker": "A", "listeners": []}, "tags": [],
       "timestamp": "2024-03-06T10:02:30Z", "source_id": "x#1", "id": "r{}", "format": "jsonl"}  # fmt: skip


def _jsonl(n: int) -> bytes:
    return b"".join(orjson.dumps({**REC, "id": f"r{i}"}) + b"\n" for i in range(n))


def _truncated_gz(tmp_path: Path, n: int = 3000) -> Path:
    data = gzip.compress(_jsonl(n))
    p = tmp_path / "cut.jsonl.gz"
    p.write_bytes(data[: len(data) * 2 // 3])
    return p


def test_truncated_gz_keeps_the_records_before_and_rejects_the_rest(runner, tmp_path):
    src = _truncated_gz(tmp_path)
    out = tmp_path / "out.jsonl"
    r = runner.invoke(app, ["ingest", str(src), "-o", str(out)])
    assert r.exit_code == 1, r.output
    assert "broken gzip stream" in r.stderr and str(src) in r.stderr
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
    got = records(out.read_bytes())
    assert 500 < len(got) < 3000 and got[0]["id"] == "r0"


def test_truncated_small_gz_is_still_located(runner, tmp_path):
    data = gzip.compress(_jsonl(5))
    src = tmp_path / "tiny.jsonl.gz"
    src.write_bytes(data[:-6])  # the CRC and size trailer cut off
    r = runner.invoke(app, ["ingest", str(src), "-o", str(tmp_path / "o.jsonl")])
    assert r.exit_code == 1 and "broken gzip stream" in r.stderr
    assert len(records((tmp_path / "o.jsonl").read_bytes())) == 5


def test_corrupt_gz_is_a_located_error_not_a_crash(runner, tmp_path):
    data = bytearray(gzip.compress(_jsonl(50)))
    data[30:60] = b"\xff" * 30  # deflate garbage
    src = tmp_path / "bad.jsonl.gz"
    src.write_bytes(bytes(data))
    r = runner.invoke(app, ["ingest", str(src), "--from", "jsonl", "-o", str(tmp_path / "o.jsonl")])
    assert r.exit_code in (1, 2) and "internal error" not in r.stderr
    assert str(src) in r.stderr


def test_gzip_bomb_stops_at_the_ratio_cap(runner, tmp_path, monkeypatch):
    monkeypatch.setattr(compression, "GZIP_RATIO_FLOOR", 1 << 20)
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [comp.compress(_jsonl(1))]
    zeros = bytes(1 << 20)
    for _ in range(64):  # 64 MiB of zeros after one record: ~64 KiB compressed
        parts.append(comp.compress(zeros))
    parts.append(comp.flush())
    src = tmp_path / "bomb.jsonl.gz"
    src.write_bytes(b"".join(parts))
    out = tmp_path / "o.jsonl"
    r = runner.invoke(app, ["ingest", str(src), "-o", str(out)])
    assert r.exit_code == 1, r.output
    assert "possible gzip bomb" in r.stderr
    assert [x["id"] for x in records(out.read_bytes())] == ["r0"]


def test_inflate_reports_the_cap_as_a_stream_error(monkeypatch):
    monkeypatch.setattr(compression, "GZIP_CAP", 1000)
    stream = compression.inflate(io.BytesIO(gzip.compress(b"x\n" * 5000)), "mem.gz")
    with pytest.raises(StreamError, match="larger than"):
        stream.read()


@pytest.mark.parametrize("args", [["query"], ["list"], ["ingest", "--from", "vtt"], ["ingest"]])
def test_character_devices_are_refused_not_read_forever(runner, args):
    r = runner.invoke(app, [*args, "/dev/zero"], env={"CONVO_NO_STDIN": "1"})
    assert r.exit_code == 2, r.output
    assert "is a character device" in r.stderr and "internal error" not in r.stderr


def test_open_binary_refuses_devices():
    with pytest.raises(InputError, match="character device"):
        open_binary("/dev/zero")


def test_a_named_fifo_is_read_once_with_its_head_replayed(tmp_path):
    import os
    import threading

    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    data = _jsonl(3)

    def write() -> None:
        with open(fifo, "wb") as f:
            f.write(data)

    t = threading.Thread(target=write, daemon=True)
    t.start()
    src = Source(fifo)
    assert src.head == data
    with src.open() as f:
        assert f.read() == data
    t.join(5)


def test_ctrl_c_while_spooling_a_gz_leaves_no_temporary_file(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    gz = tmp_path / "chat.txt.gz"
    gz.write_bytes(gzip.compress(b"x" * (4 << 20)))
    src = Source(gz)
    calls = {"n": 0}
    real = cio._copy_until_broken

    def interrupted(s, out):
        out.write(b"partial")
        calls["n"] += 1
        raise KeyboardInterrupt

    monkeypatch.setattr(cio, "_copy_until_broken", interrupted)
    with pytest.raises(KeyboardInterrupt):
        src.real_path()
    assert calls["n"] == 1
    assert [p.name for p in tmp_path.iterdir()] == ["chat.txt.gz"]
    monkeypatch.setattr(cio, "_copy_until_broken", real)
    spooled = src.real_path()
    assert spooled.stat().st_size == 4 << 20
    src.close()
    assert not spooled.exists()


def test_a_spooled_truncated_gz_keeps_what_came_before(tmp_path):
    src = Source(_truncated_gz(tmp_path))
    path = src.real_path()
    assert src.broken is not None and "broken gzip stream" in src.broken.what
    lines = path.read_bytes().splitlines()
    assert orjson.loads(lines[0])["id"] == "r0"
    src.close()


_WHOLE = gzip.compress(_jsonl(400))


@settings(max_examples=40)
@given(cut=st.integers(min_value=2, max_value=len(_WHOLE) - 1))
def test_a_gz_cut_anywhere_yields_a_prefix_and_one_located_reject(tmp_path_factory, cut):
    from convo.importers.context import ImportOptions, Rejection
    from convo.pipeline.ingest import Ingest

    src = tmp_path_factory.mktemp("cut") / "c.jsonl.gz"
    src.write_bytes(_WHOLE[:cut])
    rejected: list[Rejection] = []
    ingest = Ingest(ImportOptions(), format_name="jsonl", on_reject=rejected.append)
    try:
        ids = [m.id for m in ingest.messages([src])]
    except InputError as e:  # cut inside the gzip header: nothing to read at all
        assert e.where == str(src)
        return
    assert ids == [f"r{i}" for i in range(len(ids))]
    assert ingest.stats.rejected >= 1 and all(str(src) in r.where for r in rejected)
