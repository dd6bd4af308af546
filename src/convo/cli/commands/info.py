"""``convo formats`` and ``convo schema``: what convo reads and what it writes."""

from __future__ import annotations

import typer

from convo.cli.choices import Choices, choice_option
from convo.cli.runtime import command, environment

FORMATS_OUTPUT = ("table", "json", "jsonl", "csv")


def formats(
    format: str | None = choice_option(
        None, "--format", "-f", choices=Choices(FORMATS_OUTPUT, "--format"),
        help="table, one JSON array, one format a line (JSONL), or CSV. Default: the table on a terminal, JSONL when piped.",
    ),
) -> int:  # fmt: skip
    """List the input formats convo can import, with the files they match (piped: JSONL)."""
    from convo.importers.registry import registry
    from convo.output.views.formats import format_rows, render

    env = environment()
    format = format or ("table" if env.stdout_isatty else "jsonl")
    fmts = sorted(registry.formats(), key=lambda f: (f.family, f.name))
    if format == "table":
        render(fmts, env.console())
        return 0
    from convo.output.views.rows import dicts_bytes

    data = format_rows(fmts)
    env.safe_stdout_bytes().write(dicts_bytes(format, data, list(data[0]) if data else []))
    return 0


def schema() -> int:
    """Print the JSON Schema of the record (generated from the pydantic model)."""
    import orjson

    from convo.core.record import json_schema

    env = environment()
    env.safe_stdout_bytes().write(orjson.dumps(json_schema(), option=orjson.OPT_INDENT_2) + b"\n")
    return 0


def register(app: typer.Typer) -> None:
    app.command("formats")(command(formats))
    app.command("schema")(command(schema))
