"""``convo formats``: the registered input formats as a table or as JSON data."""

from __future__ import annotations

from typing import Any

from convo.importers.registry import Format


def format_rows(formats: list[Format]) -> list[dict[str, Any]]:
    """One JSON-ready dict per format."""
    return [
        {"name": f.name, "family": f.family, "description": f.description,
         "patterns": list(f.patterns), "directory": f.directory, "example": f.example}
        for f in formats
    ]  # fmt: skip


def render(formats: list[Format], console) -> None:
    """A table that stays readable at 80 columns: the example column only when wide."""
    from rich.table import Table
    from rich.text import Text

    wide = console.width >= 120
    table = Table(title=None, show_lines=False, pad_edge=False)
    table.add_column("format", no_wrap=True)
    table.add_column("family", no_wrap=True)
    table.add_column("files", overflow="fold", ratio=1)
    table.add_column("what it reads", overflow="fold", ratio=2)
    if wide:
        table.add_column("example", overflow="fold", ratio=1)
    for f in formats:
        files = " ".join(f.patterns) + (" (folder)" if f.directory else "")
        cells = [Text(f.name, style="bold"), Text(f.family), Text(files), Text(f.description)]
        if wide:
            cells.append(Text(f.example[:80], style="dim"))
        table.add_row(*cells)
    console.print(table)
