"""``convo knowledge``: TypeAgent knowledge per message (piped) or a conversation summary (terminal).

Registered from cli.py (imported at its end). Inputs, filters and ``--store`` are the
shared ``@read_options``; input rules are those of ``list``/``query``/``show``.
Output: ``jsonl`` (default when piped) one ``{"id", "source_id", "knowledge"}`` line per
message; ``table`` (default on a terminal) the aggregate view; ``json`` the aggregate
as one JSON document. The other read formats (csv, markdown, text) are refused.
The selected messages are the conversation: key-phrase statistics and name merging
use them all (two passes; see ``convo.knowledge``).
"""

from __future__ import annotations

from typing import Any

import typer

from convo.cli.app import _env, _flush_stdout, _outcome, _Reporter, _state, app, command
from convo.cli.options import ReadArgs, read_options

FORMATS = ("table", "jsonl", "json")


@app.command()
@command
@read_options
def knowledge(
    args: ReadArgs,
    *,
    metadata_only: bool = typer.Option(
        False,
        "--metadata-only",
        help="Only TypeAgent's metadata knowledge (get_knowledge()), no content knowledge.",
    ),
    top: int = typer.Option(
        20, "--top", min=1, help="Rows per list in the summary (table and json)."
    ),
) -> int:
    """Extract knowledge (people, addresses, links, topics, who asks and replies to whom).

    Piped: one JSON line per message with TypeAgent's KnowledgeResponse. On a terminal:
    who talks to whom, top entities and topics, each speaker's topics (--format json for scripts).
    """
    from convo.core.errors import UsageError

    env = _env()
    fmt = args.format or ("table" if env.stdout_isatty else "jsonl")
    if fmt not in FORMATS:
        raise UsageError(
            f"--format {fmt} is not available for knowledge", hint="choose table|jsonl|json"
        )
    reporter = _Reporter()
    records = (m.record for m in args.matches(env, reporter, default_store=_state["store"]))
    try:
        if fmt == "jsonl":
            _write_jsonl(env, records, metadata_only)
        else:
            from convo.analysis.knowledge.extract import aggregate

            agg = aggregate(records, metadata_only=metadata_only)
            if fmt == "json":
                import orjson

                data = orjson.dumps(agg.to_dict(top), option=orjson.OPT_INDENT_2)
                env.safe_stdout_bytes().write(data + b"\n")
            else:
                _print_tables(env, agg.to_dict(top), pager=args.pager and env.stdout_isatty)
        _flush_stdout(env)
    finally:
        reporter.close()
    return _outcome(reporter.rejected)


def _write_jsonl(env, records, metadata_only: bool) -> None:
    import orjson

    from convo.analysis.knowledge.extract import extract_all

    out = env.safe_stdout_bytes()
    for record, k in extract_all(records, metadata_only=metadata_only):
        line = {
            "id": record.get("id"),
            "source_id": record.get("source_id"),
            "knowledge": k.to_dict(),
        }
        out.write(orjson.dumps(line) + b"\n")


def _cell(value: Any, style: str = "") -> Any:
    from rich.text import Text

    from convo.core.text.terminal import one_line

    return Text(one_line(str(value)), style=style)


def _table(title: str, columns: list[str], rows: list[list[Any]]):
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_lines=False)
    for col in columns:
        numeric = col == "messages"
        table.add_column(col, justify="right" if numeric else "left", overflow="fold")
    for row in rows:
        table.add_row(*[_cell(v) if not hasattr(v, "spans") else v for v in row])
    return table


def _print_tables(env, data: dict[str, Any], *, pager: bool = False) -> None:
    """The aggregate view: speakers with their topics, pairs, entities, topics."""
    from convo.output.render import speaker_style

    console = env.console()
    per_speaker = {s["speaker"]: s["topics"] for s in data["speaker_topics"]}
    parts: list[Any] = [
        _cell(f"{data['messages']} messages, {len(data['speakers'])} speakers", "bold")
    ]
    if data["speakers"]:
        rows = [
            [
                _cell(s["name"], speaker_style(s["name"])),
                s["messages"],
                ", ".join(t["topic"] for t in per_speaker.get(s["name"], [])),
            ]
            for s in data["speakers"]
        ]
        parts.append(
            _table("Speakers and their top topics", ["speaker", "messages", "topics"], rows)
        )
    if data["pairs"]:
        rows = [
            [
                _cell(p["speaker"], speaker_style(p["speaker"])),
                _cell(p["listener"], speaker_style(p["listener"])),
                p["messages"],
            ]
            for p in data["pairs"]
        ]
        parts.append(_table("Who talks to whom", ["speaker", "listener", "messages"], rows))
    if data["entities"]:
        rows = [[e["name"], ", ".join(e["type"]), e["messages"]] for e in data["entities"]]
        parts.append(_table("Top entities", ["entity", "type", "messages"], rows))
    if data["topics"]:
        rows = [[t["topic"], t["messages"]] for t in data["topics"]]
        parts.append(_table("Top topics", ["topic", "messages"], rows))
    if pager:
        with console.pager(styles=True):
            for part in parts:
                console.print(part)
        return
    for part in parts:
        console.print(part)
