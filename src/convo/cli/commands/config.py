"""``convo config``: the settings in effect and where each came from (``cli/config.py``)."""

from __future__ import annotations

import typer

from convo.cli.runtime import command, environment, flush_stdout


def config(
    ctx: typer.Context,
    fmt: str = typer.Option(
        "table", "--format", "-f", metavar="table|json", help="A table, or JSON for scripts."
    ),
) -> int:
    """Show the settings in effect (store, people file, time zone, default order) and
    where each came from: an option, an environment variable, the config file, or the
    default.

    The file is $XDG_CONFIG_HOME/convo/config.toml ($CONVO_CONFIG names another), TOML:

    \b
        store = "~/convo/messages.jsonl"
        people = "~/convo/people.toml"
        tz = "Europe/Berlin"
        sort = "-time"
    """
    import orjson

    from convo.cli import config as settings
    from convo.core.errors import UsageError
    from convo.core.text.terminal import printable

    if fmt not in ("table", "json"):
        raise UsageError(f"unknown --format {fmt!r}", hint="choose table or json")
    root = ctx.find_root().params
    given = {"store": root.get("store") if _from_command_line(ctx) else None,
             "people": root.get("people") if _from_command_line(ctx, "people") else None}  # fmt: skip
    rows = settings.in_effect(given)
    env = environment()
    if fmt == "json":
        data = {"file": str(settings.path()),
                "settings": {k: {"value": v, "from": src} for k, v, src in rows}}  # fmt: skip
        env.safe_stdout_bytes("json").write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        out = env.stdout
        out.write(printable(f"config file: {settings.path()}", newlines=False) + "\n")
        width = max((len(key) for key, _, _ in rows), default=0)  # llm_model: 9
        for key, value, source in rows:
            shown = value if value is not None else "(not set)"
            out.write(printable(f"{key:<{width}} {shown}  [{source}]", newlines=False) + "\n")
    flush_stdout(env)
    return 0


def _from_command_line(ctx: typer.Context, name: str = "store") -> bool:
    source = ctx.find_root().get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def register(app: typer.Typer) -> None:
    app.command("config")(command(config))
