"""``convo serve [--port N] [--host H] [--store PATH]``: a local, read-only web view.

The store is opened as ``convo mcp`` opens it (``cli.options.served_store``: ``--store``,
the people file, ``--tz``/``--utc`` or the config file's ``tz``), so both servers and the
read commands answer one query with the same messages.

Search (keywords, and by meaning when the store has vectors) with filter chips, threads,
messages and people, in a browser; the page and its JSON API are ``convo.web`` (the
standard library's ``http.server``: see ``convo.web.server`` for why). It binds to
127.0.0.1; ``--host`` binds elsewhere, with a warning, since anyone who can reach the
address can read the archive. Ctrl-C stops it.
"""

from __future__ import annotations

import typer

from convo.cli.options import SERVED_TZ_HELP, STORE_HELP, served_store


def serve(
    ctx: typer.Context,
    port: int = typer.Option(8642, "--port", "-p", min=0, max=65535, metavar="N", help="The port (0: any free one)."),
    host: str = typer.Option("127.0.0.1", "--host", metavar="ADDR", help="The address to bind (default: this machine only)."),
    store_file: str | None = typer.Option(None, "--store", metavar="PATH", help=STORE_HELP),
    tz: str | None = typer.Option(None, "--tz", metavar="ZONE", help=SERVED_TZ_HELP),
    utc: bool = typer.Option(False, "--utc", help="Read naive times of queries as UTC."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log every request on stderr."),
) -> int:  # fmt: skip
    """Browse and search the store in a local web page (read-only)."""
    from convo.cli.runtime import err
    from convo.core.errors import UsageError
    from convo.web.api import Api
    from convo.web.server import LOOPBACK, make_server

    store = served_store(ctx, store_file, tz, utc)
    if host not in LOOPBACK:
        err(
            f"warning: serving on {host}: anyone who can reach it can read the whole archive "
            "(no login, no TLS)"
        )
    try:
        server = make_server(Api(store), host, port, verbose=verbose)
    except OSError as e:
        raise UsageError(
            f"cannot listen on {host}:{port} ({e.strerror or e})", hint="choose another --port"
        ) from None
    shown = f"[{host}]" if ":" in host else host
    err(f"serving http://{shown}:{server.server_address[1]}/ (store {store.path}); Ctrl-C stops")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def register(app: typer.Typer) -> None:
    from convo.cli.runtime import command

    app.command("serve")(command(serve))
