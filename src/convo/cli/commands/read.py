"""``convo list``, ``query`` and ``show``: the selected messages in an output format."""

from __future__ import annotations

import re
from typing import Any

from convo.cli.options import OrderArgs, ReadArgs, order_options, read_options
from convo.cli.runtime import Reporter, command, environment, err, flush_stdout, outcome, state


def run_read(args: ReadArgs, order: OrderArgs, *, show: bool = False) -> int:
    """Select, write, report: the whole of ``list``/``query``/``show``.

    The store is read through its index when that helps and it is fresh
    (``convo.output.selection``); otherwise the scan answers, saying why once on stderr.
    """
    from convo.output import selection
    from convo.output.progress import progress
    from convo.output.reading import nothing_matched, write_selection
    from convo.output.writers import make_writer, registry
    from convo.output.writers.base import RecordWriter
    from convo.query.scan import Selector

    env = environment()
    options = args.write_options()
    writer: RecordWriter
    if show and args.format in (None, "table"):
        # The conversation is the point of show, piped (`| less`) too: plain text then.
        from convo.output.views.show import conversation_view

        fmt, writer = "table", conversation_view(env, options)
    else:
        fmt = args.format or ("table" if env.stdout_isatty else "jsonl")
        writer = make_writer(fmt, env, options)
    selector = Selector(args.filters())
    reporter = Reporter()
    try:
        parts = args.parts(env, reporter, default_store=state["store"])
        store = args.store_input(env, default_store=state["store"])
        if order.count:
            with progress(env, "indexing") as track:  # a stale index is updated first
                n, note = selection.count(
                    selector, parts, store=store, order=order.order(),
                    on_error=reporter.bad_line, track=track,
                )  # fmt: skip
            _note(note)
            env.safe_stdout_bytes().write(b"%d\n" % n)
            flush_stdout(env)
            return outcome(reporter.rejected)
        with progress(env, "indexing") as track:
            chosen = selection.select(
                selector, parts, store=store, order=order.order(), on_error=reporter.bad_line,
                need_record=not registry.get(fmt).raw, track=track,
            )  # fmt: skip
        _note(chosen.note)
        if chosen.skipped:
            reporter.warning(
                f"{store}: {chosen.skipped} lines are not records and were skipped"
                " (`convo validate` names them)"
            )
        written = write_selection(
            selector, parts, writer, on_error=reporter.bad_line, raw=registry.get(fmt).raw,
            pager=args.pager and env.stdout_isatty, batches=chosen.batches,
        )  # fmt: skip
        flush_stdout(env)
        if not written and env.stdout_isatty:
            err("no messages match" if chosen.indexed else nothing_matched(selector))
    finally:
        reporter.close()
    return outcome(reporter.rejected + chosen.skipped)


def _note(note: str) -> None:
    if note:
        err(f"note: index not available ({note}); scanning the store instead")


def list_(args: ReadArgs, order: OrderArgs) -> int:
    """List messages: a table on a terminal, JSONL when piped."""
    return run_read(args, order)


def query(args: ReadArgs, order: OrderArgs) -> int:
    """Filter messages with a query, as in notmuch and mu; JSONL when piped.

    convo query 'QUERY' [FILE]...: an argument naming an existing file or folder (or -)
    is an input, the other arguments make the query. The options (-s, --tag,
    --since...) AND with it.

    \b
    from:NAME, speaker:NAME   the speaker, by the -s name rule
    to:NAME, listener:NAME    a listener, likewise
    tag:TAG                   a tag (any case)
    date:A..B                 A <= time < B, every form --since takes; either end
                              may be left out; date:2024-03 alone is March
    subject:WORDS             words in the subject; text:WORDS in the text only
    thread:ID  id:ID          the thread (or its root's id); one message
    format:NAME  role:ROLE    as in `convo formats`; user, assistant, system, tool
    source:PART               part of the source id (a file name)
    word  "a phrase"          in the text or subject; a phrase's words in order
    from:"Alice Smith"        a value with spaces, quoted

    \b
    NOT (or a leading -) binds tightest, then AND (implicit), then OR; (parentheses).
    A query that starts with - goes after --: convo query -- '-tag:spam'.
    A syntax error names its column: convo: error: query:14: unclosed quote.

    \b
    Example: convo query 'from:alice tag:urgent date:7d.. "jwt tokens" -tag:spam'
    """
    args.inputs, args.query = split_query(args.inputs)
    return run_read(args, order)


# A word with no query syntax that reads as a path: a missing file is then an error
# ("no such file"), not a search for its name. To search such a word, quote it: '"x.json"'.
PATHLIKE = re.compile(
    r"[^\s:\"()]*/[^\s:\"()]*"
    r"|[^\s:\"()/]+\.(jsonl|ndjson|json|mbox|eml|vtt|srt|sbv|txt|xml|csv|html|parquet|zip)(\.gz)?",
    re.IGNORECASE,
)


def split_query(words: list[str]) -> tuple[list[str], str]:
    """``query``'s arguments as (inputs, query text): ``-``, existing paths and path-like
    words (``PATHLIKE``) are inputs, the others the query."""
    import os

    inputs, query = [], []
    for w in words:
        if w == "-" or os.path.exists(w) or PATHLIKE.fullmatch(w):
            inputs.append(w)
        else:
            query.append(w)
    return inputs, " ".join(query)


def show(args: ReadArgs, order: OrderArgs) -> int:
    """Show messages as a conversation: speakers, times, subjects, replies indented.

    The conversation is plain text when piped (`convo show | less`); -f jsonl for records.
    """
    return run_read(args, order, show=True)


def _query_arguments(func):
    """``query``'s arguments are the query and the inputs (``split_query``): say so."""
    import inspect

    import typer

    sig = inspect.signature(func)
    words = typer.Argument(
        None, metavar="QUERY|FILE", show_default=False,
        help="The query (the language above; quote it) and files or folders to read "
        "(- for stdin). Default input: stdin when it is a pipe or a file and no store is "
        "named, else the store.",
    )  # fmt: skip
    params = [
        p.replace(default=words) if p.name == "inputs" else p for p in sig.parameters.values()
    ]
    func.__signature__ = sig.replace(parameters=params)
    return func


# The commands, in help order; each takes exactly the read and order options (``register``),
# so ``cli/fast.py`` may run them without typer.
FAST = {"list": list_, "query": query, "show": show}


def register(app: Any) -> None:
    for name, func in FAST.items():
        wrapped = read_options(order_options(func))
        if func is query:
            wrapped = _query_arguments(wrapped)
        app.command(name)(command(wrapped))
