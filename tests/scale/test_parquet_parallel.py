"""The Parquet export on several cores: the files of one process, rejects located the same."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from convo.analysis import parallel
from convo.core.errors import RecordError
from convo.core.record import parse_record
from convo.output.exporters import parquet_parallel
from convo.output.exporters.common import as_record, plainly_valid

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path) -> Path:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_query

    path = tmp_path / "store.jsonl"
    bench_query.generate(path, 6_000)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[10] = b"not json\n"
    lines[4000] = b'{"textChunks": [], "metadata": {}}\n'
    path.write_bytes(b"".join(lines))
    return path


def _export(path: Path, out: Path, *args: str):
    from convo.cli.app import app

    return CliRunner().invoke(app, ["export", "--to", "parquet", "-o", str(out), *args, str(path)])


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("partition_by", ["format,month", "thread"])
def test_two_jobs_write_the_files_of_one(store, tmp_path, monkeypatch, partition_by) -> None:
    import pyarrow.parquet as pq

    monkeypatch.setattr(parquet_parallel, "MIN_BYTES", 1)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(parallel, "RANGE_MIN_BYTES", 64 << 10)  # several ranges
    rounds = []
    pools = []

    class Counted(parquet_parallel.FreshPool):
        def __init__(self, *args):
            super().__init__(*args)
            pools.append(self)

        def map(self, fn, items, *, last=False):
            rounds.append((fn.__name__, self.jobs, len(items)))
            return super().map(fn, items, last=last)

    monkeypatch.setattr(parquet_parallel, "FreshPool", Counted)
    runs = {}
    for jobs in ("1", "2"):
        r = _export(store, tmp_path / jobs, "-j", jobs, "--partition-by", partition_by)
        assert r.exit_code == 1, r.stderr  # the rejects
        runs[jobs] = r
    assert [(name, jobs) for name, jobs, _ in rounds] == [
        ("spill_range", 2),
        ("write_partitions", 2),
    ]  # --jobs 1: one process, the one-core path
    assert len(pools) == 1  # both rounds on the same workers
    assert rounds[0][2] > 2
    one, two = _files(tmp_path / "1"), _files(tmp_path / "2")
    assert one.keys() == two.keys() and len(one) > 10
    for name in one:  # row for row per partition, and then byte for byte
        assert pq.read_table(tmp_path / "1" / name).to_pylist() == (
            pq.read_table(tmp_path / "2" / name).to_pylist()
        )
        assert one[name] == two[name]
    assert runs["1"].stderr.replace(f"{tmp_path}/1", "OUT") == runs["2"].stderr.replace(
        f"{tmp_path}/2", "OUT"
    )
    assert f"{store}:11: rejected" in runs["2"].stderr
    assert f"{store}:4001: rejected: textChunks is empty" in runs["2"].stderr
    assert not list((tmp_path / "2").glob(".convo-spill-*"))


def test_small_inputs_stay_in_one_process(store, tmp_path) -> None:
    assert parquet_parallel.export_parts([], parallel.Filters(), tmp_path / "x") is None


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)
KEYS = ("textChunks", "text_chunks", "metadata", "tags", "timestamp", "id", "format",
        "extra", "replyTo", "role", "other")  # fmt: skip
STAMPS = st.sampled_from(["2024-03-01T10:00:00Z", "2024-13-01T10:00:00Z", "2024-03-01", ""])


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(st.sampled_from(KEYS), JSON | STAMPS | st.lists(st.text(max_size=2))),
    st.fixed_dictionaries({"textChunks": st.lists(st.text(max_size=2), min_size=1),
                           "timestamp": STAMPS}),
)  # fmt: skip
def test_plainly_valid_only_when_the_full_check_accepts(extra: dict, base: dict) -> None:
    for rec in (extra, {**base, **extra}, base):
        if plainly_valid(rec):
            parse_record(dict(as_record(rec)), "x")  # raises if the shortcut was wrong


def test_plainly_valid_takes_convo_records() -> None:
    rec = {"textChunks": ["hi"], "metadata": {"speaker": "a", "listeners": ["b"]}, "tags": [],
           "timestamp": "2024-03-01T00:00:00Z", "source_id": "s", "id": "x", "format": "slack",
           "extra": {"a": [1]}}  # fmt: skip
    assert plainly_valid(rec) and plainly_valid(orjson.loads(orjson.dumps(rec)))
    assert not plainly_valid({**rec, "tags": "ab"})
    with pytest.raises(RecordError):
        parse_record({**rec, "tags": "ab"})
