"""The ``convo`` command line: option parsing and calls into the library, nothing more.

Imports of the library happen inside the commands so that ``convo --help`` stays fast.
"""

import functools
import os
import sys
from pathlib import Path
from typing import Any

import typer

from convo.cli.options import ReadArgs, read_options

app = typer.Typer(
    name="convo",
    help="Turn conversations from anywhere into one record (TypeAgent ConversationMessage JSONL) "
    "and query them fast.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

_state: dict[str, Any] = {"debug": False, "store": None}


def _version_callback(value: bool) -> None:
    if value:
        from convo import __version__

        typer.echo(f"convo {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    store: str | None = typer.Option(
        None,
        "--store",
        metavar="PATH",
        envvar="CONVO_STORE",
        help="The store file for every command.",
    ),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    version: bool = typer.Option(
        False,
        "--version",
        callback=_version_callback,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """convo: ingest, list, query, show and validate conversations."""
    _state["debug"] = debug
    _state["store"] = store


def _env():
    from convo.output.env import Environment

    return Environment()


def _err(message: str) -> None:
    from convo.core.text.terminal import printable

    sys.stderr.write(f"convo: {printable(message, newlines=False)}\n")
    sys.stderr.flush()


def command(func):
    """Run a command with convo's error rules: one line, exit codes, quiet broken pipes."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from convo.core.errors import ConvoError

        try:
            code = func(*args, **kwargs)
        except ConvoError as e:
            if _state["debug"]:
                raise
            _err(f"error: {e}")
            raise typer.Exit(int(e.exit_code)) from None
        except BrokenPipeError:
            _quiet_broken_pipe()
            raise typer.Exit(0) from None
        except KeyboardInterrupt:
            _err("interrupted")
            raise typer.Exit(130) from None
        except (typer.Exit, typer.Abort):
            raise
        except Exception as e:
            if _state["debug"]:
                raise
            _err(
                f"error: internal error ({type(e).__name__}: {e}); re-run with --debug and report it"
            )
            raise typer.Exit(2) from None
        if code:
            raise typer.Exit(int(code))
        return None

    return wrapper


def _outcome(rejected: int) -> int:
    """The exit code of a command that finished: ExitCode.REJECTED if anything was rejected."""
    from convo.core.errors import ExitCode

    return int(ExitCode.REJECTED if rejected else ExitCode.OK)


def _quiet_broken_pipe() -> None:
    # The reader went away (`| head`): point stdout at /dev/null so the interpreter's
    # final flush does not complain, and end quietly.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


class _Reporter:
    """Warnings and rejects on stderr: the first few in full, then a count."""

    SHOW = 20

    def __init__(self, quiet: bool = False, rejects_path: str | None = None, show: int = SHOW):
        self.quiet = quiet
        self.show = show
        self.shown = 0
        self.hidden = 0
        self.rejected = 0
        self._rejects = None
        self.rejects_path = rejects_path
        if rejects_path:
            from convo.core.errors import InputError

            try:
                Path(rejects_path).parent.mkdir(parents=True, exist_ok=True)
                self._rejects = open(rejects_path, "wb")  # noqa: SIM115 - closed in close()
            except OSError as e:
                raise InputError(
                    f"cannot write --rejects ({e.strerror})", where=rejects_path
                ) from None

    def line(self, kind: str, text: str) -> None:
        if self.quiet:
            return
        if self.shown < self.show:
            self.shown += 1
            _err(f"{kind}: {text}")
        else:
            self.hidden += 1

    def reject(self, rejection) -> None:
        self.rejected += 1
        hint = f"; {rejection.hint}" if rejection.hint else ""
        self.line("warning", f"{rejection.where}: rejected: {rejection.reason}{hint}")
        if self._rejects is not None:
            from convo.core.jsonl import dumps

            self._rejects.write(dumps(rejection.to_record()))

    def bad_line(self, error, line) -> None:
        from convo.importers.context import Rejection

        self.reject(Rejection(error.where or "", error.what, error.hint, line.raw))

    def warning(self, text: str) -> None:
        self.line("warning", text)

    def close(self) -> None:
        if self.hidden and not self.quiet:
            more = "" if self.rejects_path else " (use --rejects FILE to keep the rejected records)"
            _err(f"warning: {self.hidden} more warnings not shown{more}")
        if self._rejects is not None:
            self._rejects.close()


def _import_options(**kw: Any):
    from datetime import datetime

    from convo.core.errors import UsageError
    from convo.core.timestamps import get_zone, parse_datetime
    from convo.importers.context import ImportOptions

    try:
        zone = get_zone(kw.pop("tz"))
    except ValueError as e:
        raise UsageError(str(e)) from None
    start = kw.pop("start_date")
    start_dt: datetime | None = None
    if start:
        try:
            start_dt = parse_datetime(start, zone)
        except ValueError:
            raise UsageError(
                f"unreadable --start-date {start!r}", hint="e.g. '2024-03-06 10:00'"
            ) from None
    speakers = kw.get("speakers", "auto")
    if speakers not in ("auto", "voice", "prefix", "none"):
        raise UsageError(f"unknown --speakers {speakers!r}", hint="choose auto|voice|prefix|none")
    if kw.get("strict") and kw.get("lenient"):
        raise UsageError("--strict and --lenient contradict each other", hint="choose one")
    return ImportOptions(tz=zone, start_date=start_dt, **kw)


@app.command()
@command
def ingest(
    inputs: list[str] | None = typer.Argument(
        None, help="Files or folders to import (- for stdin). Default: stdin.", show_default=False
    ),
    from_: str | None = typer.Option(
        None,
        "--from",
        metavar="FORMAT",
        help="Input format, instead of detection (see `convo formats`).",
    ),
    output: str | None = typer.Option(
        None,
        "--output",
        "-o",
        metavar="FILE",
        help="Write JSONL to FILE (atomically); - for stdout.",
    ),
    save: bool = typer.Option(
        False, "--save", help="Append to the store, skipping ids already there."
    ),
    store: str | None = typer.Option(None, "--store", metavar="PATH", help="The store file."),
    tz: str | None = typer.Option(
        None,
        "--tz",
        metavar="ZONE",
        help="Zone for naive source times (IANA name, UTC, +02:00). Default UTC.",
    ),
    start_date: str | None = typer.Option(
        None,
        "--start-date",
        metavar="WHEN",
        help="Transcripts: the date and time the recording started.",
    ),
    speakers: str = typer.Option(
        "auto", "--speakers", metavar="MODE", help="Transcripts: auto|voice|prefix|none."
    ),
    no_merge: bool = typer.Option(False, "--no-merge", help="Transcripts: one message per cue."),
    strip_quotes: bool = typer.Option(
        False, "--strip-quotes", help="Email: drop quoted replies and signatures."
    ),
    tag: list[str] | None = typer.Option(
        None, "--tag", "-t", metavar="TAG", help="Add this tag to every message; repeatable."
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Stop at the first rejected record and write nothing."
    ),
    lenient: bool = typer.Option(
        False,
        "--lenient",
        help="Wrap objects that are not messages as text instead of rejecting them.",
    ),
    rejects: str | None = typer.Option(
        None,
        "--rejects",
        metavar="FILE",
        help="Write every rejected record with its reason to FILE (JSONL).",
    ),
    quiet: bool = typer.Option(False, "--quiet", help="No summary or warnings on stderr."),
) -> int:
    """Import conversations into JSONL: to stdout when piped, else into the store."""
    from convo.core.errors import UsageError
    from convo.pipeline.run import run_ingest

    env = _env()
    if output and save:
        raise UsageError("-o and --save both given", hint="choose one destination")
    options = _import_options(
        tz=tz, start_date=start_date, speakers=speakers, merge=not no_merge,
        strip_quotes=strip_quotes, tags=list(tag or []), strict=strict, lenient=lenient,
    )  # fmt: skip
    paths = list(inputs or [])
    if not paths:
        if not env.stdin_has_data:
            raise UsageError("nothing to ingest", hint="name files or folders, or pipe data in")
        paths = ["-"]
    if not output and not save:
        if env.stdout_isatty:
            save = True
        else:
            output = "-"
    from convo.output.progress import progress

    reporter = _Reporter(quiet=quiet, rejects_path=rejects)
    try:
        with progress(env, "importing", enabled=not quiet) as track:
            summary = run_ingest(
                paths, options, format_name=from_, output=output, save=save,
                store=store or _state["store"], env=env,
                on_reject=reporter.reject, on_warning=reporter.warning, track=track,
            )  # fmt: skip
    finally:
        reporter.close()
    if not quiet:
        _err(summary.text())
    return _outcome(summary.stats.rejected)


def _run_read(args: ReadArgs, view: str) -> int:
    from convo.output.render import make_writer
    from convo.pipeline.inputs import record_parts
    from convo.query.scan import Selector

    env = _env()
    fmt = args.format or ("table" if env.stdout_isatty else "jsonl")
    filters = args.filters()
    selector = Selector(filters)
    reporter = _Reporter()
    parts = record_parts(
        args.inputs, store=args.store or _state["store"], stdin_has_data=env.stdin_has_data,
        on_reject=reporter.reject,
    )  # fmt: skip
    writer = make_writer(fmt, env, view=view, utc=args.utc)
    need = fmt not in ("jsonl", "json")
    if filters.limit is None and not filters.reverse:
        batches = selector.batches(parts, reporter.bad_line, need_record=need)
    else:
        batches = ([m] for m in selector.select_parts(parts, reporter.bad_line, need_record=need))
    pager = args.pager and fmt in ("table", "text", "markdown") and env.stdout_isatty
    try:
        with (
            writer.console.pager(styles=True)
            if pager and hasattr(writer, "console")
            else _nullctx()
        ):
            for batch in batches:
                writer.write_many(batch)
            writer.close()
        _flush_stdout(env)
    finally:
        reporter.close()
    return _outcome(reporter.rejected)


def _nullctx():
    import contextlib

    return contextlib.nullcontext()


def _flush_stdout(env) -> None:
    env.stdout.flush()
    buf = getattr(env.stdout, "buffer", None)
    if buf is not None:
        buf.flush()


@app.command("list")
@command
@read_options
def list_(args: ReadArgs) -> int:
    """List messages: a table on a terminal, JSONL when piped."""
    return _run_read(args, "list")


@app.command()
@command
@read_options
def query(args: ReadArgs) -> int:
    """Filter messages (same filters as every read command); JSONL when piped."""
    return _run_read(args, "list")


@app.command()
@command
@read_options
def show(args: ReadArgs) -> int:
    """Show messages as a conversation: speakers, times, subjects, replies indented."""
    return _run_read(args, "show")


@app.command()
@command
@read_options
def stats(args: ReadArgs) -> int:
    """Messages, words, first and last time per speaker, tag and format, and a timeline."""
    from convo.analysis.stats import run_stats

    reporter = _Reporter()
    try:
        code = run_stats(args, _env(), _state["store"], reporter)
    finally:
        reporter.close()
    return code or (1 if reporter.rejected else 0)


@app.command()
@command
def formats(
    format: str = typer.Option(
        "table", "--format", "-f", help="table|json|jsonl (one format a line)."
    ),
) -> int:
    """List the input formats convo can import, with the files they match."""
    from convo.core.errors import UsageError
    from convo.importers.registry import registry

    if format not in ("table", "json", "jsonl"):
        raise UsageError(f"unknown --format {format!r}", hint="choose table|json|jsonl")
    env = _env()
    fmts = sorted(registry.formats(), key=lambda f: (f.family, f.name))
    if format in ("json", "jsonl"):
        import orjson

        data = [
            {"name": f.name, "family": f.family, "description": f.description,
             "patterns": list(f.patterns), "directory": f.directory, "example": f.example}
            for f in fmts
        ]  # fmt: skip
        if format == "jsonl":
            env.stdout.write("".join(orjson.dumps(d).decode() + "\n" for d in data))
        else:
            env.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
        return 0
    from rich.table import Table
    from rich.text import Text

    table = Table(title=None, show_lines=False)
    for col in ("format", "family", "files", "what it reads", "example"):
        table.add_column(col, overflow="fold")
    for f in fmts:
        table.add_row(
            Text(f.name, style="bold"), Text(f.family), Text(" ".join(f.patterns) + (" (folder)" if f.directory else "")),
            Text(f.description), Text(f.example[:80], style="dim"),
        )  # fmt: skip
    env.console().print(table)
    return 0


@app.command()
@command
def schema() -> int:
    """Print the JSON Schema of the record (generated from the pydantic model)."""
    import orjson

    from convo.core.record import json_schema

    env = _env()
    env.stdout.write(orjson.dumps(json_schema(), option=orjson.OPT_INDENT_2).decode() + "\n")
    return 0


@app.command()
@command
def validate(
    inputs: list[str] | None = typer.Argument(
        None, help="JSONL files (- for stdin). Default: stdin, else the store.", show_default=False
    ),
    store: str | None = typer.Option(None, "--store", metavar="PATH", help="The store file."),
    typeagent: bool = typer.Option(
        False, "--typeagent", help="Only require TypeAgent's keys, not convo's id/format/source_id."
    ),
    quiet: bool = typer.Option(False, "--quiet", help="Only the exit code and the summary."),
) -> int:
    """Check JSONL records; report every bad line with its number; exit 1 if any."""
    from convo.pipeline.inputs import record_lines
    from convo.pipeline.validate import validate_lines

    env = _env()
    reporter = _Reporter(quiet=quiet, show=10**9)  # validate reports every bad line
    lines = record_lines(
        list(inputs or []),
        store=store or _state["store"],
        stdin_has_data=env.stdin_has_data,
        raw_only=True,
    )
    good, bad = validate_lines(lines, require_convo=not typeagent, on_bad=reporter.reject)
    reporter.close()
    _err(f"{good} valid, {bad} invalid")
    return _outcome(bad)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except BrokenPipeError:
        _quiet_broken_pipe()
        sys.exit(0)


# Commands kept in modules of their own; they add themselves to ``app``.
from convo.cli.commands import knowledge as cli_knowledge  # noqa: E402, F401  (registers `knowledge`)
from convo.cli.commands.export import register as _register_export  # noqa: E402

_register_export(app)
