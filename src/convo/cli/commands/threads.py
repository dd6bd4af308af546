"""``convo threads [QUERY]``: one row per conversation, newest first, with the id
``convo show --thread`` takes. The same query, options and inputs as every read command;
a thread's row counts the messages the query selects."""

from __future__ import annotations

import typer

from convo.cli.options import read_options_for
from convo.cli.read_args import ReadArgs
from convo.cli.runtime import Reporter, command, environment, flush_stdout, outcome

FORMATS = ("table", "jsonl", "json", "csv")
COLUMNS = ("thread", "title", "messages", "participants", "first", "latest", "formats")


def threads(args: ReadArgs) -> int:
    """Conversations, one row each: title, participants, messages, first and latest time.

    Newest first (by the latest message; --reverse: oldest first). -n N shows the first
    N rows. Piped: one JSON
    object a line ({"thread", "title", "messages", "participants", "first", "latest",
    "formats"}); the thread opens with `convo show --thread ID`.
    """
    from convo.analysis.threads import threads as find

    env = environment()
    fmt = args.format or ("table" if env.stdout_isatty else "jsonl")
    reporter = Reporter()
    try:
        # -n and --reverse: the rows shown and their order, as in people (not the
        # messages read: every selected message counts in its thread's row)
        rows_wanted, args.limit = args.limit, None
        reverse, args.reverse = args.reverse, False
        found = find(m.record for m in args.matches(env, reporter))
        found = found[::-1] if reverse else found
        rows = found if rows_wanted is None else found[:rows_wanted]
        if fmt == "table":
            from convo.output.views.threads import render

            render(rows, env.console(), args.write_options())
        else:
            from convo.output.views.rows import dicts_bytes

            docs = [r.to_dict() for r in rows]
            env.safe_stdout_bytes("json").write(dicts_bytes(fmt, docs, COLUMNS))
        flush_stdout(env)
    finally:
        reporter.close()
    return outcome(reporter.rejected)


def register(app: typer.Typer) -> None:
    helps = {
        "limit": "At most this many conversations (rows; every selected message counts).",
        "reverse": "Oldest first (by the latest message).",
    }
    app.command("threads")(command(read_options_for(FORMATS, helps=helps)(threads)))
