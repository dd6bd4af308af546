"""The ``knowledge`` summary view: speakers with their topics, pairs, entities, topics.

Counts keep their width; a name, an entity or a topic is one line, cut with ``…`` when
the terminal is too narrow (``common.fit``); a speaker's list of topics wraps.
"""

from __future__ import annotations

from typing import Any

from convo.core.plural import counted
from convo.core.text.terminal import one_line
from convo.output.views.common import fit, speaker_style


def _cell(value: Any, style: str = "") -> Any:
    from rich.text import Text

    return Text(one_line(str(value)), style=style)


def _table(title: str, columns: list[str], rows: list[list[Any]]):
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_lines=False)
    for col in columns:
        if col == "messages":
            table.add_column(col, justify="right", no_wrap=True, min_width=len(col))
        elif col == "topics":
            table.add_column(col, overflow="fold")
        else:
            table.add_column(col, no_wrap=True, overflow="ellipsis", min_width=min(8, len(col)))
    for row in rows:
        table.add_row(*[_cell(v) if not hasattr(v, "spans") else v for v in row])
    return table


def _person(name: str) -> Any:
    return _cell(name, speaker_style(name))


def parts(data: dict[str, Any]) -> list[Any]:
    """The renderables of the aggregate ``data`` (``Aggregate.to_dict``), in order."""
    per_speaker = {s["speaker"]: s["topics"] for s in data["speaker_topics"]}
    speakers = data.get("speaker_count", len(data["speakers"]))  # all, not the --top cut
    head = (
        f"{counted(data['messages'], 'message', grouped=True)}, "
        f"{counted(speakers, 'speaker', grouped=True)}"
    )
    if data.get("approximate"):
        head += " (the largest tables keep their top keys: counts approximate)"
    out: list[Any] = [_cell(head, "bold")]
    if data["speakers"]:
        rows = [
            [
                _person(s["name"]),
                s["messages"],
                ", ".join(t["topic"] for t in per_speaker.get(s["name"], [])),
            ]
            for s in data["speakers"]
        ]
        out.append(_table("Speakers and their top topics", ["speaker", "messages", "topics"], rows))
    if data["pairs"]:
        rows = [
            [_person(p["speaker"]), _person(p["listener"]), p["messages"]] for p in data["pairs"]
        ]
        out.append(_table("Who talks to whom", ["speaker", "listener", "messages"], rows))
    if data["entities"]:
        rows = [[e["name"], ", ".join(e["type"]), e["messages"]] for e in data["entities"]]
        out.append(_table("Top entities", ["entity", "type", "messages"], rows))
    if data["topics"]:
        rows = [[t["topic"], t["messages"]] for t in data["topics"]]
        out.append(_table("Top topics", ["topic", "messages"], rows))
    return out


def render(data: dict[str, Any], console, *, pager: bool = False) -> None:
    import contextlib

    with console.pager(styles=True) if pager else contextlib.nullcontext():
        for part in parts(data):
            columns = getattr(part, "columns", [])
            names = [i for i, c in enumerate(columns) if c.no_wrap and c.header != "messages"]
            console.print(fit(part, console, tuple(reversed(names))) if names else part)
