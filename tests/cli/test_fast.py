"""cli/fast.py reads a read command's line exactly as typer does, or leaves it to typer.

The property: for any command line the fast path accepts, typer accepts it too and the
command gets the same ``ReadArgs``, ``OrderArgs`` and global state. Both paths are run
with ``run_read`` replaced by a recorder, so nothing is read.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.index.helpers import rec, write_store
from typer.testing import CliRunner

import convo.cli.commands.read as read
from convo.cli import fast
from convo.cli.app import app
from convo.cli.options import read_specs
from convo.cli.order_options import ORDER_SPECS
from convo.cli.runtime import state

VALUES = ["alice", "Bob Jones", "7", "0", "-3", "007", " 5", "x=y", "", "-", "--help",
          "time", "TIME", "-time", "jsonl", "JSONL", "csv", "nope", "auto", "voice", "UTC",
          "2024-03", "spam"]  # fmt: skip
WORDS = ["from:alice", "tag:x", "-", "--", "-tag:spam", "hello", "a.jsonl", "-h", "--help",
         "--bogus", "-sq", "-x", "--reverse=1", "-s=al"]  # fmt: skip
DECLS = sorted({d for s in read_specs(None) + ORDER_SPECS for d in s.decls})


@pytest.fixture
def recorded(monkeypatch):
    calls: list[tuple] = []

    def run_read(args, order, *, show=False):
        people, store, debug = state.get("people"), state.get("store"), state.get("debug")
        calls.append((args, order, show, people, store, debug))
        return 0

    monkeypatch.setattr(read, "run_read", run_read)
    for name in ("CONVO_STORE", "CONVO_PEOPLE"):
        monkeypatch.delenv(name, raising=False)
    return calls


def _option(draw) -> list[str]:
    decl = draw(st.sampled_from(DECLS))
    value = draw(st.sampled_from(VALUES))
    form = draw(st.sampled_from(["apart", "joined", "alone"]))
    if form == "alone":
        return [decl]
    if form == "joined":
        return [f"{decl}={value}" if decl.startswith("--") else decl + value]
    return [decl, value]


@st.composite
def command_lines(draw) -> list[str]:
    top: list[str] = []
    for _ in range(draw(st.integers(0, 2))):
        top += draw(st.sampled_from([["--store", "s.jsonl"], ["--store=t.jsonl"], ["--debug"],
                                     ["--people", "p.toml"], ["--version"], ["-h"]]))  # fmt: skip
    rest: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            rest += _option(draw)
        else:
            rest.append(draw(st.sampled_from(WORDS)))
    return [*top, draw(st.sampled_from(["list", "query", "show", "stats"])), *rest]


def _both(argv: list[str], calls: list[tuple]):
    code = fast.run(argv)
    by_fast = calls[:]
    calls.clear()
    result = CliRunner().invoke(app, argv)
    by_typer = calls[:]
    calls.clear()
    return code, by_fast, result, by_typer


# ``recorded`` is emptied after each example: sharing it between examples is safe.
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=command_lines(), store_env=st.sampled_from([None, "", "env.jsonl"]))
def test_fast_and_typer_parse_alike(recorded, argv, store_env):
    with pytest.MonkeyPatch.context() as mp:
        if store_env is not None:
            mp.setenv("CONVO_STORE", store_env)
        code, by_fast, result, by_typer = _both(argv, recorded)
    if code is None:
        assert by_fast == []  # declined before running anything
        return
    if code != 0:  # a usage error both parses found in the arguments (read_args)
        assert result.exit_code == code and by_fast == by_typer == [], (argv, result.output)
        return
    assert result.exit_code == code == 0, (argv, result.output)
    assert by_fast == by_typer and len(by_fast) == 1, argv


@pytest.mark.parametrize(
    "argv",
    [
        ["--store", "s.jsonl", "list", "--latest", "10", "-f", "jsonl"],
        ["query", "--speaker", "quinn.smith@example.org", "-f", "jsonl"],
        ["--debug", "show", "-sAlice", "--tag=x", "-t", "y", "--utc", "a.jsonl", "--sort", "TIME"],
        ["query", "--count", "from:alice", "--", "-tag:spam"],
        ["list", "-n", "007", "--reverse", "--since", "2024-03", "--until=2025", "-"],
    ],
)
def test_plain_read_command_lines_take_the_fast_path(recorded, argv):
    code, by_fast, result, by_typer = _both(argv, recorded)
    assert code == 0 and result.exit_code == 0
    assert by_fast == by_typer and len(by_fast) == 1


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["--version"],
        ["list", "--help"],
        ["list", "-h"],
        ["stats"],
        ["list", "-n", "abc"],
        ["list", "-n", " 5"],
        ["list", "--reverse=1"],
        ["list", "-s", "-x"],
        ["list", "--sort", "bogus"],
        ["list", "-f", "nope"],
        ["list", "--bogus"],
        ["list", "-s=al"],
        ["list", "--limit"],
        ["-x", "list"],
        ["--store"],
        ["--debug=1", "list"],
    ],
)
def test_anything_unusual_is_left_to_typer(recorded, argv):
    assert fast.run(argv) is None
    assert recorded == []


def test_shell_completion_is_left_to_typer(recorded, monkeypatch):
    monkeypatch.setenv("_CONVO_COMPLETE", "bash_complete")
    assert fast.run(["list"]) is None


def test_errors_follow_the_command_rules(recorded, monkeypatch, capsys):
    def broken(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(read, "run_read", broken)
    assert fast.run(["list"]) == 130
    assert capsys.readouterr().err == "convo: interrupted\n"
    assert fast.run(["list", "--latest", "-1"]) is None  # a value that starts with -


def test_the_typer_commands_take_exactly_the_fast_specs():
    group = typer.main.get_command(app)
    ctx = typer.Context(group)
    specs = {s.name: tuple(s.decls) for s in read_specs(None) + ORDER_SPECS}
    for name in read.FAST:
        cmd = group.get_command(ctx, name)
        params = {p.name: tuple(p.opts) for p in cmd.params if p.name != "help"}
        params["inputs"] = ()
        assert params == specs, name


_MAIN = "import sys; sys.argv[0] = 'convo'; from convo.cli.app import main; main()"


def test_the_fast_path_prints_what_typer_prints(tmp_path):
    store = write_store(tmp_path / "s.jsonl", [rec(i) for i in range(30)])
    from convo.index import refresh

    assert refresh(store, wait=True).available
    src = str(Path(__file__).resolve().parents[2] / "src")
    for argv in (["list", "--latest", "5", "-f", "jsonl"], ["query", "-s", "alice", "--count"],
                 ["list", "-f", "text", "--utc", "-n", "3"], ["list", "-f", "nope"]):  # fmt: skip
        full = ["--store", str(store), *argv]
        proc = subprocess.run(
            [sys.executable, "-c", _MAIN, *full], capture_output=True, text=True, timeout=60,
            env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"},
        )  # fmt: skip
        result = CliRunner().invoke(app, full)
        assert (proc.returncode, proc.stdout, proc.stderr) == (
            result.exit_code, result.stdout, result.stderr,
        ), argv  # fmt: skip
