"""``convo similar ID [QUERY] [filters]``: the messages nearest in meaning to one message.

Not registered by itself: ``register(app)`` adds the command (called from cli/group.py).
Needs the store's vectors (``convo embed``). The shared filters and the query's terms restrict
the candidates before the ranking (``Store.similar``), so ``convo similar ID --since 7d``
finds this week's nearest messages however many closer ones are older. The message
itself is left out. Output as ``convo search``'s: a table on a terminal, JSONL piped,
each record with its ``"score"`` (cosine similarity) and ``"match": "meaning"``.
"""

from __future__ import annotations

import typer

from convo.cli.read_args import ReadArgs


def similar(*, args: ReadArgs) -> int:
    """The messages nearest in meaning to message ID, best first."""
    from convo.cli.hits import output_format, show_hits, unlimited
    from convo.cli.runtime import environment, err
    from convo.core.errors import UsageError
    from convo.embed.blas import one_thread

    one_thread()  # before numpy loads: no BLAS thread pool (convo.embed.blas)

    # The first argument is a message id, the others query terms (convo query --help):
    # similar reads the store, never a file.
    if not args.words or not args.words[0]:
        raise UsageError("give a message id", hint="convo similar ID [QUERY] (ids: `convo list`)")
    ident = args.words[0]
    args.inputs, args.query = [], " ".join(args.words[1:])
    env = environment()
    fmt = output_format(env, args, "similar")
    query, limit = unlimited(args)
    store = args.open_store()  # a missing store is NoStore (it answered nothing, exit 0)
    hits = store.similar(ident, query, limit=limit)
    if args.explain:
        err(store.explain(None, query))
    show_hits(env, hits, fmt, args)
    return 0


def register(app: typer.Typer) -> None:
    """Add ``similar`` to the ``convo`` app (shared filters from ``read_options``)."""
    from convo.cli.hits import shared_specs
    from convo.cli.options import INPUT_SPECS, defaulted_read_args, with_params
    from convo.cli.runtime import command

    ident = INPUT_SPECS[0].replace(
        metavar="ID [QUERY]",
        help="The id of the message to start from, then query terms that restrict the candidates (`convo query --help`).",
    )
    specs = (ident, *shared_specs())
    app.command("similar")(command(with_params(similar, specs, defaulted_read_args)))
