"""convo.spark in ``local[2]``: the same records as ``convo ingest``, and the spark-submit
entry point. Java is required: a missing one fails here, loudly (``.ci/run`` installs it)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from conftest import SAMPLE_DATA, corpus_dir
from convo.core.columns import row_record
from convo.pipeline.ingest import read_messages


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None:
        pytest.fail("Spark tests need Java: install a JRE (.ci/run does it with apt-get)")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("convo-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _ingested(path: Path) -> dict[str, dict]:
    return {m.id: m.serialize() for m in read_messages(path)}


def _spark_records(df) -> dict[str, dict]:
    return {r["id"]: row_record(r.asDict()) for r in df.collect()}


def test_sample_data_same_records_as_ingest(spark) -> None:
    from convo.spark import ingest

    records, rejects = ingest(spark, str(SAMPLE_DATA))
    assert _spark_records(records) == _ingested(SAMPLE_DATA)
    assert rejects.count() == 0


def test_corpus_same_records_as_ingest(spark) -> None:
    corpus = corpus_dir()
    if not corpus.is_dir():
        pytest.skip(f"corpus not found at {corpus}")
    from convo.spark import ingest

    records, rejects = ingest(spark, str(corpus))
    want: dict[str, dict] = {}
    want_rejects = []
    for msg in read_messages(corpus, on_reject=want_rejects.append):
        want[msg.id] = msg.serialize()
    assert _spark_records(records) == want
    # every rejection of a plain ingest is a reject row (plus the files it skips)
    reasons = {(r["where"], r["reason"]) for r in rejects.collect()}
    assert {(r.where, r.reason) for r in want_rejects} <= reasons


def test_import_options_and_globs(spark, tmp_path: Path) -> None:
    from convo.spark import ingest

    chat = next(SAMPLE_DATA.glob("chat/*whatsapp*"))
    records, _ = ingest(spark, str(chat.parent / "*whatsapp*"), tz="Europe/Berlin", tags=["x"])
    rows = records.collect()
    from convo.core.timestamps import get_zone
    from convo.importers.context import ImportOptions

    want = {
        m.id: m.serialize()
        for m in read_messages(
            chat, options=ImportOptions(tz=get_zone("Europe/Berlin"), tags=["x"])
        )
    }
    assert {r["id"]: row_record(r.asDict()) for r in rows} == want


def test_unknown_option_is_a_usage_error(spark) -> None:
    from convo.core.errors import UsageError
    from convo.spark import ingest

    with pytest.raises(UsageError, match="unknown import option"):
        ingest(spark, str(SAMPLE_DATA), colour="red")


def test_spark_submit_entry_point_writes_parquet(spark, tmp_path: Path) -> None:
    from convo.spark.__main__ import main

    out = tmp_path / "out"
    assert main([str(SAMPLE_DATA), str(out)]) == 0
    back = spark.read.parquet(str(out))
    assert back.count() == len(_ingested(SAMPLE_DATA))
    assert {"format", "month", "speaker", "extra"} <= set(back.columns)


def test_split_files_same_records_as_ingest(spark, tmp_path: Path) -> None:
    """A large mbox and JSONL file read in ranges on the executors: the records (ids with
    their occurrence counters, ``source_id`` fallbacks, line numbers) of one process."""
    from bigfiles import jsonl_file, mbox_file

    from convo.spark import ingest

    paths = [mbox_file(tmp_path / "big.mbox", 400), jsonl_file(tmp_path / "big.jsonl")]
    records, rejects = ingest(spark, [str(p) for p in paths], part_size=4096)
    want_rejects = []
    want = {}
    for msg in read_messages(*paths, on_reject=want_rejects.append):
        want[msg.id] = msg.serialize()
    assert _spark_records(records) == want
    got = sorted((r["where"], r["reason"]) for r in rejects.collect())
    assert got == sorted((r.where, r.reason) for r in want_rejects)
