"""``convo embed [--model NAME[:OPTION]] [--rebuild] [--check]``: the store's vectors.

Not registered by itself: ``register(app)`` adds the command (called from cli/group.py).
Embeds the messages of the store that have no vectors of their current text (a re-run
after an ingest embeds only what is new), with a progress bar on a terminal, and says
what it did on stderr. ``--check`` verifies the vectors against the store (exit 1 on a
mismatch); ``--rebuild`` drops them and embeds everything again (with another model,
say). ``--on-save`` sets the store so that ``ingest --save`` embeds what it adds
(``convo.embed.build.embed_on_save``). See convo.embed.build. ``--serve HOST:PORT``
answers OpenAI-compatible ``/v1/embeddings`` requests with the model instead
(``convo.embed.serve``; TypeAgent's own tools opening a database convo built, see
docs/typeagent.md) until Ctrl-C.
"""

from __future__ import annotations

import typer

from convo.cli.options import STORE_HELP, store_path
from convo.cli.runtime import err as say

MODEL_HELP = (
    "The embedding model: wordllama (the default, offline), openai:MODEL (an "
    "OpenAI-compatible server at $CONVO_EMBED_URL), or a plug-in's name."
)
SERVE_HELP = (
    "Serve the model at http://HOST:PORT/v1/embeddings (OpenAI-compatible, for TypeAgent's "
    "own tools) until Ctrl-C, instead of embedding the store."
)


def embed(
    ctx: typer.Context,
    model: str | None = typer.Option(
        None, "--model", "-m", metavar="NAME[:OPTION]", help=MODEL_HELP
    ),
    rebuild: bool = typer.Option(
        False, "--rebuild", help="Drop the vectors and embed every message again."
    ),
    check_: bool = typer.Option(
        False, "--check", help="Verify the vectors against the store; exit 1 on a mismatch."
    ),
    on_save: bool | None = typer.Option(
        None,
        "--on-save/--no-on-save",
        help="From now on, `ingest --save` embeds what it saves (or no longer).",
    ),
    store: str | None = typer.Option(None, "--store", metavar="PATH", help=STORE_HELP),
    serve_at: str | None = typer.Option(None, "--serve", metavar="HOST:PORT", help=SERVE_HELP),
) -> int:
    """Embed the store's new and changed messages, for search by meaning."""
    from convo.core.errors import NoStore, UsageError

    if serve_at is not None:
        return serve(serve_at, model)

    if rebuild and check_:
        raise UsageError("--rebuild and --check exclude each other", hint="choose one")
    path = store_path(ctx, store)
    if not path.exists():
        raise NoStore(str(path))
    if check_:
        from convo.cli.vector_check import check

        return check(path)
    from convo.cli.runtime import environment
    from convo.embed import embed_store
    from convo.output.progress import position_bar

    with position_bar(environment(), "embedding") as update:
        r = embed_store(path, model, update, rebuild=rebuild, on_save=on_save)
    if on_save is not None:
        say("saves embed what they add" if on_save else "saves no longer embed")
    _say_result(r)
    return 0


def _say_result(r) -> None:
    """The run's summary, and what it passed over (lines that are no records...)."""
    from convo.core.plural import counted, plural

    say(
        f"embedded {r.added} new and {r.changed} changed "
        f"{plural(r.added + r.changed, 'message')} ({counted(r.chunks, 'chunk')}), "
        f"{r.removed} removed, {r.unchanged} unchanged; model {r.model}, {r.dims} dims"
    )
    n = r.not_records
    passed = [
        f"{counted(n, 'line')} that {plural(n, 'is not a record', 'are not records')} with an id"
        if n
        else "",
        f"{counted(r.repeated, 'later record')} of an id already read (its first is embedded)"
        if r.repeated
        else "",
        "a last line without its newline (not whole yet)" if r.torn else "",
    ]
    if any(passed):
        say(
            f"warning: passed over {'; '.join(p for p in passed if p)}"
            " (`convo validate` names them)"
        )


def serve(address: str, model: str | None) -> int:
    """``--serve HOST:PORT``: the model behind an OpenAI-compatible endpoint."""
    from convo.core.errors import UsageError
    from convo.embed import make
    from convo.embed.serve import make_server

    host, _, port = address.rpartition(":")
    if not port.isdigit():
        raise UsageError(f"--serve {address!r}: not HOST:PORT", hint="e.g. 127.0.0.1:8765")
    embedder = make(model)
    try:
        server = make_server(host or "127.0.0.1", int(port), embedder)
    except OSError as e:
        raise UsageError(f"--serve {address}: {e.strerror}", hint="choose another port") from None
    bound_host, bound_port = server.server_address[:2]
    where = f"http://{bound_host!s}:{bound_port}/v1"
    say(f"serving {embedder.model_name} at {where}/embeddings (Ctrl-C stops)")
    with server:
        server.serve_forever()
    return 0


def register(app: typer.Typer) -> None:
    """Add ``embed`` to the ``convo`` app."""
    from convo.cli.runtime import command

    app.command("embed")(command(embed))
