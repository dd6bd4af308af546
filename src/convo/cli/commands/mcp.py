"""``convo mcp``: the read-only MCP server over the store, on stdin/stdout (docs/mcp.md).

Not registered by itself: ``register(app)`` adds the command. It reads the options,
opens the store as every command does (``--store``, ``$CONVO_STORE``, the default; the
people file of ``--people``/``$CONVO_PEOPLE``) and hands it to ``convo.mcp.server``, which
needs the optional ``mcp`` package (the ``mcp`` extra; ``core.extras`` says how to install it). stdout carries the
protocol; anything convo says goes to stderr, which MCP clients log.
"""

from __future__ import annotations

import typer

from convo.cli.options import SERVED_TZ_HELP, STORE_HELP, served_store

SCAN_HELP = (
    "Refuse a call that would read all of a store bigger than this without the index "
    "(stats, knowledge and people always read every selected message): 64M, 1G; 0: no limit."
)


def mcp(
    ctx: typer.Context,
    store: str | None = typer.Option(None, "--store", metavar="PATH", help=STORE_HELP),
    tz: str | None = typer.Option(None, "--tz", metavar="ZONE", help=SERVED_TZ_HELP),
    utc: bool = typer.Option(False, "--utc", help="Read naive times of queries as UTC."),
    scan_limit: str = typer.Option("64M", "--scan-limit", metavar="SIZE", help=SCAN_HELP),
) -> int:
    """Serve the store to AI agents over the Model Context Protocol (stdio, read-only).

    Tools: search, query, get_message, get_thread, people, stats, knowledge; a thread is
    also the resource convo://thread/ID. Add it to a client as the command `convo mcp`
    (docs/mcp.md has the Claude Desktop and VS Code snippets).
    """
    from convo.core.errors import UsageError
    from convo.mcp.calls import Archive

    limit = _size(scan_limit)
    archive = Archive(served_store(ctx, store, tz, utc), limit)
    try:
        from convo.mcp.server import serve
    except ImportError as e:
        from convo.core.extras import install_hint

        raise UsageError(
            f"convo mcp needs the mcp package ({e})", hint=install_hint("mcp")
        ) from None
    serve(archive)
    return 0


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _size(text: str) -> int:
    """``64M``, ``2G``, ``1000`` (bytes), ``0`` as a number of bytes."""
    from convo.core.errors import UsageError

    value = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = value[-1:] if value[-1:] in _UNITS else ""
    number = value[: len(value) - len(unit)]
    if not number.isdigit():
        raise UsageError(f"--scan-limit {text!r} is not a size", hint="64M, 2G, 0")
    return int(number) * _UNITS[unit]


def register(app: typer.Typer) -> None:
    from convo.cli.runtime import command

    app.command("mcp")(command(mcp))
