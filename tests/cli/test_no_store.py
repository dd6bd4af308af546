"""A store that is not there is one line and exit 2 in every command that reads or
changes it, and in every MCP tool: ``core.errors.NoStore``. It said "the store is
empty" in some commands, "no store yet" in others; rm, tag and compact said they had
removed, retagged or dropped nothing (exit 0), and the checks of embed and index reported
on vectors and an index of nothing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from convo.cli.app import app
from convo.core.errors import NO_STORE_HINT, NoStore

COMMANDS = [
    ["list"],
    ["list", "-f", "csv"],
    ["query", "from:alice"],
    ["show"],
    ["search", "jwt"],
    ["similar", "some-id"],
    ["stats"],
    ["knowledge"],
    ["people"],
    ["threads"],
    ["validate"],
    ["report", "-o", "{tmp}/report.html"],
    ["export", "--to", "openai"],
    ["export", "--to", "parquet", "-o", "{tmp}/dataset"],
    ["embed"],
    ["embed", "--check"],
    ["index"],
    ["index", "--check"],
    ["tag", "+todo", "--", "from:alice"],
    ["rm", "--yes", "--", "from:alice"],
    ["rm", "--dry-run", "--", "from:alice"],
    ["compact"],
    ["compact", "--dry-run"],
]
FAST = [["list"], ["query", "from:alice"], ["show"], ["search", "jwt"]]  # cli/fast*.py


def _expected(missing) -> str:
    return f"convo: error: {missing}: no store yet; {NO_STORE_HINT}\n"


def _args(words: list[str], tmp_path) -> list[str]:
    return [w.replace("{tmp}", str(tmp_path)) for w in words]


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("given", ["--store", "CONVO_STORE"])
def test_every_command_says_the_same_of_a_missing_store(runner, tmp_path, words, given):
    missing = tmp_path / "none.jsonl"
    args, env = _args(words, tmp_path), {}
    if given == "--store":
        args = ["--store", str(missing), *args]
    else:
        env = {"CONVO_STORE": str(missing)}
    r = runner.invoke(app, args, env=env)
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", _expected(missing))
    assert list(tmp_path.iterdir()) == []  # nothing made, the store least of all


@pytest.mark.parametrize("words", FAST, ids=" ".join)
def test_the_fast_paths_say_it_too(tmp_path, words):
    missing = tmp_path / "none.jsonl"
    env = {**os.environ, "CONVO_STORE": str(missing)}
    r = subprocess.run(
        [sys.executable, "-m", "convo", *words], env=env, capture_output=True, text=True,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert (r.returncode, r.stdout, r.stderr) == (2, "", _expected(missing))


def test_every_mcp_tool_says_it_too(tmp_path):
    from convo.mcp.calls import Archive
    from convo.mcp.tools import TOOLS
    from convo.store import Store

    missing = tmp_path / "none.jsonl"
    archive = Archive(Store(missing))
    for tool in TOOLS:
        with pytest.raises(NoStore) as caught:
            archive.call(tool.name, {name: "x" for name in tool.required})
        assert str(caught.value) == _expected(missing)[len("convo: error: ") : -1]
    assert list(tmp_path.iterdir()) == []
