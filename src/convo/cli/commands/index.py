"""``convo index [--rebuild | --check | --drop]``: the store's SQLite index.

Not registered by itself: ``register(app)`` adds the command (called from cli/group.py).
Without a flag the index is built, or brought up to date (the appended tail only when
possible), with a progress line on a terminal. ``--check`` compares every row with the
store (and the vectors of ``convo embed``, when there are some) and exits 1 on a
mismatch. Messages go to stderr.
"""

from __future__ import annotations

import typer

from convo.cli.options import STORE_HELP, store_path
from convo.cli.runtime import err


def index(
    ctx: typer.Context,
    rebuild: bool = typer.Option(False, "--rebuild", help="Build the index again from scratch."),
    check_: bool = typer.Option(
        False, "--check", help="Verify the index against the store; exit 1 on a mismatch."
    ),
    drop_: bool = typer.Option(False, "--drop", help="Delete the index."),
    store: str | None = typer.Option(None, "--store", metavar="PATH", help=STORE_HELP),
) -> int:
    """Build or update the store's index (search, fast lookups, cheap saves)."""
    from convo.core.errors import InputError, NoStore, UsageError
    from convo.core.plural import counted
    from convo.index import drop, index_path, refresh

    if sum((rebuild, check_, drop_)) > 1:
        raise UsageError("--rebuild, --check and --drop exclude each other", hint="choose one")
    path = store_path(ctx, store)
    if drop_:
        err(f"dropped {index_path(path)}" if drop(path) else "there was no index")
        return 0
    if not path.exists():
        raise NoStore(str(path))
    if check_:
        return _check(path)
    from convo.cli.runtime import environment
    from convo.output.progress import progress

    with progress(environment(), "indexing") as track:
        # --rebuild builds beside the old index and renames over it: a kill keeps the old
        result = refresh(path, create=True, wait=True, track=track, rebuild_all=rebuild)
    for note in result.notes:
        err(note)
    if not result.available:
        raise InputError(f"cannot index ({result.reason})", where=str(path))
    if result.action == "fresh":
        err(f"{index_path(path)}: up to date")
    else:
        why = f" ({result.reason})" if result.reason else ""
        err(f"{index_path(path)}: {result.action}, {counted(result.added, 'message')} indexed{why}")
    return 0


def _check(path) -> int:
    from convo.core.plural import counted
    from convo.index import check, index_path

    result = check(path)
    for problem in [*result.problems, *result.notes]:
        err(f"{index_path(path)}: {problem}")
    if result.ok:
        err(f"index matches the store ({counted(result.messages, 'message')})")
    else:
        # What to do: a stale index is brought up to date (as any read of the store would);
        # one that is current and still differs is built again.
        stale = any(p.startswith("stale:") for p in result.problems)
        todo = "`convo index` brings it up to date" if stale else "`convo index --rebuild`"
        missing = result.problems == ["no index"]
        todo = "`convo index` builds it" if missing else todo
        err(f"index does not match the store ({counted(result.messages, 'message')}); {todo}")
    vectors_ok = True
    from convo.embed.vectors import paths

    if paths(path)[1].exists():  # the vectors too, when the store has some
        from convo.cli.vector_check import check as check_vectors

        vectors_ok = check_vectors(path) == 0
    return 0 if result.ok and vectors_ok else 1


def register(app: typer.Typer) -> None:
    """Add ``index`` to the ``convo`` app."""
    from convo.cli.runtime import command

    app.command("index")(command(index))
