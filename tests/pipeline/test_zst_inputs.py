"""``.zst`` inputs (src/convo/core/compression.py): Pushshift's Reddit dumps read as they
come (a 2 GiB window, several frames), the same records as the plain file; a truncated
or corrupt stream is one located reject after the records before it; the gzip caps."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden, records
from convo.cli.app import app
from convo.core import compression
from convo.core.compression import StreamError, unzstd
from convo.core.io import Source, open_binary

FORUM = Path(__file__).resolve().parent.parent / "fixtures" / "forum"
DUMP = FORUM / "RC_2024-03.zst"  # pushshift-comments.jsonl, as Pushshift writes: --long=31
REC = {"textChunks": ["hello"], "metadata": {"speaker": "A", "listeners": []}, "tags": [],
       "timestamp": "2024-03-06T10:02:30Z", "source_id": "x#1", "id": "r{}", "format": "jsonl"}  # fmt: skip


def _jsonl(n: int) -> bytes:
    return b"".join(orjson.dumps({**REC, "id": f"r{i}"}) + b"\n" for i in range(n))


def _zst(data: bytes, level: int = 3) -> bytes:
    return zstandard.ZstdCompressor(level=level).compress(data)


def _ingest(runner, src: Path, out: Path, *more: str):
    return runner.invoke(app, ["ingest", str(src), "-o", str(out), *more])


def test_the_fixture_declares_pushshift_window():
    """The fixture needs what Pushshift's dumps need: a window of 2**31."""
    head = DUMP.read_bytes()
    assert zstandard.get_frame_parameters(head).window_size == 1 << 31
    with pytest.raises(zstandard.ZstdError):
        zstandard.ZstdDecompressor().stream_reader(io.BytesIO(head)).read()


def test_a_pushshift_dump_reads_as_its_plain_twin(runner, tmp_path, monkeypatch):
    monkeypatch.chdir(FORUM)
    plain = tmp_path / "RC_2024-03"
    plain.write_bytes((FORUM / "pushshift-comments.jsonl").read_bytes())
    r1 = _ingest(runner, Path(DUMP.name), tmp_path / "z.jsonl")
    r2 = _ingest(runner, plain, tmp_path / "p.jsonl")
    assert r1.exit_code == r2.exit_code == 1, r1.output + r2.output  # its two bad lines
    assert f"{DUMP.name}:3: rejected: invalid JSON" in r1.stderr  # the decompressed line
    said = r1.stderr.replace(DUMP.name, "F").replace("z.jsonl", "o")
    assert said == r2.stderr.replace(str(plain), "F").replace("p.jsonl", "o")
    got = records((tmp_path / "z.jsonl").read_bytes())
    want = records((tmp_path / "p.jsonl").read_bytes())
    assert [{**g, "source_id": None} for g in got] == [{**w, "source_id": None} for w in want]
    assert {g["format"] for g in got} == {"reddit"}
    assert_golden("forum/pushshift-zst.jsonl", got)


def test_match_name_and_scope_drop_the_suffix():
    src = Source(DUMP)
    assert src.gzipped and src.match_name == "RC_2024-03"
    assert src.head.startswith(b'{"id":"q1"')


def test_several_frames_and_stdin(runner, tmp_path):
    data = _jsonl(40)
    joined = _zst(data[:1000]) + _zst(data[1000:])
    src = tmp_path / "two.jsonl.zst"
    src.write_bytes(joined)
    with open_binary(src) as f:
        assert f.read() == data
    r = runner.invoke(app, ["ingest", "-", "-o", str(tmp_path / "o.jsonl")], input=joined)
    assert r.exit_code == 0, r.output
    assert len(records((tmp_path / "o.jsonl").read_bytes())) == 40


