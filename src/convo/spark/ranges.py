"""One large file over many Spark tasks: its ranges read apart, numbered as one process.

A range's messages come numbered as the range alone sees them (``pipeline.split``); the
executor puts back what depends on the ranges before (``source_id`` ``name#``, a content
id's hash before its counter) and tags each row with helper columns: the file
(``_file``, the index of its first unit), the range (``_part``), the message's place in
it (``_seq``), whether it needs the ``source_id`` fallback (``_sid``; its ``source_id``
then holds ``name#``) and whether its id is a content hash (``_content``). ``numbered``
then gives every message of a split file what ``Finisher.number`` gives it in one
process: ``name#N`` from the messages per range (a small count collected on the
driver), and the content-id occurrence counter from a window over each file's messages
of one content hash, in file order. (A message ``check_message`` refuses in a range is
reported at the file, or its own ``source_id``: its ``N`` is not known on the executor.)
"""

from __future__ import annotations

from typing import Any

from convo.core.columns import COLUMN_NAMES

HELPERS = (("_file", "long"), ("_part", "long"), ("_seq", "long"), ("_sid", "boolean"),
           ("_content", "boolean"))  # fmt: skip
NO_HELPERS = dict.fromkeys(name for name, _ in HELPERS)


def helper_fields(t: Any) -> list[Any]:
    """The helper columns as Spark ``StructField``s (``t`` is ``pyspark.sql.types``)."""
    kinds = {"long": t.LongType(), "boolean": t.BooleanType()}
    return [t.StructField(name, kinds[kind], True) for name, kind in HELPERS]


def tag(row: dict[str, Any], file: int, part: int, seq: int, sid: bool, content: bool) -> None:
    """Mark ``row``, the ``seq``-th message of range ``part`` of a split file."""
    row.update(_file=file, _part=part, _seq=seq, _sid=sid, _content=content)


def _offsets(counts: list[Any]) -> list[tuple[int, int, int]]:
    """(file, part, messages before the part) from the messages counted per part."""
    out: list[tuple[int, int, int]] = []
    running: dict[int, int] = {}
    for file, part, n in sorted((r["_file"], r["_part"], r["count"]) for r in counts):
        out.append((file, part, running.get(file, 0)))
        running[file] = running.get(file, 0) + n
    return out


def numbered(spark: Any, records: Any) -> Any:
    """``records`` (with the helper columns) numbered, without the helper columns."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    whole = records.filter(F.col("_file").isNull()).select(*COLUMN_NAMES)
    split = records.filter(F.col("_file").isNotNull())
    counts = split.groupBy("_file", "_part").count().collect()
    if not counts:
        return whole
    offsets = spark.createDataFrame(_offsets(counts), "_file long, _part long, _offset long")
    split = split.join(F.broadcast(offsets), ["_file", "_part"])
    n = (F.col("_offset") + F.col("_seq")).cast("string")
    split = split.withColumn(
        "source_id", F.when(F.col("_sid"), F.concat("source_id", n)).otherwise(F.col("source_id"))
    )
    k = F.row_number().over(Window.partitionBy("_file", "id").orderBy("_part", "_seq")) - 1
    content = split.filter(F.col("_content")).withColumn("_k", k)
    content = content.withColumn(
        "id", F.when(F.col("_k") > 0, F.concat("id", F.lit("-"), F.col("_k").cast("string")))
        .otherwise(F.col("id")),
    )  # fmt: skip
    rest = split.filter(~F.col("_content"))
    return whole.unionByName(content.select(*COLUMN_NAMES)).unionByName(rest.select(*COLUMN_NAMES))
