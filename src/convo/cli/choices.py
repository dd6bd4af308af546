"""Options whose value is one of a set, looked up when needed (a registry), and shown in help.

``Choices`` validates a value and completes it; ``choice_option`` makes such an option;
``show_choices`` puts the values in ``--help`` in place of a Python type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any


class Choices:
    """A fixed set of values, looked up when needed (a registry), not at import time.

    Used as an option's ``parser`` (it validates) and ``shell_complete``;
    ``show_choices`` puts the values in ``--help`` in place of a type.
    """

    def __init__(self, names: Callable[[], Sequence[str]] | Sequence[str], what: str = "value"):
        self._names = names
        self.what = what

    def names(self) -> list[str]:
        names = self._names() if callable(self._names) else self._names
        return list(names)

    def __call__(self, value: str) -> str:
        names = self.names()
        if value in names:
            return value
        folded = {n.casefold(): n for n in names}
        if value.casefold() in folded:  # --to HTML means html
            return folded[value.casefold()]
        import typer

        if self.what == "--format":  # -from:alice reaches -f as 'rom:alice'
            from convo.cli.words import glued_field

            glued = glued_field("f", value)
            if glued:
                raise typer.BadParameter(glued)
        raise typer.BadParameter(f"unknown {self.what} {value!r}; choose one of: {'|'.join(names)}")

    def complete(self, incomplete: str) -> list[str]:
        return [n for n in self.names() if n.startswith(incomplete)]


def choice_option(
    default: Any, *decls: str, choices: Choices, help: str, metavar: str | None = None
) -> Any:
    """An option whose value is one of ``choices`` (listed in help unless ``metavar``)."""
    import typer

    return typer.Option(
        default, *decls, parser=choices, autocompletion=choices.complete, help=help,
        metavar=metavar,
    )  # fmt: skip


def show_choices(cmd: Any) -> None:
    """Help shows an option's choices (``[table|jsonl|...]``) and an argument's metavar,
    never a Python type (``<list[str]>``); choices are looked up only when help is shown."""
    for param in cmd.params:
        if param.param_type_name == "argument":
            param.display_type_rich = lambda ctx: None
            continue
        info = getattr(getattr(param, "type_descriptor", None), "parameter_info", None)
        choices = getattr(info, "parser", None)
        if isinstance(choices, Choices) and param.metavar is None:
            _lazy_metavar(param, choices)


def _lazy_metavar(param: Any, choices: Choices) -> None:
    original = param.get_help_record

    def get_help_record(ctx: Any):
        param.metavar = "[" + "|".join(choices.names()) + "]"
        return original(ctx)

    param.get_help_record = get_help_record
