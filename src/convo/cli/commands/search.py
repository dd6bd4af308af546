"""``convo search QUERY [filters]``: ranked full-text search through the index.

Not registered by itself: ``register(app)`` adds the command. FTS5 query syntax (words,
"phrases", prefix*, OR, NOT, NEAR); every shared filter applies (speaker, listener,
tag, thread and time through the index; ``--text``/``--regex`` on the hits). Best first.
On a terminal: a table with the relevance (a percentage of the best score), time,
speaker and a snippet with the hits highlighted (all record text escaped); piped: JSONL, each record with its ``"score"``.
Without a usable index the search runs on a temporary one built in memory, and says so
once on stderr.
"""

from __future__ import annotations

import inspect
from typing import Any

import typer

from convo.cli.commands.index import say, store_path
from convo.cli.options import ReadArgs

DEFAULT_LIMIT = 20


def search(
    ctx: typer.Context,
    query: str = typer.Argument(
        ..., metavar="QUERY", help='FTS5 query: words, "a phrase", prefix*, OR, NOT, NEAR(a b).'
    ),
    *,
    args: ReadArgs,
) -> int:
    """Ranked full-text search of the store, best first."""
    from convo.core.errors import UsageError
    from convo.index import IndexQuery
    from convo.index import search as run_search
    from convo.output.env import Environment
    from convo.output.progress import progress

    _refuse_unused(args)
    fmt = args.format
    env = Environment()
    fmt = fmt or ("table" if env.stdout_isatty else "jsonl")
    if fmt not in ("table", "jsonl", "json"):
        raise UsageError(
            f"--format {fmt} is not available for search", hint="choose table|jsonl|json"
        )
    filters = args.filters()
    limit = DEFAULT_LIMIT if filters.limit is None else filters.limit
    # The index narrows by the field filters; text, regexes and a query tree (whose flat
    # fields are only hints) are then checked on each hit.
    post = bool(filters.texts or filters.regexes or filters.tree is not None)
    q = IndexQuery.part_of(filters)
    with progress(env, "indexing") as track:
        hits, note = run_search(
            store_path(ctx, args.store), query, q, limit=10**9 if post else limit, track=track
        )
    if note:
        say(f"note: index not available ({note}); searched without it")
    if hits.window:
        say(
            f"note: more than {hits.window:,} messages match; the {hits.window:,} most recent"
            " were ranked (a phrase, more words or a filter narrows the search)"
        )
    if post:
        from convo.query.scan import Selector

        sel = Selector(filters)
        hits[:] = [h for h in hits if sel.matches(h.record)][:limit]
    if fmt == "table":
        _table(env, hits, utc=args.utc)
    else:
        _json_out(env, hits, fmt)
    return 0


def _refuse_unused(args: ReadArgs) -> None:
    """The read options that do nothing in search (hidden from its help) are refused."""
    from dataclasses import replace

    from convo.core.errors import UsageError

    if args.inputs:
        raise UsageError(
            "search reads the store only", hint="save the files first: convo ingest --save"
        )
    if args.imports != replace(type(args.imports)(), tz=args.imports.tz):
        raise UsageError(
            "import options (--from, --start-date, ...) are not available for search",
            hint="search reads the store; they apply when files are ingested",
        )
    if args.reverse or args.pager:
        raise UsageError(
            f"{'--reverse' if args.reverse else '--pager'} is not available for search",
            hint="hits come best first; pipe to less for paging",
        )


def _hidden(func: Any, names: list[str]) -> Any:
    """``func`` (decorated with read options) with the parameters ``names`` left out of
    ``--help`` (``_refuse_unused`` refuses them)."""
    sig = inspect.signature(func)
    for name in names:
        sig.parameters[name].default.hidden = True
    return func


def _json_out(env: Any, hits: list, fmt: str) -> None:
    import orjson

    out = env.safe_stdout_bytes()
    docs = [{**h.record, "score": h.score} for h in hits]
    if fmt == "json":
        out.write(orjson.dumps(docs, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        for d in docs:
            out.write(orjson.dumps(d) + b"\n")
    out.flush()


def snippet_text(pieces: list[tuple[str, bool]]):
    """The snippet as rich Text (``output.views.search``)."""
    from convo.output.views import search

    return search.snippet_text(pieces)


def _table(env: Any, hits: list, *, utc: bool) -> None:
    from rich.table import Table
    from rich.text import Text

    from convo.core import fields
    from convo.core.text.terminal import one_line
    from convo.output.views.common import display_time

    table = Table(show_lines=False)
    for col in ("score", "time", "speaker", "snippet"):
        table.add_column(col, overflow="fold")
    from convo.output.views.search import relevance

    for h, percent in zip(hits, relevance([h.score for h in hits]), strict=True):
        table.add_row(
            Text(f"{percent}%"), Text(display_time(fields.timestamp(h.record), utc=utc)),
            Text(one_line(fields.speaker_label(h.record), 30)), snippet_text(h.snippet),
        )  # fmt: skip
    console = env.console()
    console.print(table)
    if not hits:
        say("no matches")


def register(app: typer.Typer) -> None:
    """Add ``search`` to the ``convo`` app (shared filters from ``read_options``)."""
    from convo.cli.options import IMPORT_SPECS, read_options_for
    from convo.cli.runtime import command

    # Search reads the store: files, their import options, --reverse and --pager do
    # nothing here (refused when given); --tz stays (it reads --since/--until).
    unused = ["inputs", "reverse", "pager", *(s.name for s in IMPORT_SPECS if s.name != "tz")]
    decorated = read_options_for(("table", "jsonl", "json"))(search)
    app.command("search")(command(_hidden(decorated, unused)))
