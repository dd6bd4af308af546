"""§3: Parquet partitions never share a folder, fit a file name, and a failed export
leaves no partial dataset."""

from __future__ import annotations

import errno

import pytest

from convo.cli.app import app
from convo.output.exporters import parquet
from convo.output.exporters.dataset import MAX_PARTITION_NAME, partition_name

from .helpers import record, write_store

pytest.importorskip("pyarrow")
THREADS = ["", "__HIVE_DEFAULT_PARTITION__", None, "x" * 300, "x" * 299 + "y", "a~b", "a%7Eb"]


@pytest.fixture
def store(tmp_path):
    import orjson

    lines = []
    for n, thread in enumerate(THREADS):
        rec = record(n)
        if thread is not None:
            rec["thread"] = thread
        lines.append(orjson.dumps(rec) + b"\n")
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def test_every_record_comes_back(runner, store, tmp_path):
    import pyarrow.dataset as ds

    out = tmp_path / "out"
    r = runner.invoke(
        app, ["export", "--to", "parquet", "--partition-by", "thread", "-o", str(out), str(store)]
    )
    assert r.exit_code == 0, r.output
    back = ds.dataset(out, format="parquet", partitioning="hive").to_table()
    assert sorted(back.column("id").to_pylist()) == [f"m{n}" for n in range(len(THREADS))]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_partition_names_are_injective_and_bounded():
    values = [
        "x",
        "__HIVE_DEFAULT_PARTITION__",
        "a~b",
        "a%7Eb",
        "a/b",
        "é" * 200,
        "x" * 300,
        "x" * 299 + "y",
    ]
    names = [partition_name(v) for v in values]
    assert len(set(names)) == len(names)
    assert all(len(n) <= MAX_PARTITION_NAME for n in names)
    assert partition_name("") == partition_name(None) == "__HIVE_DEFAULT_PARTITION__"


def test_a_failed_export_leaves_no_partial_dataset(store, tmp_path, monkeypatch):
    calls = []
    write_file = parquet.PartitionedWriter.write_file

    def failing(self, key, table):
        calls.append(key)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        write_file(self, key, table)

    monkeypatch.setattr(parquet.PartitionedWriter, "write_file", failing)
    import orjson

    records = [orjson.loads(line) for line in store.read_bytes().splitlines()]
    with pytest.raises(Exception, match="cannot write Parquet"):
        parquet.write_parquet(records, tmp_path / "out", partition_by=("thread",))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


@pytest.mark.parametrize("target, what", [("file", "is a file"), ("", "-o is empty")])
def test_a_file_or_an_empty_name_is_one_clear_line(runner, tmp_path, target, what):
    src = write_store(tmp_path / "in.jsonl")
    if target:
        (tmp_path / target).write_text("keep")
        target = str(tmp_path / target)
    r = runner.invoke(app, ["export", "--to", "parquet", "-o", target, str(src)])
    assert r.exit_code == 2, r.output
    assert what in r.output or "writes a folder" in r.output


def test_an_empty_output_name_is_one_clear_line(runner, tmp_path):
    src = write_store(tmp_path / "in.jsonl")
    r = runner.invoke(app, ["export", "--to", "csv", "-o", "", str(src)])
    assert r.exit_code == 2
    assert "the output file name is empty" in r.output
