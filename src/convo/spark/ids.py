"""The ids readers give, held on Spark as ``convo ingest`` holds them (docs/ids.md).

``convo ingest`` holds an id a reader gives to one message of its source
(``pipeline.ingest.Finisher``; a split file's parent: ``pipeline.split.FileNumbers``) and
then to one message of the run (``core.stamps.RunIds``). A unit read whole on an executor
already holds its own ids (one ``Finisher`` reads it); what no executor sees is the
others' messages, so each row says what the two rules need, in helper columns
(``spark.ranges.HELPERS``):

- ``_own``: the id is the reader's, subject to the rules (not empty, an ``h:`` one read
  back from a JSONL file too; in a range, one ``Depends.own`` notes; of a whole unit,
  one its ``Ingest`` kept, ``Ingest.last_own``);
- a range's own id also ``_digest`` (``split.own_digest``: text, speaker and time) and
  ``_base``, the message's content hash in its file (``ContentIds.base``), the id it
  gets if an earlier message of the file had its id;
- when the run holds ids across sources (more than one input: ``pipeline.ingest.one_source``),
  ``_when`` and ``_text``, the halves of the message's stamp (``core.stamps.stamp``), and
  ``_hash``, ``core.record.content_id`` of the message, the id it gets if an earlier
  source gave its id to another message.

Then two window passes of the driver's plan decide, over every executor's rows:

1. ``in_file`` (before a split file's content ids are counted, ``spark.ranges.numbered``):
   per file and id, in file order (``_part``, ``_seq``), the first message's digest
   holds the id; a later message of another digest gets ``_base`` and joins the content
   ids the file's occurrence window counts (``_content``), marked ``_clash``;
2. ``across`` (a run of more than one input): per id still the reader's, in the run's
   order (``_src``, the source's place among the planned units, then ``_part``,
   ``_seq``), the first message holds it; a message of a later source gets ``_hash``
   when ``core.stamps.other_message`` of the two stamps (both timed at other seconds,
   other texts), marked ``_crossed``. ``RunIds`` keeps the first stamp of an id for the
   whole run, so the first row is the one to compare with: no chains.

What is not held as in one process: a message ``check_message`` refuses in a range is
a reject, not a row, so it claims no id of its file here (``FileNumbers.rejection``
claims it), nor counts among its file's content ids.

``warnings`` gives each source's one warning of each rule, the text ``convo ingest``
prints (``clash_warning``, ``crossed_warning``), from the counts of the marked rows.
The cost on the executors: a CRC pair and one or two content hashes per message with an
id of a range or, across sources, of a whole unit; on the driver's plan, a shuffle of
the split files' rows by id (the first pass) and of all rows by id (the second).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from convo.core.record import ConversationMessage, content_id

_M32 = (1 << 32) - 1


def _signed(value: int) -> int:
    """A 64-bit unsigned value as Spark's signed ``long``."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _marks(msg: ConversationMessage, mark: int) -> dict[str, Any]:
    """What ``across`` needs of a message: its stamp's halves and its content hash."""
    return {"_when": mark >> 32, "_text": mark & _M32, "_hash": content_id(msg)}


def whole_helpers(msg: ConversationMessage, own: tuple[int, int] | None) -> dict[str, Any]:
    """The id helper columns of a message of a whole unit (``own``: its ``Ingest``'s
    ``last_own``, None when the run does not hold ids across sources)."""
    if own is None:
        return {"_own": False}
    return {"_own": True, **_marks(msg, own[1])}


def range_helpers(
    msg: ConversationMessage, own: tuple[str, int, int] | None, scope: str, cross: bool
) -> dict[str, Any]:
    """The id helper columns of a range's message (``own``: ``Depends.own``; ``scope``:
    its file's ``ContentIds.file``)."""
    if own is None:
        return {"_own": False}
    _, digest, mark = own
    out = {"_own": True, "_digest": _signed(digest), "_base": content_id(msg, conversation=scope)}
    if cross:
        out.update(_marks(msg, mark))
    return out


def in_file(split: Any) -> Any:
    """A split file's rows with an id an earlier message of the file had, on another
    digest, given their content hash (before its occurrence counter) and ``_clash``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    first = F.min(F.struct("_part", "_seq", "_digest")).over(
        Window.partitionBy("_file", "_own", "id")
    )
    own = F.col("_own")
    split = split.withColumn("_clash", own & (F.col("_digest") != first["_digest"]))
    clash = F.col("_clash")
    return (
        split.withColumn("id", F.when(clash, F.col("_base")).otherwise(F.col("id")))
        .withColumn("_content", F.col("_content") | clash)
        .withColumn("_own", own & ~clash)
    )


def across(rows: Any) -> Any:
    """``rows`` with an id an earlier source gave another message given the message's
    content hash, marked ``_crossed``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    first = F.min(F.struct("_src", "_part", "_seq", "_when", "_text")).over(
        Window.partitionBy("_own", "id")
    )
    when, text = F.col("_when"), F.col("_text")
    held_when, held_text = first["_when"], first["_text"]
    other = (held_when != 0) & (when != 0) & (held_when != when) & (held_text != text)
    rows = rows.withColumn("_crossed", F.col("_own") & (first["_src"] != F.col("_src")) & other)
    return rows.withColumn("id", F.when(F.col("_crossed"), F.col("_hash")).otherwise(F.col("id")))


def warnings(rows: Any, sources: dict[int, str]) -> Any:
    """The RDD of the id warnings (``source``, ``warning``) of ``rows`` marked by
    ``in_file`` and ``across`` (``sources``: ``_src`` -> the source's name)."""
    from pyspark.sql import functions as F

    def total(name: str) -> Any:
        return F.coalesce(F.sum(F.col(name).cast("long")), F.lit(0)).alias(name)

    counts = rows.groupBy("_src").agg(total("_clash"), total("_crossed"))
    counts = counts.filter((F.col("_clash") > 0) | (F.col("_crossed") > 0))
    return counts.rdd.flatMap(
        lambda r: warning_rows(sources[r["_src"]], r["_clash"], r["_crossed"])
    )


def warning_rows(name: str, clashes: int, crossed: int) -> Iterator[dict[str, str]]:
    """A source's id warnings as ``convo ingest`` gives them, in its order."""
    from convo.pipeline.notes import clash_warning, crossed_warning

    if clashes:
        yield {"source": name, "warning": f"{name}: {clash_warning(clashes)}"}
    if crossed:
        yield {"source": name, "warning": f"{name}: {crossed_warning(crossed)}"}
