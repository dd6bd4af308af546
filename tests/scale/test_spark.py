"""convo.spark in ``local[2]``: the same records as ``convo ingest``, and the spark-submit
entry point. Java is required: a missing one fails here, loudly (``.ci/run`` installs it)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import SAMPLE_DATA, corpus_dir
from convo.core.columns import row_record
from convo.pipeline.ingest import Ingest, read_messages


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

    got = ingest(spark, str(SAMPLE_DATA))
    records, rejects = got
    assert _spark_records(records) == _ingested(SAMPLE_DATA)
    assert rejects.count() == 0
    warnings: list[str] = []
    list(Ingest(on_warning=warnings.append).messages([SAMPLE_DATA]))
    assert sorted(r["warning"] for r in got.warnings.collect()) == sorted(warnings) != []


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


def test_spark_submit_entry_point_writes_parquet(spark, tmp_path: Path, capsys) -> None:
    from convo.spark.__main__ import main

    out = tmp_path / "out"
    assert main([str(SAMPLE_DATA), str(out)]) == 0
    said = capsys.readouterr().err.splitlines()
    assert said and all(line.startswith("convo: warning: ") for line in said)
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


def _one_process(paths) -> tuple[list[bytes], list[str]]:
    """``convo ingest --jobs 1``: the records (as sorted lines) and warnings (sorted)."""
    from convo.core.jsonl import dumps

    warnings: list[str] = []
    ingest = Ingest(on_warning=warnings.append)
    return sorted(dumps(m.serialize()) for m in ingest.messages(paths)), sorted(warnings)


def _on_spark(spark, paths, **kw) -> tuple[list[bytes], list[str]]:
    from convo.core.jsonl import dumps
    from convo.spark import ingest

    got = ingest(spark, [str(p) for p in paths], **kw)
    lines = sorted(dumps(row_record(r.asDict())) for r in got.records.collect())
    return lines, sorted(r["warning"] for r in got.warnings.collect())


def _timed(i: int, rid: str | None, text: str, when: str) -> bytes:
    from convo.core.jsonl import dumps

    record = {"textChunks": [text], "metadata": {"speaker": "Ann", "listeners": []},
              "tags": [], "timestamp": when, "source_id": f"s#{i}", "id": rid,
              "format": "jsonl"}  # fmt: skip
    if rid is None:
        del record["id"]
    return dumps(record)


JAN, FEB, EPOCH = "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "1970-01-01T00:00:00Z"


def _write(path: Path, n: int, given: dict[int, tuple]) -> Path:
    filler = lambda i: (f"{path.stem}{i}", f"{path.stem} m{i} " + "x" * 40, JAN)  # noqa: E731
    path.write_bytes(b"".join(_timed(i, *given.get(i, filler(i))) for i in range(n)))
    return path


def test_ids_held_as_one_process_holds_them(spark, tmp_path: Path) -> None:
    """An id a split file's ranges give two messages, and one two sources give two
    messages (split files a and c, b read whole): the records and the id warnings of
    ``convo ingest --jobs 1`` (``spark.ids``)."""
    from convo.pipeline.plan import plan_units
    from convo.pipeline.split import split_units

    clash_text = "a m3 " + "x" * 40  # a's 3rd message without an id: one content hash
    a = _write(tmp_path / "a.jsonl", 80, {
        50: ("a3", "another text", JAN),  # a3 again, another message: a3's content hash
        51: ("a3", "a m3 " + "x" * 40, JAN),  # a3 again, the same message: a3
        60: (None, clash_text, JAN),  # no id: content hash and its occurrence counter
        70: ("a5", "a m5 " + "x" * 40, FEB),  # another time: another message in the file
    })  # fmt: skip
    b = _write(tmp_path / "b.jsonl", 6, {
        0: ("a10", "other", FEB),  # a's id, another time and text: b's content hash
        1: ("a11", "a m11 " + "x" * 40, FEB),  # the same text at another time: kept
        2: ("a12", "other", EPOCH),  # untimed: kept
        3: ("b3", "one", JAN), 4: ("b3", "two", JAN),  # b's own clash (read whole)
    })  # fmt: skip
    c = _write(tmp_path / "c.jsonl", 80, {
        20: ("a10", "a m10 " + "x" * 40, JAN),  # a's message again: kept
        40: ("b0", "other c", FEB),  # b's id: renamed
        50: ("a20", "c's", FEB), 70: ("a20", "c's again", FEB),  # renamed, then c's clash
    })  # fmt: skip
    assert all(len(split_units(plan_units([p]), None, 2, 2048)) > 5 for p in (a, c))
    want = _one_process([a, b, c])
    assert sum("the id of another message" in w for w in want[1]) == 3
    assert sum("an earlier input" in w for w in want[1]) == 2
    assert _on_spark(spark, [a, b, c], part_size=2048) == want
    # one input: nothing held across sources, a split file's ids still held
    assert _on_spark(spark, [a], part_size=2048) == _one_process([a])


@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 59), st.sampled_from(["a", "b", "c"]),
                          st.integers(0, 59), st.sampled_from(["x", "y"]),
                          st.sampled_from([JAN, FEB, EPOCH])), max_size=10))  # fmt: skip
# A whole unit's id an earlier split file gave another message: the executors noted no
# whole unit's ids once ``last_own`` was only a worker's (found by this property).
@example(dups=[("a", 0, "a", 0, "x", JAN), ("a", 0, "b", 0, "x", FEB)])
@settings(
    max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_ids_any_repeats_held_as_one_process(spark, tmp_path_factory, dups) -> None:
    """Ids repeated anywhere in two split files (a, c) and a whole one (b): the records
    and warnings of ``convo ingest --jobs 1``."""
    folder = tmp_path_factory.mktemp("ids")
    given_ids: dict[str, dict[int, tuple]] = {}
    for name, i, of, j, text, when in dups:
        given_ids.setdefault(name, {})[i] = (f"{of}{j}", text, when)
    paths = [_write(folder / f"{name}.jsonl", 4 if name == "b" else 60, given_ids.get(name, {}))
             for name in "abc"]  # fmt: skip
    assert _on_spark(spark, paths, part_size=2048) == _one_process(paths)
