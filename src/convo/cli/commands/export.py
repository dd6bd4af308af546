"""``convo export --to FORMAT [inputs] [filters]``: records out in another framework's format.

Inputs and filters are those of every read command (``@read_options``; named files in any
importable format, else stdin, else the store). Output goes to stdout, or ``-o FILE``
(written atomically). The formats are the exporter registry's
(``convo.output.exporters.registry``: built-ins and ``convo.exporters`` entry points).
Agent exporters give JSON (one array, or one value a line with ``--jsonl``); document
exporters give text. Exporters with a ``stream`` function stream (memory stays flat); the
others (anthropic, langmem) build one document and hold the selection in memory.
``--format``, ``--utc`` and ``--pager`` from the shared options do not apply (times in
exports are UTC): ``--help`` does not list them, ``-f`` is refused with a hint, the others
are ignored.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import IO, Any

import typer

from convo.cli.choices import Choices, choice_option
from convo.cli.llm_options import EXTRACTOR, LLM_MODEL, LLM_TIMEOUT, LLM_URL, llm_settings
from convo.cli.options import read_options_for
from convo.cli.read_args import ReadArgs

JOBS_HELP = (
    "parquet: convert in N processes (default: the CPU count for JSONL inputs over 64 MB; "
    "1: in this process). The files are the same either way."
)


def _exporter_names() -> list[str]:
    from convo.output.exporters.registry import registry

    return [*registry.export_names(), TYPEAGENT_DB]


# Not an exporter: a database built by TypeAgent (cli/typeagent_db.py).
TYPEAGENT_DB = "typeagent-db"
NAME = typer.Option(
    None, "--name", metavar="NAME", help="typeagent-db: the conversation's name. Default: convo."
)


def export(
    args: ReadArgs,
    to: str = choice_option(
        ...,
        "--to",
        choices=Choices(_exporter_names, "export format"),
        help="Target format: an exporter's name (built-ins and installed plug-ins).",
    ),
    jsonl: bool = typer.Option(
        False, "--jsonl", help="Agent formats: one JSON value a line instead of one array."
    ),
    output: str | None = typer.Option(
        None,
        "--output",
        "-o",
        metavar="FILE",
        help="Write to FILE (atomically) instead of stdout; a folder for parquet, a database for sqlite.",
    ),
    partition_by: str | None = typer.Option(
        None,
        "--partition-by",
        metavar="COLUMNS",
        help="parquet: comma-separated partition columns ('' for none). Default: format,month.",
    ),
    jobs: int | None = typer.Option(None, "--jobs", "-j", metavar="N", min=1, help=JOBS_HELP),
    name: str | None = NAME,
    extractor: str = EXTRACTOR,
    llm_url: str | None = LLM_URL,
    llm_model: str | None = LLM_MODEL,
    llm_timeout: float = LLM_TIMEOUT,
) -> int:
    """Export messages to an agent framework's format, or to a document (markdown, csv, ...)."""
    from convo.cli.runtime import Reporter, environment
    from convo.core.errors import UsageError
    from convo.output.exporters.registry import registry

    if args.format is not None:
        raise UsageError("--format does not apply to export", hint="use --to FORMAT")
    env = environment()
    reporter = Reporter()
    llm = llm_settings(extractor, llm_url, llm_model, llm_timeout)
    kind = TYPEAGENT_DB if to.lower() == TYPEAGENT_DB else registry.get_exported(to.lower()).kind
    _applies(to.lower(), kind, {"--jsonl": jsonl, "--partition-by": partition_by is not None,
                                "--jobs": jobs is not None, "--name": name is not None})  # fmt: skip
    if kind == TYPEAGENT_DB:
        return _typeagent_db(args, env, reporter, output, name or "convo", llm)
    if llm is not None:
        raise UsageError("--extractor llm applies to --to typeagent-db only")
    exporter = registry.get_exported(to.lower())
    if exporter.kind == "dataset":
        columns = "format,month" if partition_by is None else partition_by
        return _write_dataset(exporter, args, env, reporter, output, columns, jobs)
    return _write_records(exporter, args, env, reporter, output, jsonl)


# The options of one kind of export: given to another, each was silently ignored
# (`--to markdown --jsonl` wrote Markdown, `--to csv --partition-by month` one CSV).
_FOR = {
    "--jsonl": ({"agent"}, "the agent formats (openai, anthropic, ...)"),
    "--partition-by": ({"parquet"}, "--to parquet"),
    "--jobs": ({"dataset"}, "the datasets (--to parquet, --to sqlite)"),
    "--name": ({TYPEAGENT_DB}, "--to typeagent-db"),
}


def _applies(to: str, kind: str, given: dict[str, bool]) -> None:
    """A usage error for an option given that the export ``--to`` does not use."""
    from convo.core.errors import UsageError

    for option, on in given.items():
        kinds, what = _FOR[option]
        if on and not ({to, kind} & kinds):
            raise UsageError(f"{option} does not apply to --to {to}", hint=f"it is for {what}")


def _typeagent_db(args, env, reporter, output: str | None, name: str, llm) -> int:
    from convo.cli.typeagent_db import write_typeagent_db

    return write_typeagent_db(args, env, reporter, output, _checked, name, llm)


