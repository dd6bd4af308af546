"""Issue 18 polish: help shows metavars and choices, never Python types."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from convo.cli.app import app

COMMANDS = [
    "ingest",
    "list",
    "query",
    "show",
    "stats",
    "knowledge",
    "formats",
    "schema",
    "validate",
    "people",
    "export",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_no_python_types(command):
    r = CliRunner().invoke(app, [command, "--help"])
    assert r.exit_code == 0
    assert not re.search(r"<(str|int|float|bool|list|int range)[^>]*>", r.stdout), r.stdout


@pytest.mark.parametrize(
    ("command", "choices"),
    [("list", "[table|jsonl|json|text|markdown|csv]"), ("stats", "[table|text|json|jsonl|csv]"),
     ("knowledge", "[table|jsonl|json|csv]"), ("ingest", "[auto|voice|prefix|none]"),
     ("formats", "[table|json|jsonl|csv]"), ("people", "[table|json|jsonl|csv]")],
)  # fmt: skip
def test_fixed_choices_are_listed(command, choices):
    r = CliRunner().invoke(app, [command, "--help"])
    assert choices in r.stdout


@pytest.mark.parametrize(
    ("command", "unlisted", "listed"),
    [("export", ["--format", "--pager", "--utc"], ["--to", "--explain", "--since"]),
     ("report", ["--format", "--pager"], ["--utc", "--tz", "--explain"])],
)  # fmt: skip
def test_help_lists_no_option_the_command_refuses_or_ignores(command, unlisted, listed):
    """`convo export --help` listed `-f [table|jsonl|...]  Default: table on a terminal`,
    which export refuses (its format is --to), and --utc/--pager, which it ignores;
    report's `-f [html]` said the same. They are accepted still, and -f keeps its hint."""
    r = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0
    options = set(re.findall(r"(?m)^\s+(?:-\w, )?(--[a-z-]+)", r.stdout))
    assert not options & set(unlisted), r.stdout
    assert set(listed) <= options, r.stdout
    if command == "export":
        r = CliRunner().invoke(app, ["export", "-f", "json", "--to", "csv"])
        assert r.exit_code == 2 and "use --to FORMAT" in r.stderr
