"""Commands turned into click commands when first used, not all at start-up.

Typer turns every registered command into a click command (reading each signature,
building each option) before it parses the command line; for convo's sixteen commands
that was about a third of ``convo --help``'s own time. Here the commands are registered
on a holder ``typer.Typer`` that the app's group never converts as a whole: the
``LazyCommands`` mapping (the group's ``commands``) converts one command when it is looked
up, with typer's own functions and the app's settings, so the result is the command
typer would have made. The help listing needs only each command's name and help: it
gets a stand-in (``summary``) made from what was registered, without converting.

Order as typer's: the holder's commands in registration order, then its groups.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

import typer
import typer.main
from typer.core import TyperCommand

Prepare = Callable[[Any], None]


def _name(info: Any) -> str:
    if isinstance(info, typer.models.CommandInfo):
        assert info.callback is not None
        return info.name or typer.main.get_command_name(info.callback.__name__)
    name = info.name if isinstance(info.name, str) else None
    assert name, "a group of the convo app is added with a name"
    return name


def _settings(app: typer.Typer, convert: Callable[..., Any]) -> dict[str, Any]:
    """The app's settings that ``convert`` (typer's converter) takes, as typer passes them."""
    wanted = inspect.signature(convert).parameters
    values = {
        "pretty_exceptions_short": app.pretty_exceptions_short,
        "rich_markup_mode": app.rich_markup_mode,
        "suggest_commands": getattr(app, "suggest_commands", True),
    }
    return {k: v for k, v in values.items() if k in wanted}


class LazyCommands(MutableMapping[str, Any]):
    """A click group's ``commands``: the holder's commands, each converted on first lookup
    and then passed to ``prepare`` (convo's help and coercion adjustments)."""

    def __init__(self, app: typer.Typer, holder: typer.Typer, prepare: Prepare):
        self._app = app
        self._prepare = prepare
        self._pending: dict[str, Any] = {}
        for info in [*holder.registered_commands, *holder.registered_groups]:
            self._pending[_name(info)] = info
        self._made: dict[str, Any] = {}
        self._order = list(self._pending)

    def _convert(self, info: Any) -> Any:
        convert: Callable[..., Any] = (
            typer.main.get_command_from_info
            if isinstance(info, typer.models.CommandInfo)
            else typer.main.get_group_from_info
        )
        return convert(info, **_settings(self._app, convert))

    def __getitem__(self, name: str) -> Any:
        made = self._made.get(name)
        if made is not None:
            return made
        info = self._pending.pop(name)  # KeyError: no such command
        made = self._made[name] = self._convert(info)
        self._prepare(made)
        return made

    def converted(self) -> list[str]:
        """The commands turned into click commands so far (start-up stays lazy: tests)."""
        return [n for n in self._order if n in self._made]

    def summary(self, name: str) -> Any:
        """The command, or while it is not converted a stand-in with its name and help
        (what the group's command list shows), made as typer makes them."""
        info = self._pending.get(name)
        if info is None:
            return self.get(name)
        if isinstance(info, typer.models.CommandInfo):
            text = inspect.cleandoc(info.help) if info.help else inspect.getdoc(info.callback)
            return TyperCommand(
                name=name, help=text, short_help=info.short_help, hidden=info.hidden,
                deprecated=info.deprecated,
            )  # fmt: skip
        solved = typer.main.solve_typer_info_defaults(info)
        return TyperCommand(
            name=name, help=solved.help, short_help=solved.short_help, hidden=solved.hidden,
            deprecated=solved.deprecated,
        )  # fmt: skip

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