@pytest.mark.parametrize(
    ("cut", "why"),
    [
        (lambda z: z[: len(z) * 2 // 3], "ends inside a frame"),
        (lambda z: z + b"not a frame at all", "Unknown frame descriptor"),
    ],
)
def test_a_broken_stream_keeps_what_came_before(runner, tmp_path, cut, why):
    whole = _jsonl(3000)
    first = _zst(whole[: len(whole) // 2])
    src = tmp_path / "cut.jsonl.zst"
    src.write_bytes(first + cut(_zst(whole[len(whole) // 2 :])))
    r = _ingest(runner, src, tmp_path / "o.jsonl")
    assert r.exit_code == 1, r.output
    assert "broken zstd stream" in r.stderr and why in r.stderr and str(src) in r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    got = records((tmp_path / "o.jsonl").read_bytes())
    assert len(got) >= 1500 and got[0]["id"] == "r0"


def test_garbage_after_the_magic_is_one_line(runner, tmp_path):
    src = tmp_path / "bad.zst"
    src.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00garbage" * 50)
    r = _ingest(runner, src, tmp_path / "o.jsonl")
    assert r.exit_code != 0
    assert "broken zstd stream" in r.stderr and "Traceback" not in r.stderr


def test_the_caps_hold_for_zstd(monkeypatch):
    monkeypatch.setattr(compression, "GZIP_RATIO_FLOOR", 1 << 20)
    bomb = _zst(b"\n" * (64 << 20), level=19)
    stream = _unzstd(bomb)
    with pytest.raises(StreamError, match="compressed more than"):
        while stream.read(1 << 20):
            pass


def _unzstd(data: bytes):
    return unzstd(io.BytesIO(data), "mem.zst")


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=3000), st.integers(1, 4), st.integers(0, 3000))
def test_any_stream_reads_back_or_breaks_cleanly(data, frames, cut):
    """Frames joined read back whole; cut anywhere, what is read is a prefix and the
    rest a StreamError (never another exception)."""
    size = max(1, len(data) // frames)
    parts = [data[i : i + size] for i in range(0, len(data), size)] or [b""]
    packed = b"".join(_zst(p) for p in parts)
    assert _unzstd(packed).read() == data
    stream = _unzstd(packed[: min(cut, len(packed))])
    got = b""
    try:
        while chunk := stream.read1(97):
            got += chunk
    except StreamError:
        pass
    assert data.startswith(got)


FORMATS = Path(__file__).resolve().parent.parent / "fixtures" / "formats"


def _read(path: Path) -> list[dict]:
    from convo.pipeline.ingest import Ingest

    out = []
    for m in Ingest(on_reject=lambda r: None, on_warning=lambda w: None).messages([path]):
        rec = m.serialize()
        rec["source_id"] = rec["source_id"].replace(".zst", "").replace(".gz", "")
        out.append(rec)
    return out


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_every_format_s_fixture_compressed_gives_its_records(tmp_path, suffix):
    """A compressed file is the file it holds: the same threads and ids (so the plain and
    the compressed copy of one export are one conversation in the store), whatever the
    reader takes from the file's name. Readers stripped ``.gz`` by hand, so ``.zst``
    files got the name with ``.txt.zst`` as their thread and other ids."""
    import gzip

    pack = gzip.compress if suffix == ".gz" else _zst
    compared, fails = 0, []
    for n, src in enumerate(sorted(FORMATS.rglob("*"))):
        if (
            not src.is_file()
            or src.suffix in (".gz", ".zst", ".zip", ".docx")
            or src.stat().st_size > 1 << 20
        ):
            continue
        folder = tmp_path / str(n) / src.parent.relative_to(FORMATS)
        folder.mkdir(parents=True)
        plain, packed = folder / src.name, folder / (src.name + suffix)
        plain.write_bytes(src.read_bytes())
        try:
            want = _read(plain)
        except Exception:  # not a file read alone (a side file, a folder's part)
            continue
        packed.write_bytes(pack(src.read_bytes()))
        plain.unlink()
        if _read(packed) != want:
            fails.append(src.relative_to(FORMATS).as_posix())
        compared += bool(want)
    assert not fails
    assert compared > 100


@pytest.mark.parametrize("command", [["stats"], ["knowledge"], ["query", "--count"]])
def test_the_analyses_read_a_zst_file_as_its_records(runner, tmp_path, command):
    """``stats`` and ``knowledge`` cut a named file into ranges read raw unless it is
    compressed (``core.ranges.splittable``): a .zst was cut too, its bytes rejected as
    lines and no message counted."""
    path = tmp_path / "a.jsonl.zst"
    path.write_bytes(_zst(_jsonl(3)))
    r = runner.invoke(app, [*command, str(path), "-f", "json"])
    assert r.exit_code == 0, r.stderr
    assert "rejected" not in r.stderr
    if command[0] == "stats":
        assert orjson.loads(r.stdout)["messages"] == 3
    elif command[0] == "query":
        assert r.stdout.strip() == "3"
