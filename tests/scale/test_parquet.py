"""Parquet: export with pyarrow, read back as records, and the DuckDB/pandas one-liners."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    """The one-liners of docs/scale-out.md's "Three steps"."""
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


# Records come from orjson, which reads an integer beyond 64 bits as a float.
_ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.text(max_size=5),
    st.lists(st.one_of(st.text(max_size=4), st.integers(-(2**63), 2**63 - 1), st.none()), max_size=3),
    st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2),
)  # fmt: skip
_KEYS = ("id", "timestamp", "tags", "textChunks", "text_chunks", "format", "source_id",
         "thread", "replyTo", "reply_to", "role", "subject", "extra", "metadata")  # fmt: skip


@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(_KEYS),
            st.one_of(_ODD, st.sampled_from(["2024-03-01T10:00:00Z", "2024-03-01 10:00", ""]),
                      st.fixed_dictionaries({}, optional={"speaker": _ODD, "listeners": _ODD,
                                                          "recipients": _ODD})),
        ),
        min_size=1, max_size=6,
    )
)  # fmt: skip
@settings(max_examples=150, deadline=None)
def test_arrow_batch_gives_the_values_of_record_values(rows: list[dict]) -> None:
    """The column-wise hot path reads every record as ``core.fields`` does, odd ones too."""
    from convo.core.columns import COLUMN_NAMES, record_values
    from convo.output.exporters.parquet import arrow_batch, arrow_schema

    schema = arrow_schema()
    batch = arrow_batch(rows, schema)
    want = [record_values(r) for r in rows]
    for i, name in enumerate(COLUMN_NAMES):
        got = batch.column(i).to_pylist()
        if name == "timestamp":
            got = [t and t.strftime("%Y-%m-%dT%H:%M:%SZ") for t in got]
        assert got == [w[i] for w in want], name


def test_read_commands_take_a_dataset_and_one_file(runner, tmp_path: Path, records) -> None:
    """``convo export --to parquet``, then list/query/stats over the folder and one file."""
    import orjson

    from convo.cli.app import app

    out = tmp_path / "ds"
    r = runner.invoke(app, ["export", str(SAMPLE_DATA), "--to", "parquet", "-o", str(out)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["list", str(out), "-f", "jsonl"])
    assert r.exit_code == 0, r.output
    assert _by_id(orjson.loads(x) for x in r.stdout.splitlines()) == _by_id(records)
    speaker = records[0]["metadata"]["speaker"]
    want = sum(1 for x in records if x["metadata"]["speaker"] == speaker)
    r = runner.invoke(app, ["query", "-s", speaker, str(out), "-f", "jsonl"])
    assert r.exit_code == 0 and len(r.stdout.splitlines()) >= want
    r = runner.invoke(app, ["stats", str(out), "-f", "json"])
    assert r.exit_code == 0 and orjson.loads(r.stdout)["messages"] == len(records)
    one = next(out.glob("format=mbox/month=*/part-0.parquet"))
    r = runner.invoke(app, ["list", str(one), "-f", "jsonl"])
    assert r.exit_code == 0 and {orjson.loads(x)["format"] for x in r.stdout.splitlines()} == {
        "mbox"
    }


def test_spark_reads_the_export(tmp_path: Path, dataset: Path, records) -> None:
    """The ``spark.read.parquet`` one-liner of docs/scale-out.md: the same rows, partitions
    read back as columns."""
    import os
    import shutil
    import sys

    if shutil.which("java") is None:
        pytest.fail("Spark tests need Java: install a JRE (.ci/run does it with apt-get)")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
    spark = spark.config("spark.sql.session.timeZone", "UTC").getOrCreate()
    df = spark.read.parquet(str(dataset))
    assert df.count() == len(records)
    assert {"format", "month", "speaker", "text"} <= set(df.columns)
    got = {r["id"] for r in df.filter(df.format == "mbox").select("id").collect()}
    assert got == {x["id"] for x in records if x["format"] == "mbox"}


def test_strings_where_lists_belong_read_as_no_list() -> None:
    """Arrow would take ``"tags": "ab"`` as the list ["a", "b"]; core.fields reads no
    list. In a batch of plain records the one odd record still reads as fields does."""
    from convo.core.columns import COLUMN_NAMES, record_values
    from convo.output.exporters.parquet import arrow_batch, arrow_schema

    plain = {"textChunks": ["hello", "x"], "metadata": {"speaker": "a", "listeners": ["b"]},
             "tags": ["t"], "timestamp": "2024-03-01T10:00:00Z", "id": "1", "format": "slack"}  # fmt: skip
    rows = [plain, {**plain, "tags": "ab"}, {**plain, "textChunks": "q"},
            {**plain, "metadata": {"speaker": "a", "listeners": "zz"}}]  # fmt: skip
    batch = arrow_batch(rows, arrow_schema())
    want = [record_values(r) for r in rows]
    for i, name in enumerate(COLUMN_NAMES):
        if name != "timestamp":
            assert batch.column(i).to_pylist() == [w[i] for w in want], name


def test_files_do_not_depend_on_threads_or_spills(tmp_path: Path, records, monkeypatch) -> None:
    """One writer thread or two, a spill per batch or one in all: the same bytes."""
    from convo.output.exporters import parquet

    def files(out: Path) -> dict[str, bytes]:
        return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.parquet"))}

    many = records * 20
    write_parquet(many, tmp_path / "a")
    monkeypatch.setattr(parquet, "WRITE_THREADS", 1)
    monkeypatch.setattr(parquet, "BATCH_ROWS", 7)
    monkeypatch.setattr(parquet, "BUFFER_BYTES", 1)
    write_parquet(many, tmp_path / "b")
    assert files(tmp_path / "a") == files(tmp_path / "b") != {}
    assert not list((tmp_path / "b").glob(".convo-spill-*"))


def test_partitioned_by_text_keeps_it_as_a_folder(tmp_path: Path, records) -> None:
    """``text`` is joined again when a file is written, unless it names the folders."""
    import pyarrow.parquet as pq

    write_parquet(records, tmp_path / "t", partition_by=("thread",))
    write_parquet(records[:5], tmp_path / "x", partition_by=("text",))
    table = pq.read_table(next((tmp_path / "t").rglob("*.parquet")))
    assert table.column("text").to_pylist() == [
        "\n".join(c) for c in table["text_chunks"].to_pylist()
    ]
    assert len(list((tmp_path / "x").rglob("*.parquet"))) >= 1
    assert len(list(read_messages(tmp_path / "x"))) == 5
