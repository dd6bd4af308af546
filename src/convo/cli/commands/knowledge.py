"""``convo knowledge``: TypeAgent knowledge per message (piped) or a conversation summary.

Inputs, filters and import options are the shared ``@read_options``. Output: ``jsonl``
(default when piped) one ``{"id", "source_id", "knowledge"}`` line per message;
``table`` (default on a terminal) the aggregate view; ``json`` the aggregate as one JSON
document. The selected messages are the conversation: key-phrase statistics and name
merging use them all (two passes; see ``convo.analysis.knowledge``).
"""

from __future__ import annotations

import typer

from convo.cli.options import ReadArgs, read_options_for
from convo.cli.runtime import Reporter, command, environment, flush_stdout, outcome, state

FORMATS = ("table", "jsonl", "json")


def knowledge(
    args: ReadArgs,
    *,
    metadata_only: bool = typer.Option(
        False,
        "--metadata-only",
        help="Only TypeAgent's metadata knowledge (get_knowledge()), no content knowledge.",
    ),
    top: int = typer.Option(
        20, "--top", min=1, metavar="N", help="Rows per list in the summary (table and json)."
    ),
) -> int:
    """Extract knowledge (people, addresses, links, topics, who asks and replies to whom).

    Piped: one JSON line per message with TypeAgent's KnowledgeResponse. On a terminal:
    who talks to whom, top entities and topics, each speaker's topics (--format json for scripts).
    """
    env = environment()
    fmt = args.format or ("table" if env.stdout_isatty else "jsonl")
    reporter = Reporter()
    records = (m.record for m in args.matches(env, reporter, default_store=state["store"]))
    try:
        if fmt == "jsonl":
            _write_jsonl(env, records, metadata_only)
        else:
            _write_summary(
                env, records, fmt, metadata_only=metadata_only, top=top, pager=args.pager
            )
        flush_stdout(env)
    finally:
        reporter.close()
    return outcome(reporter.rejected)


def _write_summary(env, records, fmt: str, *, metadata_only: bool, top: int, pager: bool) -> None:
    import orjson

    from convo.analysis.knowledge.summary import aggregate
    from convo.output.views.knowledge import render

    data = aggregate(records, metadata_only=metadata_only).to_dict(top)
    if fmt == "json":
        env.safe_stdout_bytes().write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        render(data, env.console(), pager=pager and env.stdout_isatty)


def _write_jsonl(env, records, metadata_only: bool) -> None:
    import orjson

    from convo.analysis.knowledge.extract import extract_all
    from convo.core import fields

    out = env.safe_stdout_bytes()
    for record, k in extract_all(records, metadata_only=metadata_only, keep_text=False):
        line = {
            "id": fields.record_id(record),
            "source_id": fields.string(record, "source_id"),
            "knowledge": k.to_dict(),
        }
        out.write(orjson.dumps(line) + b"\n")


def register(app: typer.Typer) -> None:
    app.command("knowledge")(command(read_options_for(FORMATS)(knowledge)))
