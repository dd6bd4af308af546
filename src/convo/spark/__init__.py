"""convo on Spark: import files on the executors, get DataFrames of records and rejects.

    from convo.spark import ingest
    records, rejects = ingest(spark, "s3a://bucket/mail/*.mbox", tz="Europe/Berlin")
    records.write.partitionBy("format", "month").parquet("out/")

The driver expands the paths (a glob, files and folders, walked as ``convo ingest`` walks
them) into units: one file, or one folder a folder format claims (a Maildir, a Slack
export), and one range of a large mbox or JSONL file (``pipeline.split``; the lines and
records of each range are counted by a Spark job, and ``spark.ranges`` numbers the
messages of a split file as one process does). The units are distributed over ``partitions`` Spark partitions and each executor
runs convo's own importers on its units, exactly as ``convo ingest`` does for that input,
so ids, ``source_id`` and content are the same records ``convo ingest`` produces. What
no executor sees alone is decided on the driver's plan over every executor's rows: the
numbers of a split file's messages (``spark.ranges``), and an id a reader gives, held to
one message of its file and of the run as ``convo ingest`` holds it (docs/ids.md;
``spark.ids``: an id a split file's ranges give two messages, or an earlier source gave
a message of another time and text, gives the later message its content hash). The
records DataFrame has the columns of the Parquet export (``convo.core.columns``); the
rejects DataFrame has ``source``, ``where``, ``reason``, ``hint`` and ``raw``; the
warnings DataFrame (``ingest(...).warnings``; the pair unpacks as before) has
``source`` and ``warning``, the line ``convo ingest`` prints after ``warning:``: the
readers' warnings and each source's one warning of the ids it gave another message.
(Unlike ``convo ingest``, a file or folder entry skipped is a reject row, as before.)

Paths must be readable by the executors under the same name (a local path in local mode,
a shared file system on a cluster). convo must be importable on the executors
(installed there from its checkout, ``pip install DIR``, or shipped with
``--py-files``). pyspark is the optional extra ``spark`` (``core.extras``).
"""

from __future__ import annotations

import glob
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from convo.core.columns import COLUMN_NAMES, COLUMNS, record_row
from convo.core.errors import ConvoError, UsageError
from convo.core.plural import plural
from convo.importers.context import ImportOptions, Rejection
from convo.pipeline.ingest import one_source
from convo.pipeline.plan import EMPTY, Unit, plan_units
from convo.pipeline.split import split_units
from convo.spark import ids
from convo.spark.ids import range_helpers, whole_helpers
from convo.spark.ranges import NO_HELPERS, helper_fields, numbered, tag

REJECT_COLUMNS = ("source", "where", "reason", "hint", "raw")
WARNING_COLUMNS = ("source", "warning")
SKIP_HINT = "name it with --from FORMAT (see `convo formats`)"

__all__ = [
    "REJECT_COLUMNS",
    "WARNING_COLUMNS",
    "Ingested",
    "ingest",
    "record_schema",
    "reject_schema",
    "warning_schema",
]


def _types() -> Any:
    try:
        from pyspark.sql import types
    except ImportError:
        from convo.core.extras import missing

        raise missing("Spark", "pyspark", "spark") from None
    return types


def record_schema(*, helpers: bool = False) -> Any:
    """The Spark schema of the records DataFrame (the Parquet export's columns; with
    ``helpers``, also the columns ``spark.ranges`` numbers split files by)."""
    t = _types()
    kinds = {
        "string": t.StringType(),
        "strings": t.ArrayType(t.StringType()),
        "timestamp": t.TimestampType(),
        "seconds": t.LongType(),
    }
    fields = [t.StructField(name, kinds[kind], True) for name, kind in COLUMNS]
    return t.StructType(fields + (helper_fields(t) if helpers else []))


def reject_schema() -> Any:
    t = _types()
    return t.StructType([t.StructField(name, t.StringType(), True) for name in REJECT_COLUMNS])


def warning_schema() -> Any:
    t = _types()
    return t.StructType([t.StructField(name, t.StringType(), True) for name in WARNING_COLUMNS])


