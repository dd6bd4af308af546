"""``convo list``, ``query`` and ``show``: the selected messages in an output format."""

from __future__ import annotations

from convo.cli.options import read_options
from convo.cli.order_options import order_options
from convo.cli.read_args import OrderArgs, ReadArgs
from convo.cli.runtime import Reporter, command, environment, err, flush_stdout, outcome, state

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any


def run_read(args: ReadArgs, order: OrderArgs, *, show: bool = False) -> int:
    """Select, write, report: the whole of ``list``/``query``/``show``.

    The query runs through the store's index when it can answer and is fresh
    (``convo.store.select``); otherwise the scan answers, saying why once on stderr.
    The count is written alone (no writer is made: a CSV header or a document title
    would precede it), and an exact indexed read imports neither the scan
    (``convo.query.scan``) nor the filters' checks: ``tests/cli/test_startup.py``.
    """
    from convo.store import select as selection

    env = environment()
    conversation = show and args.format in (None, "table")
    # The conversation is the point of show, piped (`| less`) too: plain text then.
    fmt = "table" if conversation else args.format or ("table" if env.stdout_isatty else "jsonl")
    table = fmt == "table" and env.stdout_isatty
    query = args.build_query(_default_order(order, show=conversation, table=table))
    reporter = Reporter()
    try:
        parts = args.parts(env, reporter)
        store = args.store_input(env)
        if order.count:
            with _indexing(env) as track:  # a stale index is updated first
                n, chosen = selection.count(
                    query, parts, store=store, on_error=reporter.bad_line, track=track
                )
            _report(args, chosen)
            env.safe_stdout_bytes().write(b"%d\n" % n)
            flush_stdout(env)
            return outcome(reporter.rejected)
        from convo.output.reading import nothing_matched, unknown_values, write_selection
        from convo.output.writers import is_raw

        writer = _writer(args, fmt, env, conversation=conversation)
        with _indexing(env) as track:
            chosen = selection.select(
                query, parts, store=store, on_error=reporter.bad_line,
                need_record=not is_raw(fmt), track=track,
            )  # fmt: skip
        _report(args, chosen)
        written = write_selection(
            chosen.selector, parts, writer, on_error=reporter.bad_line, raw=is_raw(fmt),
            pager=args.pager and env.stdout_isatty, batches=chosen.batches,
        )  # fmt: skip
        flush_stdout(env)
        if not written and env.stdout_isatty:
            scanned = None if chosen.indexed else chosen.selector
            err("no messages match" if scanned is None else nothing_matched(scanned))
            for hint in unknown_values(query.where):
                err(hint)
    finally:
        reporter.close()
    return outcome(reporter.rejected + chosen.skipped)


class _NoBar:
    """What ``output.progress.progress`` is when stderr is not a terminal (nothing
    tracked), without importing that module and ``contextlib``: 5M of the 107M
    instructions of an indexed count (docs/startup.md, "Third pass")."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _indexing(env: Any) -> Any:
    """The progress of bringing a stale index up to date: a bar on a terminal's stderr."""
    if not env.stderr_isatty:
        return _NoBar()
    from convo.output.progress import progress

    return progress(env, "indexing")


def _writer(args: ReadArgs, fmt: str, env: Any, *, conversation: bool) -> Any:
    """The writer of ``-f`` (``show``'s conversation view for its table)."""
    options = args.write_options()
    if conversation:
        from convo.output.views.show import conversation_view

        return conversation_view(env, options)
    from convo.output.writers import make_writer

    return make_writer(fmt, env, options)


def _default_order(order: OrderArgs, *, show: bool, table: bool) -> OrderArgs:
    """The order when none is asked for (as notmuch and mu users expect): ``show``'s
    conversation reads in time order; a table on a terminal lists the newest first;
    records (JSONL, CSV..., piped or not) keep the input's order (a stream, as jq gives
    it). The config file's ``sort`` replaces the last two."""
    if order.sort is not None or order.latest is not None:
        return order
    if show:
        return order.replace(sort="time")
    configured = state.get("config_sort")  # the config file's `sort` (cli/config.py)
    if configured:
        return order.replace(sort=configured)
    return order.replace(sort="-time") if table else order


def _report(args: ReadArgs, chosen) -> None:
    """The plan with ``--explain``, why the index was not used, skipped lines."""
    if args.explain:
        err(chosen.plan)
    _note(chosen.note)
    if chosen.skipped:
        from convo.core.plural import counted, plural

        err(
            f"warning: {counted(chosen.skipped, 'line')} {plural(chosen.skipped, 'is', 'are')} "
            f"not {plural(chosen.skipped, 'a record', 'records')} and "
            f"{plural(chosen.skipped, 'was', 'were')} skipped"
            " (`convo validate` names them)"
        )


def _note(note: str) -> None:
    if note and not note.startswith("plan:"):
        err(f"note: index not available ({note}); scanning the store instead")


def list_(args: ReadArgs, order: OrderArgs) -> int:
    """List messages: a table on a terminal, JSONL when piped."""
    return run_read(args, order)


def query(args: ReadArgs, order: OrderArgs) -> int:
    """Filter messages with a query, as in notmuch and mu; JSONL when piped.

    convo query 'QUERY' [FILE]...: an argument that is -, an existing path or looks like
    one (a / or a file extension) is an input; the other arguments make the query. The
    options (-s, --tag, --since...) AND with it. Every read command (list, show, stats,
    people, knowledge, export, search, rm, tag) takes the same query.

    \b
    from:NAME, speaker:NAME  the speaker's name, address or whole words of it (-s)
    to:NAME, listener:NAME   a listener, by the same name rule (-r)
    tag:TAG                  a tag, in any case (-t)
    date:A..B                A <= time < B (after:A, before:B); alone: 2024-03
    subject:WORDS            every word in the subject, any case, part of a word
    text:WORDS               every word in the text only
    thread:ID                a thread, or a file without threads (--thread)
    id:ID                    one message
    format:NAME              the input format, as `convo formats` names it
    role:ROLE                the chat role: user, assistant, system or tool
    source:PART              part of the source id (a file name)
    word                     in the text or subject, any case, part of a word (-q)
    "a phrase"               its words in this order, in the text or subject

    \b
    NOT (or a leading -) binds tightest, then AND (implicit), then OR; ( ) group.
    A query that starts with - goes after --: convo query -- '-tag:spam'.
    A syntax error names its column: convo: error: query:14: unclosed quote.
    Naive dates are read in --tz, else UTC with --utc, else the local zone.

    \b
    Example: convo query 'from:alice tag:urgent date:7d.. "jwt tokens" -tag:spam'
    """
    return run_read(args, order)


def show(args: ReadArgs, order: OrderArgs) -> int:
    """Show messages as a conversation: speakers, times, subjects, replies indented.

    The conversation is plain text when piped (`convo show | less`); -f jsonl for records.
    """
    return run_read(args, order, show=True)


# The commands, in help order; each takes exactly the read and order options (``register``),
# so ``cli/fast.py`` may run them without typer.
FAST = {"list": list_, "query": query, "show": show}


def register(app: Any) -> None:
    for name, func in FAST.items():
        app.command(name)(command(read_options(order_options(func))))
