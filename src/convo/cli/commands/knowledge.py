"""``convo knowledge``: TypeAgent knowledge per message (piped) or a conversation summary.

Inputs, filters and import options are the shared ``@read_options``. Output: ``jsonl``
(default when piped) one ``{"id", "source_id", "knowledge"}`` line per message;
``table`` (default on a terminal) the aggregate view; ``json`` the aggregate as one JSON
document; ``csv`` its tables as rows (``output.views.rows``). The selected messages are the conversation: key-phrase statistics and name
merging use them all (two passes; see ``convo.analysis.knowledge``).
"""

from __future__ import annotations

import typer

from convo.cli.llm_options import EXTRACTOR, LLM_MODEL, LLM_TIMEOUT, LLM_URL, llm_settings
from convo.cli.options import read_options_for
from convo.cli.read_args import ReadArgs
from convo.cli.runtime import Reporter, command, environment, flush_stdout, outcome

FORMATS = ("table", "jsonl", "json", "csv")
JOBS_HELP = (
    "Extract in N processes (default: the CPU count for JSONL inputs over 32 MB; "
    "1: in this process). The output is the same either way."
)


def knowledge(
    args: ReadArgs,
    *,
    metadata_only: bool = typer.Option(
        False,
        "--metadata-only",
        help="Only TypeAgent's metadata knowledge (get_knowledge()), no content knowledge.",
    ),
    top: int = typer.Option(
        20, "--top", min=1, metavar="N", help="Rows per list in the summary (table, json, csv)."
    ),
    jobs: int | None = typer.Option(None, "--jobs", "-j", metavar="N", min=1, help=JOBS_HELP),
    extractor: str = EXTRACTOR,
    llm_url: str | None = LLM_URL,
    llm_model: str | None = LLM_MODEL,
    llm_timeout: float = LLM_TIMEOUT,
) -> int:
    """Extract knowledge (people, addresses, links, topics, who asks and replies to whom).

    Piped: one JSON line per message with TypeAgent's KnowledgeResponse. On a terminal:
    who talks to whom, top entities and topics, each speaker's topics (--format json for scripts).
    """
    from convo.analysis.knowledge.ranges import knowledge_of_parts
    from convo.output.progress import work_bar

    refine = _refiner(llm_settings(extractor, llm_url, llm_model, llm_timeout), metadata_only)
    env = environment()
    fmt = args.format or ("table" if env.stdout_isatty else "jsonl")
    reporter = Reporter()
    try:
        parts = args.parts(env, reporter)
        indexed = args.indexed_records(env)  # a few messages of the store, by its index
        if indexed is None:
            args.say_plan(
                "plan: scan (knowledge reads every selected message, on every core for a "
                "large file)"
            )
        out = env.safe_stdout_bytes()
        # On a terminal's stderr, unless the lines themselves go to that terminal.
        shown = fmt != "jsonl" or not env.stdout_isatty
        label = "knowledge (observe, then extract)"
        with work_bar(env, label, enabled=shown) as work:
            agg = knowledge_of_parts(
                parts, args.filters(), summary=fmt != "jsonl", metadata_only=metadata_only,
                on_error=reporter.bad_line, jobs=jobs, out=out, people=args.load_people(),
                on_progress=work.bytes, track=work.track, refine=refine, records=indexed,
            )  # fmt: skip
        said = refine.warning() if refine is not None else None
        if said:
            reporter.warning(said)
        if agg is not None:
            _write_summary(env, agg.to_dict(top), fmt, pager=args.pager)
        flush_stdout(env)
    finally:
        reporter.close()
    return outcome(reporter.rejected)


def _refiner(settings, metadata_only: bool):
    """The ``llm.Refiner`` of ``--extractor llm`` (None for the offline rules)."""
    if settings is None:
        return None
    from convo.core.errors import UsageError

    if metadata_only:
        raise UsageError("--metadata-only and --extractor llm do not go together")
    from convo.analysis.knowledge.llm import Refiner

    return Refiner(settings)


def _write_summary(env, data: dict, fmt: str, *, pager: bool) -> None:
    import orjson

    from convo.output.views.knowledge import render

    if fmt == "json":
        env.safe_stdout_bytes().write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    elif fmt == "csv":
        from convo.output.views.rows import knowledge_csv

        env.safe_stdout_bytes().write(knowledge_csv(data))
    else:
        render(data, env.console(), pager=pager and env.stdout_isatty)


def register(app: typer.Typer) -> None:
    app.command("knowledge")(command(read_options_for(FORMATS)(knowledge)))