class Ingested(tuple):
    """What ``ingest`` returns: the pair ``(records, rejects)``, with the warnings
    DataFrame as ``warnings`` (``records``, ``rejects`` by name too)."""

    warnings: Any

    def __new__(cls, records: Any, rejects: Any, warnings: Any) -> Ingested:
        self = super().__new__(cls, (records, rejects))
        self.warnings = warnings
        return self

    @property
    def records(self) -> Any:
        return self[0]

    @property
    def rejects(self) -> Any:
        return self[1]


def expand(paths_or_glob: str | Path | Iterable[str | Path]) -> list[str]:
    """Paths as given, globs expanded (sorted), in order; a glob matching nothing is an error."""
    items = [paths_or_glob] if isinstance(paths_or_glob, str | Path) else list(paths_or_glob)
    out: list[str] = []
    for item in items:
        text = str(item)
        if glob.has_magic(text) and "://" not in text:
            matched = sorted(glob.glob(text, recursive=True))
            if not matched:
                raise UsageError(f"no file matches {text!r}", hint="check the pattern")
            out.extend(matched)
        else:
            out.append(text)
    return out


def run_unit(
    unit: Unit, options: ImportOptions, format_name: str | None, file: int = 0, cross: bool = False
) -> Iterator[tuple]:
    """One unit imported on an executor: ("r", row) for each record, ("x", reject) for each
    rejection (also the unit itself when it cannot be read at all, or is skipped), ("w",
    warning) for each warning. Rows are tagged for ``spark.ranges.numbered`` and
    ``spark.ids`` (``file``: the unit's source's place in the run, a range's the index of
    its file's first unit; ``cross``: the run holds ids across sources)."""
    # A unit is one source: its ids are noted (``last_own``), the driver's plan holds
    # them across sources (``spark.ids.across``), as a worker's parent does.
    from convo.pipeline.parallel import UnitIngest

    if unit.kind == EMPTY:  # a warning, as a plain ingest gives it
        from convo.pipeline.notes import nothing_found

        yield ("w", {"source": unit.path, "warning": nothing_found(unit.path, int(unit.reason))})
        return
    if unit.kind != "read":
        yield ("x", _reject_row(unit, _unread(unit)))
        return
    rejects: list[Rejection] = []
    warnings: list[str] = []
    ingest = UnitIngest(
        options,
        format_name=format_name,
        on_reject=rejects.append,
        on_warning=warnings.append,
        cross=cross,
    )
    try:
        for seq, (record, helpers) in enumerate(_messages(unit, ingest, cross), 1):
            row = record_row(record)
            row.update(NO_HELPERS, **helpers)
            tag(row, file, unit.part.index if unit.part else None, seq)
            if row["_sid"]:
                row["source_id"] = f"{unit.path}#"
            yield ("r", row)
            yield from _reported(unit, rejects, warnings)
    except ConvoError as e:
        rejects.append(Rejection(e.where or unit.path, e.what, e.hint))
    yield from _reported(unit, rejects, warnings)


def _unread(unit: Unit) -> Rejection:
    """The rejection of a ``skip`` or ``fail`` unit."""
    if unit.kind == "fail":
        return Rejection(unit.path, unit.reason, unit.hint)
    from convo.pipeline.ingest import NOT_RECOGNISED, unrecognised_rejection

    if unit.reason.startswith(NOT_RECOGNISED):  # as a plain ingest reports it
        return unrecognised_rejection(unit.path)
    return Rejection(unit.path, f"skipped, {unit.reason}", SKIP_HINT)


def _reported(unit: Unit, rejects: list[Rejection], warnings: list[str]) -> Iterator[tuple]:
    """The rejections and warnings the unit's reading has given so far (emptied)."""
    for r in rejects:
        yield ("x", _reject_row(unit, r))
    for w in warnings:
        yield ("w", {"source": unit.path, "warning": w})
    rejects.clear()
    warnings.clear()


def _messages(unit: Unit, ingest: Any, cross: bool) -> Iterator[tuple[dict[str, Any], dict]]:
    """``(record, helper columns)`` per message: a range's record holds the content hash
    of a content id, before its counter (``spark.ranges.numbered``), and its helpers say
    whether it needs a ``source_id`` (``_sid``) and has a content id (``_content``)."""
    if unit.part is None:
        for msg in ingest.messages([unit.path]):
            yield msg.serialize(), whole_helpers(msg, ingest.last_own)
        return
    from convo.importers.build import file_scope
    from convo.pipeline.split import read_range

    scope = file_scope(unit.path)
    for msg, depends in read_range(ingest, unit):
        record = msg.serialize()
        if depends is None:
            yield record, {}
            continue
        if depends.base is not None:
            record["id"] = depends.base
        helpers = range_helpers(msg, depends.own, scope, cross)
        yield record, {"_sid": depends.needs_sid, "_content": depends.base is not None, **helpers}


