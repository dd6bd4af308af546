"""``convo search TEXT... [filters] [--mode fts|semantic|hybrid]``: ranked search of the
store, what a person types.

Not registered by itself: ``register(app)`` adds the command. The text is what a person
types (``convo.query.search_text``): field terms of the query language filter
(``from:alice tag:security -tag:system date:2024-03..``), everything else is ranked:
by BM25 (``--mode fts``: words ORed, adjacent words of one piece as a phrase,
punctuation harmless), by meaning (``semantic``, over the vectors ``convo embed`` made)
or by both fused (``hybrid``, the default once the store has vectors); ``--fts`` takes
FTS5's own syntax instead. Every shared option filters too, before the ranking
(``Store.search``). Best first. On a terminal: a table with the rank, the score (as a
share of the best), why each hit matched (keyword, meaning or both; not shown for
keyword-only search), time, speaker, a snippet with the hits highlighted (all record
text escaped) and the id and thread to open with ``convo show --thread``; piped: JSONL,
each record with its ``"score"`` and, when meaning ranked, ``"match"`` (why). Without a
usable index the search runs on a temporary one built in memory, and says so once on
stderr; a store with vectors but without the ``[embed]`` extra is searched by keyword
and says so once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from convo.cli.options import Spec
from convo.cli.read_args import ReadArgs
from convo.cli.runtime import err

if TYPE_CHECKING:
    import typer

DEFAULT_LIMIT = 20
# Search's own options; declared once, for typer (``register``) and cli/fast_search.py.
OWN_SPECS = (
    Spec("fts", bool, False, ("--fts",), 'The text is FTS5 syntax: "a phrase", prefix*, a OR b, NOT, NEAR(a b).'),
    Spec("mode", str | None, None, ("--mode",), "Rank by keyword (BM25), by meaning, or both fused [default: hybrid when the store has vectors (convo embed), else fts].", "fts|semantic|hybrid"),
)  # fmt: skip


def search(*, fts: bool = False, mode: str | None = None, args: ReadArgs) -> int:
    """Ranked search of the store by what you type, best first."""
    from convo.core.errors import NoStore, UsageError
    from convo.embed.blas import one_thread
    from convo.output.env import Environment
    from convo.output.progress import progress
    from convo.store import Store

    one_thread()  # before numpy loads: no BLAS thread pool (convo.embed.blas)
    # Every argument is text: search reads the store, never a file.
    text = " ".join(w for w in (*args.inputs, args.query) if w)
    args.inputs, args.query = [], ""
    if not text.strip():
        raise UsageError(
            "nothing to search for",
            hint="convo search WORDS... (a question, an error string, from:NAME)",
        )
    env = Environment()
    fmt = output_format(env, args)
    query, limit = unlimited(args)
    store = Store(args.where()["store"], tz=args.tz, utc=args.utc, people=args.load_people())
    if not store.path.exists():  # as `similar` says (it answered nothing, exit 0)
        raise NoStore(str(store.path))
    with progress(env, "indexing") as track:
        hits = store.search(text, query, limit=limit, fts=fts, mode=mode, track=track)
    if hits.note:
        err(f"note: index not available ({hits.note}); searched without it")
    if hits.dropped:
        from convo.query.search_text import MAX_PIECES

        err(
            f"note: the search ranks the first {MAX_PIECES} words or phrases; "
            f"{hits.dropped} more were left out"
        )
    if hits.fallback:
        err(f"note: {hits.fallback}")
    if hits.window:
        err(
            f"note: more than {hits.window:,} messages match; the {hits.window:,} most recent"
            " were ranked (a phrase, more words or a filter narrows the search)"
        )
    show_hits(env, hits, fmt, utc=args.utc)
    return 0


def output_format(env: Any, args: ReadArgs, command: str = "search") -> str:
    """``--format``, else a table on a terminal and JSONL in a pipe (only these three)."""
    from convo.core.errors import UsageError

    fmt = args.format or ("table" if env.stdout_isatty else "jsonl")
    if fmt not in ("table", "jsonl", "json"):
        raise UsageError(
            f"--format {fmt} is not available for {command}", hint="choose table|jsonl|json"
        )
    return fmt


def unlimited(args: ReadArgs) -> tuple[Any, int]:
    """The filters as a query without a limit, and the limit (``-n``, else 20)."""
    query = args.build_query()
    limit = DEFAULT_LIMIT if query.limit is None else query.limit
    return query.replace(limit=None), limit


def show_hits(env: Any, hits: Any, fmt: str, *, utc: bool) -> None:
    """The hits as the table, or as JSON(L) records with their score (and the search's
    notice, once, on stderr)."""
    if hits.notice:
        err(f"note: {hits.notice}")
    if fmt == "table":
        _table(env, hits, utc=utc)
    else:
        _json_out(env, hits, fmt)


def _json_out(env: Any, hits: Any, fmt: str) -> None:
    import orjson

    out = env.safe_stdout_bytes()
    if hits.mode == "fts":
        docs = [{**h.record, "score": h.score} for h in hits]
    else:
        docs = [{**h.record, "score": h.score, "match": h.why} for h in hits]
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


def _table(env: Any, hits: Any, *, utc: bool) -> None:
    from rich.table import Table
    from rich.text import Text

    from convo.core import fields
    from convo.core.text.terminal import one_line
    from convo.output.views.common import record_time

    # Rank, match and time are never cut; the snippet takes the free width, and under it
    # the thread, whole, as `convo show --thread` takes it.
    table = Table(show_lines=False, expand=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("match", justify="right", no_wrap=True, min_width=5)
    why = hits.mode != "fts"
    if why:
        table.add_column("why", no_wrap=True, min_width=7)
    table.add_column("time", no_wrap=True, min_width=19)
    table.add_column(
        "speaker", ratio=1, min_width=10, max_width=24, overflow="ellipsis", no_wrap=True
    )
    table.add_column("snippet · thread", ratio=4, min_width=20, overflow="fold")
    from convo.output.views.search import relevance

    percents = relevance([h.score for h in hits])
    for rank, (h, percent) in enumerate(zip(hits, percents, strict=True), 1):
        # the conversation (the thread, else the file of a transcript's cue): its own id
        # would open the hit alone
        thread = fields.conversation(h.record) or ""
        cells = [Text(str(rank)), Text(f"{percent}%"), *([Text(h.why)] if why else [])]
        table.add_row(
            *cells, Text(record_time(h.record, utc=utc)),
            Text(one_line(fields.speaker_label(h.record), 30)),
            snippet_text(h.snippet).append("\n" + one_line(thread), style="dim"),
        )  # fmt: skip
    console = env.console()
    console.print(table)
    if not hits:
        err("no matches")


def specs() -> tuple[Spec, ...]:
    """The command's parameters: the words, its own options, then the shared ones it reads."""
    from convo.cli.options import IMPORT_SPECS, INPUT_SPECS, read_specs

    words = INPUT_SPECS[0].replace(
        metavar="TEXT",
        help="What to look for, as you would ask it (a question, an error string, a name); "
        "field terms (from:NAME, tag:TAG, -tag:TAG, date:A..B) filter; OR and ( ) between "
        "field terms as in convo query.",
    )
    # Search reads the store: import options (but --tz, which reads --since/--until),
    # --reverse and --pager do nothing here, so they are not options of it at all.
    unused = {"reverse", "pager", *(s.name for s in IMPORT_SPECS if s.name != "tz")}
    shared = (s for s in read_specs(("table", "jsonl", "json"))[1:] if s.name not in unused)
    return (words, *OWN_SPECS, *shared)


def arguments(kw: dict[str, Any]) -> dict[str, Any]:
    """``search``'s keyword arguments from the values of ``specs`` (popped from ``kw``)."""
    from convo.cli.options import defaulted_read_args

    own = {s.name: kw.pop(s.name) for s in OWN_SPECS}
    return {**own, **defaulted_read_args(kw)}


def register(app: typer.Typer) -> None:
    """Add ``search`` to the ``convo`` app (shared filters from ``read_options``)."""
    from convo.cli.options import with_params
    from convo.cli.runtime import command

    app.command("search")(command(with_params(search, specs(), arguments)))
