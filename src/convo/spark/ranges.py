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
of one content hash, in file order. Before that window, ``spark.ids.in_file`` gives a
message whose reader's id an earlier message of the file had its content hash, which
the window then counts as one process does. Every row also has its source's place in
the run (``_src``) and the id helper columns of ``spark.ids``; a row of a unit read
whole has ``_file`` NULL, ``_part`` 0 and its place in the unit (``_seq``). (A message
``check_message`` refuses in a range is reported at the file, or its own ``source_id``:
its ``N`` is not known on the executor; nor does it hold its id there.)
"""

from __future__ import annotations

from typing import Any

HELPERS = (("_file", "long"), ("_part", "long"), ("_seq", "long"), ("_sid", "boolean"),
           ("_content", "boolean"), ("_src", "long"), ("_own", "boolean"),
           ("_digest", "long"), ("_base", "string"), ("_clash", "boolean"),
           ("_when", "long"), ("_text", "long"), ("_hash", "string"))  # fmt: skip
NO_HELPERS = dict.fromkeys(name for name, _ in HELPERS)


def helper_fields(t: Any) -> list[Any]:
    """The helper columns as Spark ``StructField``s (``t`` is ``pyspark.sql.types``)."""
    kinds = {"long": t.LongType(), "boolean": t.BooleanType(), "string": t.StringType()}
    return [t.StructField(name, kinds[kind], True) for name, kind in HELPERS]


def tag(row: dict[str, Any], source: int, part: int | None, seq: int) -> None:
    """Mark ``row``, the ``seq``-th message of range ``part`` of a split file (``part``
    None: of a unit read whole) whose first unit is the ``source``-th of the run (its
    ``_sid`` and ``_content`` set, or None: False)."""
    row.update(_file=None if part is None else source, _part=part or 0, _seq=seq,
               _sid=bool(row["_sid"]), _content=bool(row["_content"]), _src=source,
               _clash=False)  # fmt: skip


def _offsets(counts: list[Any]) -> list[tuple[int, int, int]]:
    """(file, part, messages before the part) from the messages counted per part."""
    out: list[tuple[int, int, int]] = []
    running: dict[int, int] = {}
    for file, part, n in sorted((r["_file"], r["_part"], r["count"]) for r in counts):
        out.append((file, part, running.get(file, 0)))
        running[file] = running.get(file, 0) + n
    return out


def numbered(spark: Any, records: Any) -> Any:
    """``records`` (with the helper columns, which it keeps) numbered."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from convo.spark.ids import in_file

    whole = records.filter(F.col("_file").isNull())
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
    split = in_file(split)
    k = F.row_number().over(Window.partitionBy("_file", "id").orderBy("_part", "_seq")) - 1
    content = split.filter(F.col("_content")).withColumn("_k", k)
    content = content.withColumn(
        "id", F.when(F.col("_k") > 0, F.concat("id", F.lit("-"), F.col("_k").cast("string")))
        .otherwise(F.col("id")),
    )  # fmt: skip
    rest = split.filter(~F.col("_content"))
    columns = records.columns
    return whole.unionByName(content.select(*columns)).unionByName(rest.select(*columns))
