"""``convo stats``: counts per speaker, tag and format, and a timeline."""

from __future__ import annotations

import typer

from convo.cli.options import read_options_for
from convo.cli.read_args import ReadArgs
from convo.cli.runtime import Reporter, command, environment, flush_stdout, outcome

STATS_FORMATS = ("table", "text", "json", "jsonl", "csv")


JOBS_HELP = (
    "Count in N processes (default: the CPU count for JSONL inputs over 32 MB; "
    "1: in this process). The result is the same either way."
)


def stats(
    args: ReadArgs,
    *,
    jobs: int | None = typer.Option(None, "--jobs", "-j", metavar="N", min=1, help=JOBS_HELP),
    top: int | None = typer.Option(
        None, "--top", min=1, metavar="N",
        help="Rows per table (default: 20 in the table view, all in json and csv).",
    ),
) -> int:  # fmt: skip
    """Messages, words, first and last time per speaker, tag and format, and a timeline."""
    import orjson

    from convo.analysis.stats import stats_of_parts
    from convo.output.views.stats import render

    env = environment()
    fmt = args.format or ("table" if env.stdout_isatty else "json")
    reporter = Reporter()
    try:
        parts = args.parts(env, reporter)
        indexed = args.indexed_records(env)
        if indexed is not None:  # a few messages of the store, found by its index
            from convo.analysis.stats import compute

            result = compute(indexed)
        else:
            args.say_plan(
                "plan: scan (stats reads every selected message, on every core for a large file)"
            )
            result = stats_of_parts(
                parts, args.filters(), on_error=reporter.bad_line, jobs=jobs,
                people=args.load_people(),
            )  # fmt: skip
        if fmt in ("json", "jsonl", "csv"):
            data = result.to_json(top)
            if fmt == "csv":
                from convo.output.views.rows import stats_csv

                env.safe_stdout_bytes().write(stats_csv(data))
            else:
                option = orjson.OPT_INDENT_2 if fmt == "json" else 0
                env.safe_stdout_bytes().write(orjson.dumps(data, option=option) + b"\n")
        else:
            render(result, env.console(), args.write_options(), top=top)
        flush_stdout(env)
    finally:
        reporter.close()
    return outcome(reporter.rejected)


def register(app: typer.Typer) -> None:
    app.command("stats")(command(read_options_for(STATS_FORMATS)(stats)))
