"""``convo list``/``query``/``show`` without importing typer, for a plain command line.

Importing typer (and its vendored click) takes longer than the rest of an indexed read
(``convo list --latest 10``). ``run(argv)`` parses a command line of the read commands
(``cli.commands.read.FAST``) from the very option declarations typer's parameters are
made from (``cli.options.Spec``: ``read_specs`` and ``cli.order_options.ORDER_SPECS``), builds the same
``ReadArgs``/``OrderArgs`` with the same functions, and runs the command under the same
error rules (``cli.runtime.guarded``). Anything it is not sure to read as click would
(help, an unknown option, a value that starts with ``-``, a flag given a value, a
number that is not plain digits, an unknown choice, shell completion) returns None and
typer parses the whole command line: usage errors and their wording stay typer's.
``tests/cli/test_fast.py`` checks that both parses give the same arguments.

Measured as whole commands (``convo query --speaker Quinn -f jsonl`` on a 2,000-record
file, 9 alternating rounds, ``benchmarks/bench_fastpaths.py``): 1.46× less CPU than the
same command parsed by typer, 1.60× less wall time (noise ±22%).
"""

from __future__ import annotations

import os

from convo.cli.options import Spec

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)
if TYPE_CHECKING:
    from typing import Any

_STRS = list[str] | None  # a repeatable option's annotation (cli/options.py)
_GLOBAL_VALUES = {"--store": ("store", "CONVO_STORE"), "--people": ("people", "CONVO_PEOPLE")}


class Decline(Exception):
    """Typer must read this command line."""


def run(argv: list[str], *, process: bool = False) -> int | None:
    """The exit code of the read command ``argv`` names, or None: run it through typer.
    ``process``: the command is the whole process (``cli.app.main``), not a call."""
    if any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):
        return None  # click's shell completion
    try:
        top, rest = _global(argv)
        if not rest:
            return None
        if rest[0] == "search":  # its own module, with search's own options
            if process:
                import gc

                # One short process whose garbage has few cycles: the collector's passes
                # over what its imports made were 2.6% of a search's instructions (100k
                # messages, cachegrind), and its peak memory is the same without them.
                gc.disable()
            from convo.cli.fast_search import run as search

            return search(top, rest[1:])
        from convo.cli.commands.read import FAST

        func = FAST.get(rest[0])
        if func is None:
            return None
        from convo.cli.options import read_specs
        from convo.cli.order_options import ORDER_SPECS

        specs = read_specs(None) + ORDER_SPECS
        values = parse(specs, rest[1:])
    except Decline:
        return None
    return invoke(func, top, values)


def invoke(func: Any, top: dict[str, Any], values: dict[str, Any]) -> int:
    from convo.cli.options import read_args
    from convo.cli.order_options import order_args
    from convo.cli.runtime import apply_config, guarded, state

    # What the group's callback (cli/group.py) sets before any command runs.
    state["debug"] = top["debug"]

    def call() -> Any:
        settings = apply_config(state)
        state["people"] = top["people"] or settings.get("people")
        state["store"] = top["store"] or settings.get("store")
        state["store_named"] = top["store_named"]
        args = read_args(values)["args"]
        return func(args, order_args(values)["order"])

    return guarded(call)


def _global(argv: list[str]) -> tuple[dict[str, Any], list[str]]:
    """The group's options (``--store``, ``--people``, ``--debug``) and what follows."""
    top: dict[str, Any] = {"debug": False, "store": None, "people": None, "store_named": False}
    given: set[str] = set()
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        name, eq, value = argv[i].partition("=")
        if name == "--debug" and not eq:
            top["debug"] = True
        elif name in _GLOBAL_VALUES:
            if not eq:
                i += 1
                value = _value(argv, i)
            top[_GLOBAL_VALUES[name][0]] = value
            given.add(name)
            top["store_named"] = top["store_named"] or name == "--store"
        else:
            raise Decline
        i += 1
    for name, (key, envvar) in _GLOBAL_VALUES.items():
        if name not in given:
            top[key] = os.environ.get(envvar) or None  # click ignores an empty variable
    return top, argv[i:]


def _value(argv: list[str], i: int) -> str:
    if i >= len(argv) or (argv[i].startswith("-") and argv[i] != "-"):
        raise Decline  # missing, or click's reading of it is not obvious
    return argv[i]


def parse(specs: tuple[Spec, ...], argv: list[str]) -> dict[str, Any]:
    """The values of ``specs`` in ``argv`` by parameter name, as typer passes them (lists
    as lists, absent ones as their defaults); ``Decline`` when unsure."""
    by_decl = {d: s for s in specs for d in s.decls}
    argument = next(s for s in specs if not s.decls)
    values: dict[str, Any] = {s.name: s.default for s in specs}
    lists: dict[str, list[str]] = {}
    positional: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            positional += argv[i + 1 :]
            break
        if token == "-" or not token.startswith("-"):
            positional.append(token)
            i += 1
            continue
        spec, value, i = _option(by_decl, argv, i)
        if spec.annotation is bool:
            values[spec.name] = True
        elif spec.annotation == _STRS:
            lists.setdefault(spec.name, []).append(value)
        else:
            values[spec.name] = _coerce(spec, value)
    values.update(lists)
    values[argument.name] = positional
    return values


def _option(by_decl: dict[str, Spec], argv: list[str], i: int) -> tuple[Spec, str, int]:
    """The option at ``argv[i]``, its value ("" for a flag) and the next index."""
    token = argv[i]
    if token.startswith("--"):
        name, eq, value = token.partition("=")
        spec = by_decl.get(name)
        if spec is None or (eq and spec.annotation is bool):
            raise Decline
        if eq or spec.annotation is bool:
            return spec, value, i + 1
        return spec, _value(argv, i + 1), i + 2
    spec = by_decl.get(token[:2])
    if spec is None or spec.annotation is bool or "=" in token:
        raise Decline  # a flag cluster, or -s=x (click reads "=x")
    if len(token) > 2:
        return spec, token[2:], i + 1
    return spec, _value(argv, i + 1), i + 2


def plain_int(value: str) -> bool:
    """``value`` is what ``cli/coercion.py`` reads as a number without typer: the regular
    expression ``-?[0-9]{1,18}`` in full, checked without ``re`` (not imported by an
    indexed read: docs/startup.md, "Third pass"; ``tests/cli/test_fast.py`` holds them
    equal)."""
    digits = value[1:] if value.startswith("-") else value
    return 0 < len(digits) <= 18 and all("0" <= c <= "9" for c in digits)


def _coerce(spec: Spec, value: str) -> Any:
    if spec.choices is not None:
        try:
            return spec.choices(value)
        except Exception:
            raise Decline from None  # typer words the error
    if spec.annotation in (int, int | None):
        if not plain_int(value):
            raise Decline
        return int(value)
    return value