def _write_records(exporter, args, env, reporter, output: str | None, jsonl: bool) -> int:
    """An agent or document export of the selected records, to stdout or ``-o``."""
    from convo.cli.runtime import err, flush_stdout, outcome
    from convo.core.plural import plural
    from convo.output.progress import progress
    from convo.query.scan import Selector

    selector = Selector(args.build_query().filters())
    # Messages done and their rate on a terminal's stderr, unless the export itself goes
    # to that terminal (a bar would cut through it).
    shown = output is not None or not env.stdout_isatty
    try:
        with progress(env, "exporting", enabled=shown) as track:
            counted = _Counted(track(args.matches(env, reporter, selector=selector)))
            written = _Counted(_checked(counted, reporter))  # less the records rejected
            kind = "text" if exporter.kind == "document" else "json"
            with _destination(output, env, kind) as out:
                for piece in _render(exporter, iter(written), jsonl):
                    out.write(piece)
        if output is None:
            flush_stdout(env)
        if not counted.n:  # an empty page or file, but never without a word
            from convo.output.reading import nothing_matched

            err(nothing_matched(selector))
        elif output not in (None, "-"):  # as a dataset export says it
            err(f"exported {written.n} {plural(written.n, 'message')} -> {output}")
    finally:
        reporter.close()
    return outcome(reporter.rejected)


class _Counted:
    """Records counted as they pass: the matches (an empty export says so), and those
    written (what the summary says was exported)."""

    def __init__(self, matches):
        self.matches = matches
        self.n = 0

    def __iter__(self):
        for m in self.matches:
            self.n += 1
            yield m


def _write_dataset(exporter, args, env, reporter, output, partition_by: str, jobs) -> int:
    """A dataset (a Parquet folder, a SQLite database): written at ``-o PATH``, never to stdout; large JSONL
    inputs by the exporter's ``write_parts`` (on several cores), the rest as records."""
    from convo.cli.runtime import err, outcome
    from convo.core.errors import UsageError
    from convo.core.plural import plural
    from convo.query.scan import Selector

    if not output or output == "-":
        raise UsageError(
            f"--to {exporter.name} writes a folder or a database, not stdout",
            hint="name it with -o PATH",
        )
    try:
        columns = tuple(c.strip() for c in partition_by.split(",") if c.strip())
        parts = list(args.parts(env, reporter))
        filters = args.filters()
        n = None
        if exporter.write_parts is not None:
            n = exporter.write_parts(
                parts, filters, output, partition_by=columns, jobs=jobs,
                on_error=reporter.bad_line, on_reject=reporter.reject,
            )  # fmt: skip
        if n is None:
            selector = Selector(filters)
            if jobs == 1:
                selector.parallel = None  # one process: no parallel scan either
            records = _checked(selector.select_parts(parts, reporter.bad_line), reporter)
            n = exporter.write_dir(records, output, partition_by=columns)
    finally:
        reporter.close()
    err(f"exported {n} {plural(n, 'message')} -> {output}")
    return outcome(reporter.rejected)


def _checked(matches, reporter) -> Iterator[dict[str, Any]]:
    """Records that validate; a record that does not is rejected, located."""
    from convo.importers.context import Rejection
    from convo.output.exporters.common import validated

    def reject(m, e) -> None:
        reporter.reject(Rejection(m.where, e.what, e.hint, m.raw))

    return validated(matches, reject)


def _render(exporter, records: Iterator[dict[str, Any]], jsonl: bool) -> Iterator[bytes]:
    import orjson

    if exporter.kind == "document":
        pieces = exporter.stream(records) if exporter.stream else iter([exporter.export(records)])
        for text in pieces:
            yield text.encode("utf-8", "surrogateescape")
        return
    if exporter.stream is not None:
        values = exporter.stream(records)
    else:
        whole = exporter.export(records)
        if isinstance(whole, dict):  # one document (an Anthropic request body)
            if not jsonl:
                yield orjson.dumps(whole, option=orjson.OPT_INDENT_2) + b"\n"
                return
            whole = [whole]
        values = iter(whole)
    if jsonl:
        for v in values:
            yield orjson.dumps(v, option=orjson.OPT_APPEND_NEWLINE)
        return
    yield from _json_array(values)


def _json_array(values: Iterator[Any]) -> Iterator[bytes]:
    import orjson

    first = True
    yield b"["
    for v in values:
        yield (b"\n" if first else b",\n") + orjson.dumps(v)
        first = False
    yield b"]\n" if first else b"\n]\n"


@contextlib.contextmanager
def _destination(output: str | None, env, kind: str) -> Iterator[IO[bytes]]:
    if output is None or output == "-":
        yield env.safe_stdout_bytes(kind)  # escaped only when stdout is a terminal
        return
    from convo.core.atomic import atomic_writer

    with atomic_writer(output) as out:
        yield out


def register(app: typer.Typer) -> None:
    """Add ``export`` to the ``convo`` app (called from cli.py)."""
    from convo.cli.runtime import command

    app.command("export")(command(read_options_for(None, hidden=NOT_EXPORT)(export)))


NOT_EXPORT = ("format", "utc", "pager")  # shared options that do not apply
