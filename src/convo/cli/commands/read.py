"""``convo list``, ``query`` and ``show``: the selected messages in an output format."""

from __future__ import annotations

import typer

from convo.cli.options import ReadArgs, read_options
from convo.cli.runtime import Reporter, command, environment, err, flush_stdout, outcome, state


def run_read(args: ReadArgs, *, show: bool = False) -> int:
    """Select, write, report: the whole of ``list``/``query``/``show``."""
    from convo.output.reading import nothing_matched, write_selection
    from convo.output.views.show import conversation_view
    from convo.output.writers import make_writer, registry
    from convo.output.writers.base import RecordWriter
    from convo.query.scan import Selector

    env = environment()
    options = args.write_options()
    writer: RecordWriter
    if show and args.format in (None, "table"):
        # The conversation is the point of show, piped (`| less`) too: plain text then.
        fmt, writer = "table", conversation_view(env, options)
    else:
        fmt = args.format or ("table" if env.stdout_isatty else "jsonl")
        writer = make_writer(fmt, env, options)
    selector = Selector(args.filters())
    reporter = Reporter()
    try:
        parts = args.parts(env, reporter, default_store=state["store"])
        written = write_selection(
            selector, parts, writer, on_error=reporter.bad_line, raw=registry.get(fmt).raw,
            pager=args.pager and env.stdout_isatty,
        )  # fmt: skip
        flush_stdout(env)
        if not written and env.stdout_isatty:
            err(nothing_matched(selector))
    finally:
        reporter.close()
    return outcome(reporter.rejected)


def list_(args: ReadArgs) -> int:
    """List messages: a table on a terminal, JSONL when piped."""
    return run_read(args)


def query(args: ReadArgs) -> int:
    """Filter messages (same filters as every read command); JSONL when piped."""
    return run_read(args)


def show(args: ReadArgs) -> int:
    """Show messages as a conversation: speakers, times, subjects, replies indented.

    The conversation is plain text when piped (`convo show | less`); -f jsonl for records.
    """
    return run_read(args, show=True)


def register(app: typer.Typer) -> None:
    app.command("list")(command(read_options(list_)))
    app.command("query")(command(read_options(query)))
    app.command("show")(command(read_options(show)))
