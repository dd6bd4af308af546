"""Help as click writes it: arguments in the usage line, and a group's commands.

typer writes a required argument as ``{TAG}`` and a repeated optional one with a
metavar as ``[[ID]...]...``; convo's usage lines read ``TAG [ID]...`` as click's (and
every Unix tool's) do. ``prepare_help`` also reaches the commands of a group (``tag
add``), which the app's lazy command list (``cli/lazy.py``) prepares only at the top.
"""

from __future__ import annotations

import functools
from typing import Any

from convo.cli.choices import show_choices


def usage_name(param: Any) -> str:
    """An argument in the usage line: ``NAME``, ``[NAME]`` if optional, ``...`` if repeated."""
    name = param.metavar or param.name.upper()
    name = name if param.required else f"[{name}]"
    return name + "..." if param.nargs != 1 else name


def _pieces(param: Any, _ctx: Any) -> list[str]:
    return [usage_name(param)]


def prepare_help(cmd: Any) -> None:
    """``show_choices`` for ``cmd`` and its subcommands, and click's argument names."""
    show_choices(cmd)
    for sub in getattr(cmd, "commands", {}).values():
        prepare_help(sub)
    for param in cmd.params:
        if param.param_type_name == "argument":
            # click's public hook for the usage line (typer's own is a private method)
            param.get_usage_pieces = functools.partial(_pieces, param)
