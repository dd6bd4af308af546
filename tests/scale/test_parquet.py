"""Parquet: export with pyarrow, read back as records, and the DuckDB/pandas one-liners."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SAMPLE_DATA
from convo.core.errors import ConvoError
from convo.core.io import Source
from convo.importers.context import ImportContext
from convo.importers.records import parquet as reader
from convo.output.exporters.parquet import write_parquet
from convo.pipeline.ingest import read_messages


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return [m.serialize() for m in read_messages(SAMPLE_DATA)]


@pytest.fixture
def dataset(tmp_path: Path, records: list[dict]) -> Path:
    out = tmp_path / "ds"
    assert write_parquet(records, out) == len(records)
    return out


def _by_id(recs):
    return {r["id"]: r for r in recs}


def test_round_trip_is_exact(dataset: Path, records: list[dict]) -> None:
    back = [m.serialize() for m in read_messages(dataset)]
    assert _by_id(back) == _by_id(records)


def test_partitioned_by_format_and_month(dataset: Path, records: list[dict]) -> None:
    formats = {r["format"] for r in records}
    assert {p.name for p in dataset.iterdir()} == {f"format={f}" for f in formats}
    assert all(p.name.startswith("month=") for p in dataset.glob("format=*/*"))


def test_one_file_of_a_dataset_keeps_its_partition_values(dataset: Path) -> None:
    path = next(dataset.glob("format=mbox/month=*/*.parquet"))
    msgs = list(read_messages(path))
    assert msgs and {m.format for m in msgs} == {"mbox"}


def test_unpartitioned(tmp_path: Path, records: list[dict]) -> None:
    write_parquet(records, tmp_path / "flat", partition_by=())
    assert [p.name for p in (tmp_path / "flat").iterdir()] == ["part-0.parquet"]
    assert len(list(read_messages(tmp_path / "flat"))) == len(records)


def test_refuses_a_folder_that_is_not_empty(tmp_path: Path, records: list[dict]) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep.txt").write_text("mine")
    with pytest.raises(ConvoError, match="not an empty folder"):
        write_parquet(records, tmp_path / "x")


def test_unknown_partition_column(tmp_path: Path, records: list[dict]) -> None:
    with pytest.raises(ConvoError, match="cannot partition by nope"):
        write_parquet(records, tmp_path / "x", partition_by=("nope",))


def test_hostile_format_value_stays_inside_the_dataset(tmp_path: Path) -> None:
    rec = {"textChunks": ["hi"], "metadata": {"speaker": "a", "listeners": []}, "tags": [],
           "timestamp": "2024-03-01T00:00:00Z", "id": "x", "format": "../../escape"}  # fmt: skip
    out = tmp_path / "ds"
    write_parquet([rec], out)
    files = list(tmp_path.rglob("*.parquet"))
    assert files and all(out in f.parents for f in files)
    assert [m.format for m in read_messages(out)] == ["../../escape"]


def test_a_bad_row_is_rejected_with_its_place(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"id": ["a", "b"], "text_chunks": [["ok"], []], "timestamp": [None, None]})
    pq.write_table(table, tmp_path / "t.parquet")
    rejects = []
    source = Source(tmp_path / "t.parquet")
    ctx = ImportContext(source, on_reject=rejects.append)
    got = list(reader.read(source, ctx))
    assert [m.id for m in got] == ["a"]
    assert rejects and rejects[0].where.endswith("#row-2")


def test_duckdb_and_pandas_read_the_export(dataset: Path, records: list[dict]) -> None:
    """The one-liners of the README's "Scaling up" section."""
    import duckdb
    import pandas as pd

    n = duckdb.sql(
        f"SELECT count(*) FROM read_parquet('{dataset}/**/*.parquet', hive_partitioning = true)"
    ).fetchall()[0][0]
    assert n == len(records)
    speakers = duckdb.sql(
        f"SELECT speaker, count(*) AS n FROM read_parquet('{dataset}/**/*.parquet', "
        "hive_partitioning = true) GROUP BY speaker ORDER BY n DESC LIMIT 1"
    ).fetchall()
    assert speakers[0][1] >= 1
    df = pd.read_parquet(dataset)
    assert len(df) == len(records) and {"format", "month", "timestamp"} <= set(df.columns)


def test_parquet_file_detected_by_content(dataset: Path, tmp_path: Path) -> None:
    from convo.importers.registry import registry

    path = next(dataset.rglob("*.parquet"))
    renamed = tmp_path / "blob.bin"
    renamed.write_bytes(path.read_bytes())
    assert registry.detect(Source(renamed)).name == "parquet"
    assert registry.detect(Source(dataset)).name == "parquet-dataset"
    assert next(iter(read_messages(renamed))).id