def _reject_row(unit: Unit, r: Rejection) -> dict[str, Any]:
    from convo.pipeline.split import Refused

    where, raw = r.where, r.raw
    if isinstance(raw, Refused):  # a refused message of a range, numbered as the range sees it
        from convo.pipeline.ingest import refused_raw

        where = unit.path if raw.depends.needs_sid else where  # its N is not known here
        raw = refused_raw(raw.msg)
    raw = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return {"source": unit.path, "where": where, "reason": r.reason, "hint": r.hint, "raw": raw}


def ingest(
    spark: Any,
    paths_or_glob: str | Path | Iterable[str | Path],
    *,
    format: str | None = None,
    partitions: int | None = None,
    part_size: int | None = None,
    **import_options: Any,
) -> Ingested:
    """Import on the cluster: (records DataFrame, rejects DataFrame), with the warnings
    DataFrame as ``.warnings`` (``Ingested``).

    ``import_options`` are ``ImportOptions`` fields (``tz`` may be a zone name), the
    options of ``convo ingest``; ``format`` is ``--from``; a large mbox or JSONL file
    is read in ranges of about ``part_size`` bytes (default
    ``pipeline.split.PART_BYTES``).
    """
    options = import_options_from(import_options)
    from convo.importers.registry import registry

    forced = registry.get(format) if format else None
    sc = spark.sparkContext
    parallel = partitions or sc.defaultParallelism
    spark_map = lambda fn, items: sc.parallelize(items, len(items)).map(fn).collect()  # noqa: E731
    paths = expand(paths_or_glob)
    units = plan_units(paths, forced)
    units = split_units(units, forced, parallel, part_size, mapper=spark_map)
    jobs = [(i - (u.part.index if u.part else 0), u) for i, u in enumerate(units)]
    cross = not one_source(paths)
    slices = max(1, min(len(units), parallel))
    tagged = sc.parallelize(jobs, slices).flatMap(
        lambda j: run_unit(j[1], options, format, j[0], cross)
    )
    sources = {src: u.path for src, u in jobs if u.part is None or u.part.index == 0}
    return _frames(spark, tagged.cache(), sources, cross)


def _frames(spark: Any, tagged: Any, sources: dict[int, str], cross: bool) -> Ingested:
    """The DataFrames of the executors' tagged rows: the records numbered and their ids
    held (``spark.ranges``, ``spark.ids``), the rejects, the warnings (the readers',
    then each source's id warnings)."""
    from pyspark.sql import functions as F

    rows = tagged.filter(lambda t: t[0] == "r").map(lambda t: t[1])
    rows = numbered(spark, spark.createDataFrame(rows, schema=record_schema(helpers=True)))
    rows = ids.across(rows) if cross else rows.withColumn("_crossed", F.lit(False))
    rejects = tagged.filter(lambda t: t[0] == "x").map(lambda t: t[1])
    said = tagged.filter(lambda t: t[0] == "w").map(lambda t: t[1])
    return Ingested(
        rows.select(*COLUMN_NAMES),
        spark.createDataFrame(rejects, schema=reject_schema()),
        spark.createDataFrame(said.union(ids.warnings(rows, sources)), schema=warning_schema()),
    )


def import_options_from(values: dict[str, Any]) -> ImportOptions:
    """``ImportOptions`` from keyword values, a zone name allowed for ``tz``."""
    from dataclasses import fields as dc_fields

    known = {f.name for f in dc_fields(ImportOptions)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise UsageError(
            f"unknown import {plural(len(unknown), 'option')}: {', '.join(unknown)}",
            hint="use " + ", ".join(sorted(known)),
        )
    values = dict(values)
    if isinstance(values.get("tz"), str):
        from convo.core.timestamps import get_zone

        values["tz"] = get_zone(values["tz"])
    return ImportOptions(**values)
