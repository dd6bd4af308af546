"""``spark-submit SCRIPT INPUTS... OUTPUT``, SCRIPT this file (``python -m convo.spark
--script`` prints its path), or ``python -m convo.spark INPUTS... OUTPUT``: import
on the cluster and write the records as a Parquet dataset partitioned like
``convo export --to parquet``; rejects go to ``OUTPUT/_rejects`` (JSON lines) when any,
warnings to standard error as ``convo ingest`` prints them.

Exit codes follow ``convo ingest``: 0 all imported, 1 some records rejected, 2 an error.
"""

from __future__ import annotations

import argparse
import os
import sys

from convo.core.columns import PARTITION_COLUMNS
from convo.core.errors import ConvoError, ExitCode


def _args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m convo.spark",
        description=__doc__.split("\n\n")[0],
        epilog='spark-submit: spark-submit "$(python -m convo.spark --script)" INPUTS... OUTPUT',
    )
    p.add_argument("inputs", nargs="+", help="files, folders or globs")
    p.add_argument("output", help="the Parquet dataset folder to write")
    p.add_argument("--from", dest="format", help="the input format (default: detected per file)")
    p.add_argument("--tz", help="zone for naive source times (default UTC)")
    p.add_argument("--tag", action="append", default=[], help="add a tag to every message")
    p.add_argument(
        "--partition-by", default=",".join(PARTITION_COLUMNS),
        help="comma-separated partition columns ('' for none)",
    )  # fmt: skip
    p.add_argument("--partitions", type=int, help="Spark partitions for the inputs")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--script"]:  # what spark-submit runs: it takes a file, not a module
        print(os.path.abspath(__file__))
        return int(ExitCode.OK)
    args = _args(argv)
    # Local runs: executors use this interpreter, where convo is installed.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from convo.spark import ingest

    spark = SparkSession.builder.appName("convo ingest").getOrCreate()
    options = {"tags": args.tag}
    if args.tz:
        options["tz"] = args.tz
    try:
        ingested = ingest(
            spark, args.inputs, format=args.format, partitions=args.partitions, **options
        )
        records, rejects = ingested
        partition_by = [c for c in args.partition_by.split(",") if c]
        writer = records.write.mode("errorifexists")
        (writer.partitionBy(*partition_by) if partition_by else writer).parquet(args.output)
        for row in ingested.warnings.collect():
            print(f"convo: warning: {row['warning']}", file=sys.stderr)
        rejected = rejects.count()
        if rejected:
            rejects.write.mode("errorifexists").json(f"{args.output.rstrip('/')}/_rejects")
            print(f"convo: {rejected} rejected, see {args.output}/_rejects", file=sys.stderr)
    except ConvoError as e:
        print(f"convo: error: {e}", file=sys.stderr)
        return int(ExitCode.USAGE)
    return int(ExitCode.REJECTED) if rejected else int(ExitCode.OK)


if __name__ == "__main__":
    sys.exit(main())
