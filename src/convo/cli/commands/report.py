"""``convo report [QUERY] -o report.html``: one self-contained HTML analytics page.

Inputs, the query and the filters are every read command's (``@read_options``); the
numbers are ``convo stats``'s and ``convo knowledge``'s for the same selection
(``convo.web.report``). Times of day are in ``--tz`` (else UTC with ``--utc``, else the
local zone); the zone is named on the page, and the same input and zone give the same
bytes. A selection the store's index answers is read once (``web.report.report_of_records``);
otherwise the selection is read three times, so the input must be the store or named
files: stdin is refused (save it first). ``-o FILE`` is written atomically; ``-o -`` or a pipe
takes the page on stdout; a terminal never gets raw HTML.
"""

from __future__ import annotations

import typer

from convo.cli.options import read_options_for
from convo.cli.read_args import ReadArgs

JOBS_HELP = "Count in N processes (default: the CPU count for large JSONL inputs; 1: here)."


def report(
    args: ReadArgs,
    *,
    output: str | None = typer.Option(
        None, "--output", "-o", metavar="FILE", help="Write the page to FILE (- for stdout)."
    ),
    title: str = typer.Option("convo report", "--title", help="The page's title."),
    jobs: int | None = typer.Option(None, "--jobs", "-j", metavar="N", min=1, help=JOBS_HELP),
) -> int:
    """An offline HTML report: activity over time, weekday x hour, response times,
    who talks to whom, topics per person, busiest threads, formats (inline SVG)."""
    from convo.cli.runtime import Reporter, environment, err, outcome
    from convo.core.errors import UsageError
    from convo.pipeline.inputs import reads_store

    env = environment()
    where = args.where()
    stdin = not args.inputs and not reads_store(
        args.inputs, store_named=where["store_named"], stdin_has_data=env.stdin_has_data
    )
    if stdin or "-" in args.inputs:
        raise UsageError(
            "report reads its input three times and cannot take stdin",
            hint="save it first (convo ingest - -o FILE.jsonl) and name the file",
        )
    if output is None and env.stdout_isatty:
        raise UsageError("report writes an HTML page", hint="name it with -o report.html")
    reporter = Reporter()
    try:
        page = _page(args, env, reporter, title, jobs)
        _write(page.encode("utf-8"), output, env)
    finally:
        reporter.close()
    if output not in (None, "-"):
        err(f"report -> {output}")
    return outcome(reporter.rejected)


def _page(args: ReadArgs, env, reporter, title: str, jobs: int | None) -> str:
    from datetime import UTC

    from convo.web.report import report_of_parts, report_of_records

    zone = args.zone()
    if zone is None:  # the local zone, named
        from datetime import datetime

        zone = datetime.now().astimezone().tzinfo or UTC
    name = args.shown_tz or ("UTC" if args.utc else str(zone))
    parts = args.parts(env, reporter)
    indexed = args.indexed_records(env)  # the store's index found the selection: read once
    if indexed is not None:
        return report_of_records(indexed, zone=zone, zone_name=name, title=title)
    args.say_plan("plan: scan (report reads every selected message three times)")
    return report_of_parts(
        parts, args.filters(), zone=zone, zone_name=name, title=title,
        people=args.load_people(), on_error=reporter.bad_line, jobs=jobs,
    )  # fmt: skip


def _write(data: bytes, output: str | None, env) -> None:
    if output is None or output == "-":
        out = env.safe_stdout_bytes("text")
        out.write(data)
        out.flush()
        return
    from convo.core.atomic import atomic_writer

    with atomic_writer(output) as f:
        f.write(data)


def register(app: typer.Typer) -> None:
    from convo.cli.runtime import command

    # -f (the page is HTML) and --pager (it is written, not shown) are not listed.
    app.command("report")(command(read_options_for(("html",), hidden=("format", "pager"))(report)))
