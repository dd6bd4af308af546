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
