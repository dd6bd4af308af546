"""``convo export --to typeagent-db -o conv.db [QUERY]``: TypeAgent's own SQLite
conversation database, built offline (``convo.typeagent.run.export_database``).

The records are those of every read command (named files in any format, stdin or the
store, the QUERY and filters), validated as every export validates them. The database is
always a file (``-o``, never stdout), created when missing and added to when it exists
(an empty selection creates none and says that nothing matched):
only records whose id it has not ingested are added (a re-run adds nothing). A progress
bar (records added of the new ones) shows on a terminal; one line on stderr says what was
done. ``--name`` is the conversation's name, set when the database is created.
``--extractor llm`` adds a language model's knowledge to convo's (``cli.llm_options``);
the messages that fell back to convo's own are one warning.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from convo.cli.read_args import ReadArgs


def _progress_bar(env) -> tuple[Callable[[int, int], None] | None, Callable[[], None]]:
    if not env.stderr_isatty:
        return None, lambda: None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    bar = Progress(
        TextColumn("typeagent-db"), BarColumn(), MofNCompleteColumn(),
        console=env.console(stderr=True), transient=True,
    )  # fmt: skip
    bar.start()
    task = bar.add_task("records", total=None)

    def update(done: int, new: int) -> None:
        bar.update(task, completed=done, total=new)

    return update, bar.stop


def write_typeagent_db(
    args: ReadArgs,
    env,
    reporter,
    output: str | None,
    checked: Callable[[Any, Any], Iterator[dict[str, Any]]],
    name: str,
    llm: Any = None,
) -> int:
    """Build or extend the database ``output``; the exit code. ``llm``: the model of
    ``--extractor llm`` (``analysis.knowledge.llm.Settings``), or None."""
    from convo.cli.runtime import err, outcome
    from convo.core.errors import UsageError
    from convo.query.scan import Selector
    from convo.typeagent.run import export_database

    if not output or output == "-":
        raise UsageError("--to typeagent-db writes a database file", hint="name it with -o FILE")
    selector = Selector(args.build_query().filters())
    records = checked(args.matches(env, reporter, selector=selector), reporter)
    update, stop = _progress_bar(env)
    try:
        built = export_database(
            records, output, name=name, on_progress=update, llm=llm, on_warning=reporter.warning
        )
    finally:
        stop()
        reporter.close()
    if built is None:  # nothing selected: no database made, but never without a word
        from convo.output.reading import nothing_matched

        err(nothing_matched(selector))
        return outcome(reporter.rejected)
    from convo.core.plural import counted

    err(
        f"typeagent-db {output}: {counted(built['added'], 'message')} added, {built['known']} "
        f"already there, {counted(built['semrefs'], 'semantic ref')} added; "
        f"{counted(built['messages'], 'message')} in all"
    )
    return outcome(reporter.rejected)
