"""``convo validate``: check JSONL records, every bad line reported with its number."""

from __future__ import annotations

import typer

from convo.cli.runtime import Reporter, command, environment, err, outcome, state


def validate(
    inputs: list[str] | None = typer.Argument(
        None, metavar="FILE", show_default=False,
        help="JSONL files (- for stdin). Default: stdin when piped and no store is named, else the store.",
    ),
    store: str | None = typer.Option(None, "--store", metavar="PATH", help="The store file."),
    typeagent: bool = typer.Option(False, "--typeagent", help="Only require TypeAgent's keys, not convo's id/format/source_id."),
    quiet: bool = typer.Option(False, "--quiet", help="Only the exit code and the summary."),
) -> int:  # fmt: skip
    """Check JSONL records; report every bad line with its number; exit 1 if any.

    TypeAgent records (no id and no format: `convo export --to typeagent`, as one JSON
    array or --jsonl) are checked as TypeAgent's. A file of another format is named, with
    the command that imports it."""
    from convo.pipeline.recordfiles import validated_inputs
    from convo.store.validate import validate_lines

    env = environment()
    reporter = Reporter(quiet=quiet, show=10**9)  # validate reports every bad line
    good = bad = 0
    try:
        for lines, theirs in validated_inputs(
            list(inputs or []),
            store=store or state["store"],
            store_named=bool(store) or bool(state.get("store_named")),
            stdin_has_data=env.stdin_has_data,
        ):
            g, b = validate_lines(
                lines, require_convo=not (typeagent or theirs), on_bad=reporter.reject
            )
            good, bad = good + g, bad + b
    finally:
        reporter.close()
    err(f"{good} valid, {bad} invalid")
    return outcome(bad)


def register(app: typer.Typer) -> None:
    app.command("validate")(command(validate))
