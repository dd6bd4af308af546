"""Option values as typer coerces them, without importing pydantic for the plain ones.

Recent typer coerces every parsed value through a pydantic ``TypeAdapter`` built per
parameter on first use: a command line of a few options imported pydantic (tens of
milliseconds) and built a dozen adapters before the command started. convo's options
are strings, integers, flags and lists of strings; for the values that leave no
doubt (a ``str``, a run of ASCII digits, a tuple of strings) ``Coercion`` returns what
the adapter returns, and hands every other value to typer's own coercion, so results and
error messages are typer's (``tests/cli/test_coercion.py`` compares both on every
parameter of every command).

``install(params)`` puts a ``Coercion`` in the lazy slot typer keeps per parameter
(``_runtime_param``, filled on first use); where that slot does not exist (another typer
version) nothing is installed and typer coerces as it always does. ``on_parse(command)``
installs when the command parses (its help option only exists from then on).
"""

from __future__ import annotations

import re
from typing import Any

_INT = re.compile(r"-?[0-9]{1,18}")
_SLOW = object()  # "not decided here"
_SLOT = "_runtime_param"


def _kind(param: Any) -> str | None:
    """How the values of ``param`` are coerced here, or None (typer does it all)."""
    desc = getattr(param, "type_descriptor", None)
    if desc is None or getattr(desc, "file_annotation", None) is not None:
        return None
    info = desc.parameter_info
    plain = (
        getattr(info, "min", None) is None
        and getattr(info, "max", None) is None
        and not getattr(info, "clamp", False)
        and getattr(info, "click_type", None) is None
        and not desc.is_path
    )
    if not plain:
        return None
    annotation, parser = desc.annotation, getattr(info, "parser", None)
    if parser is not None:
        return "parse" if annotation is str else None
    if annotation == list[str]:
        return "strs"
    return {str: "str", int: "int", bool: "bool"}.get(annotation)


class Coercion:
    """A parameter's coercion: the plain values here, the others by typer's."""

    def __init__(self, kind: str, parser: Any = None):
        self.kind = kind
        self.parser = parser

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        multi = param.multiple or param.nargs == -1
        if value is None:
            return () if multi else None
        out = self._plain(value)
        if out is _SLOW:
            setattr(param, _SLOT, None)  # typer builds and keeps its own from now on
            return param.get_runtime_param().coerce(value, param=param, ctx=ctx)
        return out

    def _plain(self, value: Any) -> Any:
        kind, t = self.kind, type(value)
        if kind == "str":
            return value if t is str else _SLOW
        if kind == "bool":  # typer itself passes bools through: only other values come here
            return _SLOW
        if kind == "parse":
            if t is not str:
                return _SLOW
            try:
                return self.parser(value)
            except (ValueError, AssertionError):
                return _SLOW  # pydantic words these errors: typer's path reports them
        if kind == "strs":
            ok = t in (tuple, list) and all(type(v) is str for v in value)
            return list(value) if ok else _SLOW
        if t is int:  # kind "int"
            return value
        return int(value) if t is str and _INT.fullmatch(value) else _SLOW


def install(params: Any) -> None:
    """Give each of ``params`` that typer would coerce an adapter for a ``Coercion``."""
    for param in params:
        kind = _kind(param)
        if kind is not None and getattr(param, _SLOT, _SLOW) is None:
            parser = param.type_descriptor.parameter_info.parser
            setattr(param, _SLOT, Coercion(kind, parser))


def on_parse(command: Any) -> None:
    """Install on every parameter ``command`` parses (its help option is made then, so
    this happens when it parses), and on the commands of a typer group inside it."""
    parse = command.parse_args

    def parse_args(ctx: Any, args: list[str]) -> Any:
        install(command.get_params(ctx))
        return parse(ctx, args)

    command.parse_args = parse_args
    subcommands = getattr(command, "commands", None)
    if type(subcommands) is dict:  # a typer group's (not the lazy top level: converting)
        for sub in subcommands.values():
            on_parse(sub)
