"""Commands turned into click commands when first used, not all at start-up.

Typer turns every registered command into a click command (reading each signature,
building each option) before it parses the command line; for convo's sixteen commands
that was about a third of ``convo --help``'s own time. Here the command modules
register on a ``CommandTable`` (their ``register(app)`` calls ``app.command(NAME,
**settings)(func)``, as on a Typer), and the app's group looks commands up in
``LazyCommands``, which converts one command when it is first looked up: a Typer of its
own, with the app's settings, holding just that command, made into the click command by
``typer.main.get_command`` (a Typer of one command is that command). The help listing
needs only each command's name and help: ``summary`` gives them from what was
registered (``help=``, else the function's docstring, as typer reads them), without
converting.

Only typer's public API is used (issue 34 §8): ``typer.Typer``, ``Typer.command`` and
``typer.main.get_command``. Order: registration order.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any, NamedTuple

import typer
import typer.main

Prepare = Callable[[Any, Callable[..., Any]], None]


class CommandTable:
    """Where the command modules register: each command's name, ``app.command``
    settings and function, kept until it is used."""

    def __init__(self, cls: type, **settings: Any):
        self.cls = cls  # each command's class (typer's ``cls=``)
        self.settings = settings  # the Typer settings each command is made with
        self.entries: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {}

    def command(self, name: str, **kwargs: Any) -> Callable[[Callable[..., Any]], Any]:
        def add(func: Callable[..., Any]) -> Callable[..., Any]:
            self.entries[name] = (kwargs, func)
            return func

        return add

    def convert(self, name: str) -> Any:
        """The click command typer makes of ``name`` (KeyError: no such command)."""
        kwargs, func = self.entries[name]
        one = typer.Typer(add_completion=False, **self.settings)
        one.command(name, cls=self.cls, **kwargs)(func)
        return typer.main.get_command(one)


class Summary(NamedTuple):
    """What the command list of ``--help`` shows of a command not yet converted."""

    name: str
    help: str | None
    short_help: str | None
    hidden: bool


class LazyCommands(MutableMapping[str, Any]):
    """A click group's ``commands``: the table's commands, each converted on first lookup
    and then passed to ``prepare`` with its function (convo's help and coercion
    adjustments)."""

    def __init__(self, table: CommandTable, prepare: Prepare):
        self._table = table
        self._prepare = prepare
        self._pending = dict.fromkeys(table.entries)
        self._made: dict[str, Any] = {}
        self._order = list(self._pending)

    def __getitem__(self, name: str) -> Any:
        made = self._made.get(name)
        if made is not None:
            return made
        if name not in self._pending:
            raise KeyError(name)
        made = self._table.convert(name)
        del self._pending[name]
        self._made[name] = made
        self._prepare(made, self._table.entries[name][1])
        return made

    def converted(self) -> list[str]:
        """The commands turned into click commands so far (start-up stays lazy: tests)."""
        return [n for n in self._order if n in self._made]

    def summary(self, name: str) -> Any:
        """The command, or while it is not converted its name and help (what the group's
        command list shows), read from what was registered as typer reads it."""
        if name not in self._pending:
            return self.get(name)
        kwargs, func = self._table.entries[name]
        text = kwargs.get("help")
        text = inspect.cleandoc(text) if text else inspect.getdoc(func)
        return Summary(name, text, kwargs.get("short_help"), bool(kwargs.get("hidden")))

    def __setitem__(self, name: str, command: Any) -> None:
        if name not in self:
            self._order.append(name)
        self._pending.pop(name, None)
        self._made[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self._made and name not in self._pending:
            raise KeyError(name)
        self._made.pop(name, None)
        self._pending.pop(name, None)
        self._order.remove(name)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._order))

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, name: object) -> bool:
        return name in self._made or name in self._pending
