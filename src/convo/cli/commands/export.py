"""``convo export --to FORMAT [inputs] [filters]``: records out in another framework's format.

Inputs and filters are those of every read command (``@read_options``; named files in any
importable format, else stdin, else the store). Output goes to stdout, or ``-o FILE``
(written atomically). Agent formats are JSON (one array, or one value a line with
``--jsonl``); markdown, csv, html and vtt are text. Per-message formats stream: memory
stays flat; anthropic and langmem build one document and hold the selection in memory.
``--format``, ``--utc`` and ``--pager`` from the shared options do not apply (times in
exports are UTC) and are refused or ignored.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import IO, Any

import typer

from convo.cli.options import ReadArgs, read_options

DOCUMENT_FORMATS = ("anthropic", "langmem")


def _formats() -> list[str]:
    from convo.output.exporters import EXPORTERS

    return list(EXPORTERS)


def export(
    args: ReadArgs,
    to: str = typer.Option(
        ...,
        "--to",
        help="openai|anthropic|agentscope|autogen|langmem|jianmu|typeagent|markdown|csv|html|vtt.",
    ),
    jsonl: bool = typer.Option(
        False, "--jsonl", help="Agent formats: one JSON value a line instead of one array."
    ),
    output: str | None = typer.Option(
        None, "--output", "-o", help="Write to FILE (atomically) instead of stdout."
    ),
) -> int:
    """Export messages to an agent framework's format, or to markdown, csv, html or vtt."""
    from convo.cli.app import _env, _flush_stdout, _outcome, _Reporter, _state
    from convo.core.errors import UsageError

    fmt = to.lower()
    if fmt not in _formats():
        raise UsageError(f"unknown --to {to!r}", hint="choose " + "|".join(_formats()))
    if args.format is not None:
        raise UsageError("--format does not apply to export", hint="use --to FORMAT")
    env = _env()
    reporter = _Reporter()
    records = _checked(args.matches(env, reporter, default_store=_state["store"]), reporter)
    try:
        kind = "text" if fmt in _text_formats() else "json"
        with _destination(output, env, kind) as out:
            for piece in _render(fmt, records, jsonl):
                out.write(piece)
        if output is None:
            _flush_stdout(env)
    finally:
        reporter.close()
    return _outcome(reporter.rejected)


def _checked(matches, reporter) -> Iterator[dict[str, Any]]:
    """Records that convert cleanly; a record an exporter cannot read is rejected, located."""
    from convo.core.errors import RecordError
    from convo.importers.context import Rejection
    from convo.output.exporters.agents import _typeagent_items

    for m in matches:
        try:
            _typeagent_items(m.record)  # validates the record against the model
        except RecordError as e:
            reporter.reject(Rejection(m.where, e.what, e.hint, m.raw))
            continue
        yield m.record


def _render(fmt: str, records: Iterator[dict[str, Any]], jsonl: bool) -> Iterator[bytes]:
    import orjson

    from convo.output import exporters as ex

    if fmt in ex.TEXT_FORMATS:
        for text in ex.TEXT_FORMATS[fmt](records):
            yield text.encode("utf-8", "surrogateescape")
        return
    if fmt in ex.PER_MESSAGE:
        items_of, state = ex.PER_MESSAGE[fmt]
        ctx = state()
        values = (item for rec in records for item in items_of(rec, ctx))
    elif fmt == "anthropic":
        values = iter([ex.to_anthropic(records)])
    else:
        values = iter(ex.to_langmem(records))
    if jsonl:
        for v in values:
            yield orjson.dumps(v, option=orjson.OPT_APPEND_NEWLINE)
        return
    if fmt == "anthropic":
        yield orjson.dumps(next(values), option=orjson.OPT_INDENT_2) + b"\n"
        return
    yield from _json_array(values)


def _json_array(values: Iterator[Any]) -> Iterator[bytes]:
    import orjson

    first = True
    yield b"["
    for v in values:
        yield (b"\n" if first else b",\n") + orjson.dumps(v)
        first = False
    yield b"]\n" if first else b"\n]\n"


def _text_formats():
    from convo.output import exporters as ex

    return ex.TEXT_FORMATS


@contextlib.contextmanager
def _destination(output: str | None, env, kind: str) -> Iterator[IO[bytes]]:
    if output is None or output == "-":
        yield env.safe_stdout_bytes(kind)  # escaped only when stdout is a terminal
        return
    from convo.core.io import atomic_writer

    with atomic_writer(output) as out:
        yield out


def register(app: typer.Typer) -> None:
    """Add ``export`` to the ``convo`` app (called from cli.py)."""
    from convo.cli.app import command

    app.command("export")(command(read_options(export)))
