"""Option values as typer coerces them, without importing pydantic for the plain ones.

Recent typer coerces every parsed value through a pydantic ``TypeAdapter`` built per
parameter on first use: a command line of a few options imported pydantic (tens of
milliseconds) and built a dozen adapters before the command started. convo's options
are strings, integers, flags and lists of strings; for the values that leave no
doubt (an option not given, a ``str``, a run of ASCII digits, a tuple of strings)
``Plain`` returns what typer returns (a bounded number, ``min=``/``max=``, only when it
is not given), and hands every other value to the parameter's
own ``process_value``, so results and error messages are typer's
(``tests/cli/test_coercion.py`` compares both on every parameter of every command).

Only public API is used (issue 34 §8): the parameter's kind comes from the function the
command was declared with (``inspect.signature``: its annotation and the
``typer.Option``/``typer.Argument`` given as its default; a flag is a flag), and
``install`` wraps click's
``Parameter.process_value`` of each of the command's ``params`` (the original still
checks a missing required value and does everything that is not plain).
"""

from __future__ import annotations

import inspect
import re
import types
from collections.abc import Callable
from typing import Any, Union, get_args, get_origin

_INT = re.compile(r"-?[0-9]{1,18}")
_SLOW = object()  # "not decided here"


def _unwrapped(annotation: Any) -> Any:
    """``X`` of ``X | None`` (typer reads an optional value as its type)."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _kind(annotation: Any, info: Any) -> str | None:
    """How the values of a parameter are coerced here, or None (typer does it all)."""
    if info is inspect.Parameter.empty or not hasattr(info, "parser"):
        return None  # not declared with typer.Option/typer.Argument
    plain = (
        not getattr(info, "clamp", False)
        and getattr(info, "click_type", None) is None
        and not getattr(info, "path_type", None)
        and not getattr(info, "resolve_path", False)
    )
    if not plain:
        return None
    if getattr(info, "min", None) is not None or getattr(info, "max", None) is not None:
        # A bounded number: only "not given" is decided here (typer checks the bounds),
        # so a command line without --jobs builds no pydantic adapter for it.
        return "bounded"
    annotation = _unwrapped(annotation)
    if info.parser is not None:
        return "parse" if annotation is str else None
    if annotation == list[str]:
        return "strs"
    return {str: "str", int: "int", bool: "bool"}.get(annotation)


def kinds(func: Callable[..., Any]) -> dict[str, tuple[str, Any]]:
    """``{parameter: (kind, parser)}`` for the parameters of ``func`` coerced here."""
    out: dict[str, tuple[str, Any]] = {}
    names = getattr(inspect.unwrap(func), "__globals__", {})
    for p in inspect.signature(func, eval_str=True).parameters.values():
        annotation = p.annotation
        if isinstance(annotation, str):  # a signature made for typer keeps the text
            try:
                annotation = eval(annotation, dict(names))  # convo's own source
            except Exception:
                continue
        kind = _kind(annotation, p.default)
        if kind is not None:
            out[p.name] = (kind, getattr(p.default, "parser", None))
    return out


class Plain:
    """A parameter's ``process_value``: the plain values here, the others by typer's."""

    def __init__(self, param: Any, kind: str, parser: Any, original: Callable[..., Any]):
        self.param = param
        self.kind = kind
        self.parser = parser
        self.original = original

    def __call__(self, ctx: Any, value: Any) -> Any:
        param = self.param
        if value is None:
            out = () if param.multiple or param.nargs == -1 else None
        else:
            out = self._plain(value)
        if out is _SLOW or (param.required and param.value_is_missing(out)):
            return self.original(ctx, value)  # typer's coercion, checks and errors
        if param.callback is not None:
            out = param.callback(ctx, param, out)
        return out

    def _plain(self, value: Any) -> Any:
        kind, t = self.kind, type(value)
        if kind == "bounded":
            return _SLOW
        if kind == "str":
            return value if t is str else _SLOW
        if kind == "bool":
            return value if t is bool else _SLOW  # typer passes bools through
        if kind == "parse":
            return self._parsed(value) if t is str else _SLOW
        if kind == "strs":
            ok = t in (tuple, list) and all(type(v) is str for v in value)
            return list(value) if ok else _SLOW
        if t is int:  # kind "int"
            return value
        return int(value) if t is str and _INT.fullmatch(value) else _SLOW

    def _parsed(self, value: str) -> Any:
        try:
            return self.parser(value)
        except (ValueError, AssertionError):
            return _SLOW  # pydantic words these errors: typer's path reports them


def install(params: list[Any], func: Callable[..., Any] | None = None) -> None:
    """Coerce here the plain ones of a command's ``params``, declared by ``func``, and its
    flags (``--help`` and typer's ``--install-completion`` too: a flag's value is a bool
    or None)."""
    plain = kinds(func) if func is not None else {}
    for param in params:
        found = plain.get(param.name)
        if found is None and getattr(param, "is_flag", False) and not param.multiple:
            found = ("bool", None)
        if found is not None and not isinstance(param.process_value, Plain):
            param.process_value = Plain(param, *found, param.process_value)
