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

# Search's own options; declared once, for typer (``register``) and cli/fast_search.py.
OWN_SPECS = (
    Spec("fts", bool, False, ("--fts",), 'The text is FTS5 syntax: "a phrase", prefix*, a OR b, NOT, NEAR(a b).'),
    Spec("mode", str | None, None, ("--mode",), "Rank by keyword (BM25), by meaning, or both fused [default: hybrid when the store has vectors (convo embed), else fts].", "fts|semantic|hybrid"),
)  # fmt: skip


def search(*, fts: bool = False, mode: str | None = None, args: ReadArgs) -> int:
    """Ranked search of the store by what you type, best first."""
    from convo.cli.hits import output_format, show_hits, unlimited
    from convo.cli.runtime import environment
    from convo.core.errors import UsageError
    from convo.embed.blas import one_thread
    from convo.output.progress import progress

    one_thread()  # before numpy loads: no BLAS thread pool (convo.embed.blas)
    # Every argument is text: search reads the store, never a file.
    text = " ".join(w for w in (*args.inputs, args.query) if w)
    args.inputs, args.query = [], ""
    if not text.strip():
        raise UsageError(
            "nothing to search for",
            hint="convo search WORDS... (a question, an error string, from:NAME)",
        )
    env = environment()
    fmt = output_format(env, args)
    query, limit = unlimited(args)
    store = args.open_store()  # a missing store is NoStore (it answered nothing, exit 0)
    with progress(env, "indexing") as track:
        hits = store.search(text, query, limit=limit, fts=fts, mode=mode, track=track)
    if args.explain:
        err(store.explain(text, query, fts=fts, mode=mode))
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
    show_hits(env, hits, fmt, args)
    return 0


def specs() -> tuple[Spec, ...]:
    """The command's parameters: the words, its own options, then the shared ones it reads."""
    from convo.cli.hits import shared_specs
    from convo.cli.options import INPUT_SPECS

    words = INPUT_SPECS[0].replace(
        metavar="TEXT",
        help="What to look for, as you would ask it (a question, an error string, a name); "
        "field terms (from:NAME, tag:TAG, -tag:TAG, date:A..B) filter; OR and ( ) between "
        "field terms as in convo query.",
    )
    return (words, *OWN_SPECS, *shared_specs())


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
