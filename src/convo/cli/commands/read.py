"""``convo list``, ``query`` and ``show``: the selected messages in an output format."""

from __future__ import annotations

import typer

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
    """Filter messages (same filters as every read command); JSONL when piped."""
    return run_read(args, order)


def show(args: ReadArgs, order: OrderArgs) -> int:
    """Show messages as a conversation: speakers, times, subjects, replies indented.

    The conversation is plain text when piped (`convo show | less`); -f jsonl for records.
    """
    return run_read(args, order, show=True)


def register(app: typer.Typer) -> None:
    for name, func in (("list", list_), ("query", query), ("show", show)):
        app.command(name)(command(read_options(order_options(func))))
