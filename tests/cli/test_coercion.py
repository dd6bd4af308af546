"""cli/coercion.py gives every parameter of every command typer's own values and errors."""

from __future__ import annotations

import pytest
import typer
import typer.main

from convo.cli.app import app
from convo.cli.coercion import Coercion, install

VALUES = [
    "", "abc", "10", "-3", "007", " 5", "+5", "1_0", "1.5", "-2.25", "1e3", "nan", "x1",
    "99999999999999999999", "١٢", "table", "JSONL", "jsonl", "time", "-time", "auto",
    0, 7, -1, 2.5, True, False, ("a", "b"), ("a", 1), [], (), ["x"],
]  # fmt: skip


def _commands():
    group = typer.main.get_command(app)
    ctx = typer.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        yield name, cmd
        for sub_name, sub in getattr(cmd, "commands", {}).items():
            yield f"{name} {sub_name}", sub


def _outcome(fn):
    try:
        value = fn()
    except Exception as e:  # compared by type and text
        return ("error", type(e).__name__, str(e))
    return ("value", type(value).__name__, value)


def _cases():
    for name, cmd in _commands():
        ctx = typer.Context(cmd)
        params = cmd.get_params(ctx)
        install(params)
        for param in params:
            mine = getattr(param, "_runtime_param", None)
            if isinstance(mine, Coercion):
                yield name, param, mine, ctx


CASES = list(_cases())


def test_every_kind_of_option_is_coerced_here():
    kinds = {c.kind for _, _, c, _ in CASES}
    assert kinds == {"str", "parse", "strs", "int", "bool"}
    assert len(CASES) > 150


@pytest.mark.parametrize(("name", "param", "mine", "ctx"), CASES, ids=lambda x: str(x)[:30])
def test_same_values_and_errors_as_typer(name, param, mine, ctx):
    param._runtime_param = None
    theirs = param.get_runtime_param()  # typer's own (a pydantic adapter)
    for value in [None, *VALUES]:
        param._runtime_param = mine
        got = _outcome(lambda v=value: mine.coerce(v, param=param, ctx=ctx))
        want = _outcome(lambda v=value: theirs.coerce(v, param=param, ctx=ctx))
        assert got == want, (name, param.name, value)
        param._runtime_param = mine
