"""What ``convo search`` and ``convo similar`` share: their output formats, their limit,
and the hits written (the table is ``output.views.search.render``; JSON(L) records carry
their ``score`` and, when meaning ranked, ``match``)."""

from __future__ import annotations

from typing import Any

from convo.cli.read_args import ReadArgs
from convo.cli.runtime import err


def shared_specs() -> tuple[Any, ...]:
    """The shared read options search and similar take, after their words. They read the
    store: the import options (but --tz, which reads --since/--until), --reverse and
    --pager would do nothing, so they are not options of them at all."""
    from convo.cli.options import IMPORT_SPECS, read_specs

    unused = {"reverse", "pager", *(s.name for s in IMPORT_SPECS if s.name != "tz")}
    return tuple(s for s in read_specs(("table", "jsonl", "json"))[1:] if s.name not in unused)


def output_format(env: Any, args: ReadArgs, command: str = "search") -> str:
    """``--format``, else a table on a terminal and JSONL in a pipe (only these three)."""
    from convo.core.errors import UsageError

    fmt = args.format or ("table" if env.stdout_isatty else "jsonl")
    if fmt not in ("table", "jsonl", "json"):
        raise UsageError(
            f"--format {fmt} is not available for {command}", hint="choose table|jsonl|json"
        )
    return fmt


def unlimited(args: ReadArgs) -> tuple[Any, int]:
    """The filters as a query without a limit, and the limit (``-n``, else ``Store.search``'s)."""
    from convo.store.api import SEARCH_LIMIT

    query = args.build_query()
    limit = SEARCH_LIMIT if query.limit is None else query.limit
    return query.replace(limit=None), limit


def show_hits(env: Any, hits: Any, fmt: str, args: ReadArgs) -> None:
    """The hits as the table (times as every read command shows them: ``--tz``, the
    config file's, ``--utc``), or as JSON(L) records with their score (and the search's
    notice, once, on stderr)."""
    if hits.notice:
        err(f"note: {hits.notice}")
    if fmt == "table":
        if not hits:  # as the read commands say it, without a table of no rows
            err("no messages match")
            return
        from convo.output.views.search import render

        render(hits, env.console(), args.write_options())
    else:
        _json_out(env, hits, fmt)


def _json_out(env: Any, hits: Any, fmt: str) -> None:
    import orjson

    out = env.safe_stdout_bytes()
    if hits.mode == "fts":
        docs = [{**h.record, "score": h.score} for h in hits]
    else:
        docs = [{**h.record, "score": h.score, "match": h.why} for h in hits]
    if fmt == "json":
        out.write(orjson.dumps(docs, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        for d in docs:
            out.write(orjson.dumps(d) + b"\n")
    out.flush()
