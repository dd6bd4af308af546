"""``convo ingest``: import conversations to stdout, a file, or the store."""

from __future__ import annotations

import typer

from convo.cli.options import import_options
from convo.cli.read_args import ImportArgs
from convo.cli.runtime import (
    Reporter,
    command,
    distinct_outputs,
    environment,
    err,
    outcome,
    protect_named,
    state,
)


def ingest(
    imports: ImportArgs,
    inputs: list[str] | None = typer.Argument(
        None, metavar="FILE", help="Files or folders to import (- for stdin). Default: stdin.",
        show_default=False,
    ),
    output: str | None = typer.Option(None, "--output", "-o", metavar="FILE", help="Write JSONL to FILE (atomically); - for stdout."),
    save: bool = typer.Option(False, "--save", help="Append to the store, skipping ids already there."),
    store: str | None = typer.Option(None, "--store", metavar="PATH", help="The store file."),
    tag: list[str] | None = typer.Option(None, "--tag", "-t", metavar="TAG", help="Add this tag to every message; repeatable."),
    strict: bool = typer.Option(False, "--strict", help="Stop at the first rejected record and write nothing."),
    lenient: bool = typer.Option(False, "--lenient", help="Wrap objects that are not messages as text instead of rejecting them."),
    rejects: str | None = typer.Option(None, "--rejects", metavar="FILE", help="Write every rejected record with its reason to FILE (JSONL)."),
    warnings: str | None = typer.Option(None, "--warnings", metavar="FILE", help="Write every warning and rejection to FILE (JSONL: kind, file, line, message), shown or not."),
    quiet: bool = typer.Option(False, "--quiet", help="No summary or warnings on stderr."),
    jobs: int | None = typer.Option(None, "--jobs", "-j", metavar="N", min=1, help="Parse sources in N processes (default: the CPU count when there is more than one source or one large mbox or JSONL file; 1: in this process). Output is the same either way."),
    wait: float | None = typer.Option(None, "--wait", metavar="SECONDS", min=0, help="With --save: give up after SECONDS if another writer holds the store lock (default: wait)."),
) -> int:  # fmt: skip
    """Import conversations into JSONL: to stdout when piped, else into the store."""
    from convo.core.errors import UsageError
    from convo.output.progress import progress
    from convo.pipeline.run import run_ingest

    env = environment()
    output, save = _destination(env, output, save, store, wait)
    from convo.cli.words import tag_names

    options = imports.options(tags=tag_names(tag or []), strict=strict, lenient=lenient)
    paths = list(inputs or [])
    if not paths:
        if not env.stdin_has_data:
            raise UsageError("nothing to ingest", hint="name files or folders, or pipe data in")
        paths = ["-"]
    protect_named(paths, store)
    distinct_outputs({"-o": output, "--rejects": rejects, "--warnings": warnings})
    reporter = Reporter(quiet=quiet, rejects_path=rejects, warnings_path=warnings, keeps=True)
    try:
        with progress(env, "importing", enabled=not quiet, paths=paths) as track:
            summary = run_ingest(
                paths, options, format_name=imports.format_name, output=output, save=save,
                store=store or state["store"], env=env,
                on_reject=reporter.reject, on_warning=reporter.warning, track=track,
                jobs=jobs, wait=wait, on_wait=reporter.warning,
            )  # fmt: skip
    except BaseException:
        reporter.close(failed=True)
        raise
    reporter.close()
    if not quiet:
        err(summary.text(reporter.note()))
    return outcome(summary.stats.rejected)


def _destination(
    env, output: str | None, save: bool, store: str | None, wait: float | None
) -> tuple[str | None, bool]:
    """Where the messages go: ``-o``, the store, else stdout when piped, else the store.
    Options that name a destination not taken are usage errors, not silently unused."""
    from convo.core.errors import UsageError

    if output and save:
        raise UsageError("-o and --save both given", hint="choose one destination")
    if output and store:  # the user meant the store to be written
        raise UsageError(
            "--store names the store --save appends to; -o writes FILE instead",
            hint=f"drop --store, or save: convo ingest ... --save --store {store}",
        )
    if not output and not save:
        save = env.stdout_isatty
        output = None if save else "-"
    if wait is not None and not save:
        raise UsageError(
            "--wait applies to --save (the store's lock)",
            hint="writing to stdout or -o takes no lock; add --save to append to the store",
        )
    return output, save


def register(app: typer.Typer) -> None:
    app.command("ingest")(command(import_options(ingest)))
