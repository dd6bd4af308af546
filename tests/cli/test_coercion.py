"""cli/coercion.py gives every parameter of every command typer's own values and errors."""

from __future__ import annotations

import pytest
import typer
import typer.main

from convo.cli.app import app
from convo.cli.coercion import Plain

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
    from convo.cli.coercion import install
    from convo.cli.group import _main

    group = typer.main.get_command(app)
    install(group.get_params(typer.Context(group)), _main)  # as its parse does
    for name, cmd in [("convo", group), *_commands()]:
        ctx = typer.Context(cmd)
        install(cmd.get_params(ctx))  # as its parse does
        for param in cmd.get_params(ctx):
            mine = param.process_value
            if isinstance(mine, Plain):
                yield name, param, mine, ctx


CASES = list(_cases())


def test_every_kind_of_option_is_coerced_here():
    kinds = {c.kind for _, _, c, _ in CASES}
    assert kinds == {"str", "parse", "strs", "int", "bool", "bounded"}
    assert len(CASES) > 150


def test_the_groups_options_too():
    names = {p.name for n, p, _, _ in CASES if n == "convo"}
    assert names >= {"store", "people", "debug", "install_completion", "show_completion", "help"}


@pytest.mark.parametrize(("name", "param", "mine", "ctx"), CASES, ids=lambda x: str(x)[:30])
def test_same_values_and_errors_as_typer(name, param, mine, ctx):
    theirs = mine.original  # typer's own process_value (a pydantic adapter)
    for value in [None, *VALUES]:
        got = _outcome(lambda v=value: mine(ctx, v))
        want = _outcome(lambda v=value: theirs(ctx, v))
        assert got == want, (name, param.name, value)


def test_only_public_typer_api():
    """Nothing of typer's that is not public (issue 34 §8): no private attribute, no
    module-level helper of typer.main but get_command."""
    import re
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "src" / "convo" / "cli"
    for name in ("lazy.py", "coercion.py", "group.py", "usage.py"):
        text = (src / name).read_text()
        assert not re.search(r"\._[a-z]\w*_?(?<!__)\b(?!\()", text.replace("self._", "")), name
        used = set(re.findall(r"typer\.main\.(\w+)", text))
        assert used <= {"get_command"}, (name, used)
