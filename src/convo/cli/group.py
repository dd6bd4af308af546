"""The Typer app of ``convo``: its group, its global options, and the way it exits.

Every way out is an exit code and at most one line on stderr: convo's own errors
(``cli.runtime.command``), click's usage errors (``convo list -n abc``), and Ctrl-C
(130; during start-up too: ``cli/app.py``). Commands live in ``cli/commands/``, one module each;
library imports happen inside them so that ``convo --help`` stays fast. They register on
``commands`` (a holder the group never converts as a whole): the group converts only the
command that runs (``cli/lazy.py``), and its options are coerced without pydantic where
typer would build an adapter per option (``cli/coercion.py``).
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from convo.cli.coercion import install
from convo.cli.commands import (
    config,
    embed,
    export,
    index,
    info,
    ingest,
    knowledge,
    maintain,
    mcp,
    people,
    read,
    report,
    search,
    serve,
    similar,
    stats,
    threads,
    validate,
)
from convo.cli.lazy import CommandTable, LazyCommands
from convo.cli.runtime import apply_config, err, quiet_broken_pipe, state
from convo.cli.usage import prepare_help
from convo.core.errors import ConvoError, ExitCode, interruption, with_hint

__all__ = ["app"]


def _usage_error(e: Any) -> int:
    """Typer's (vendored click's) usage errors as one line; ``convo`` alone shows help."""
    if type(e).__name__ == "NoArgsIsHelpError":
        e.show()
        return int(e.exit_code)
    message = e.format_message() if hasattr(e, "format_message") else str(e)
    ctx = getattr(e, "ctx", None)
    if ctx is None:
        err(f"error: {message}")
    else:
        where = ctx.command_path
        err("error: " + with_hint(f"{where}: {message}", f"see `{where} --help`"))
    return int(getattr(e, "exit_code", ExitCode.USAGE))


def summary_line(text: str) -> str:
    """A command's first sentence (its first paragraph up to ``. ``), whole."""
    first = " ".join(inspect.cleandoc(text).split("\n\n", 1)[0].split())
    head, dot, _ = first.partition(". ")
    return head + "." if dot else first


class ConvoGroup(TyperGroup):
    """The app's click group: usage errors and Ctrl-C become one line and an exit code."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = LazyCommands(commands, _prepare)
        self._listing = False

    def parse_args(self, ctx: Any, args: list[str]) -> Any:
        install(self.get_params(ctx), _main)  # every option, --help too
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # typer's reads items(), which would convert them all

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if self._listing:
            return self.commands.summary(cmd_name)  # type: ignore[attr-defined]
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The command list of ``--help``, from each command's help (none converted):
        its whole first sentence, wrapped, never cut with ``...`` as click cuts it."""
        self._listing = True
        try:
            rows = []
            for name in self.list_commands(ctx):
                cmd = self.get_command(ctx, name)
                if cmd is not None and not cmd.hidden:
                    rows.append((name, summary_line(cmd.short_help or cmd.help or "")))
            if rows:
                with formatter.section("Commands"):
                    formatter.write_dl(rows)
        finally:
            self._listing = False

    def main(self, *args: Any, **kwargs: Any) -> Any:
        standalone_mode = kwargs.pop("standalone_mode", True)
        try:
            code = super().main(*args, **{**kwargs, "standalone_mode": False})
        except typer.TyperException as e:
            code = _usage_error(e)
        except (typer.Abort, KeyboardInterrupt) as e:  # click's Abort carries the signal
            cause = e if isinstance(e, KeyboardInterrupt) else e.__cause__
            what, code = interruption(cause if isinstance(cause, KeyboardInterrupt) else None)
            err(what)
        except BrokenPipeError:
            quiet_broken_pipe()
            code = 0
        if not standalone_mode:
            return code
        sys.exit(code or 0)


# What the app and each of its commands are made with (cli/lazy.py).
SETTINGS: dict[str, Any] = {"pretty_exceptions_enable": False, "rich_markup_mode": None}
app = typer.Typer(
    name="convo",
    cls=ConvoGroup,
    help="Turn conversations from anywhere into one record (TypeAgent ConversationMessage JSONL) "
    "and query them fast.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    **SETTINGS,
)


def _version_callback(value: bool) -> None:
    if value:
        from convo import __version__

        typer.echo(f"convo {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    ctx: typer.Context,
    store: str | None = typer.Option(
        None, "--store", metavar="PATH", envvar="CONVO_STORE", help="The store file for every command."
    ),
    people: str | None = typer.Option(
        None, "--people", metavar="FILE", envvar="CONVO_PEOPLE",
        help="A TOML file of people and their aliases (see `convo people --help`).",
    ),
    debug: bool = typer.Option(False, "--debug", help="Show (escaped) tracebacks for errors."),
    _version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."
    ),
) -> None:  # fmt: skip
    """convo: ingest, list, query, show and validate conversations."""
    state["debug"] = debug
    try:
        settings = apply_config(state)
    except ConvoError as e:  # a bad config file: one line, as any error
        err(f"error: {e}")
        raise typer.Exit(int(e.exit_code)) from None
    state["people"] = people or settings.get("people")
    # --store makes read commands read the store, not a piped stdin (a `while read` loop's
    # stdin is not input); $CONVO_STORE only says where the store is (pipeline/inputs.py).
    source = ctx.get_parameter_source("store")
    state["store"] = store or settings.get("store")
    state["store_named"] = source is not None and source.name == "COMMANDLINE"
    _protect_store(state["store"])


def _protect_store(store: str | None) -> None:
    """No output of this command may write over the store, its index or its lock."""
    from convo.core import guard
    from convo.store.path import default_store_path, protect_store

    guard.reset()
    protect_store(default_store_path(store))


class ConvoCommand(TyperCommand):
    """A command of the app: its ``--help`` coerced without pydantic too."""

    def parse_args(self, ctx: Any, args: list[str]) -> Any:
        install(self.get_params(ctx))  # the options from _prepare, the help option
        return super().parse_args(ctx, args)


def _prepare(cmd: Any, func: Any) -> None:
    """A command just converted: choices in its help, plain values coerced here."""
    prepare_help(cmd)
    install(cmd.params, func)


# The commands, converted one at a time by ConvoGroup (cli/lazy.py); settings are the app's.
commands = CommandTable(ConvoCommand, **SETTINGS)

for _module in (
    ingest,
    read,
    threads,
    stats,
    knowledge,
    people,
    info,
    validate,
    export,
    search,
    similar,
    index,
    embed,
    maintain,
    config,
    mcp,
    report,
    serve,
):
    _module.register(commands)
