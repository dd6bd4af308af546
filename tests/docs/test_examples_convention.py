"""The example convention itself (tests/docs/examples.py): how blocks, commands and
shown output are read, and how ``...`` matches."""

from __future__ import annotations

from tests.docs.examples import blocks, matches


def test_blocks_commands_and_output():
    page = "\n".join(
        [
            "text",
            "```console",
            "$ convo list \\",
            "  --count",
            "3",
            "$ convo stats",
            "```",
            "- a list item:",
            '  ```sh title="not run: a server"',
            "  convo serve",
            "  ```",
            "```json",
            "{}",
            "```",
        ]
    )
    found = blocks(page)
    assert [(b.lang, b.runs, b.not_run) for b in found] == [
        ("console", True, False),
        ("sh", False, True),
        ("json", False, False),
    ]
    first, second = found[0].commands
    assert (first.text, first.expected, first.line) == ("convo list \\\n  --count", ["3"], 3)
    assert (second.text, second.expected) == ("convo stats", [])
    assert found[1].lines == ["convo serve"] and found[1].indent == 2


def test_any_lines():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "d"], ["a", "d"])
    assert not matches(["a", "...", "d"], ["a", "b"])
    assert matches(["a", ""], ["a"])  # trailing blank lines are not compared
    assert not matches(["a"], ["a", "b"])
