"""``convo people``: the names in the messages, with counts, and likely merges."""

from __future__ import annotations

import typer

from convo.cli.options import read_options_for
from convo.cli.read_args import ReadArgs
from convo.cli.runtime import Reporter, command, environment, flush_stdout, outcome

FORMATS = ("table", "json", "jsonl", "csv")


def people(args: ReadArgs) -> int:
    """Every speaker and listener name: messages, first and last seen, formats; then
    names that look like one person (same address, same display name, one name inside
    another).

    Settle them in a people file (--people FILE or $CONVO_PEOPLE), TOML:

    \b
        [people.alice]
        name = "Alice Smith"
        names = ["Alice Smith", "Alice", "alice_dev"]
        addresses = ["alice@example.org"]

    Then -s/-r, from:/to:, stats and knowledge treat every alias as that person, and
    this command counts each person once too (a table of persons above the names).
    Piped: JSON ({"persons": [...], "identities": [...], "merges": [...]}); -f jsonl
    and -f csv: one line per name.
    -n N shows the first N names (the most active; --reverse: the least active first);
    every selected message is counted.
    """

    from convo.analysis.people import census, merges
    from convo.output.views.people import render

    env = environment()
    fmt = args.format or ("table" if env.stdout_isatty else "json")
    reporter = Reporter()
    try:
        # -n and --reverse: the names shown and their order, as elsewhere the rows
        rows, args.limit = args.limit, None
        reverse, args.reverse = args.reverse, False
        records = (m.record for m in args.matches(env, reporter))
        found, persons = census(records, args.load_people())
        likely = merges(found)
        found = found[::-1] if reverse else found
        found = found if rows is None else found[:rows]
        if fmt == "table":
            render(found, likely, env.console(), args.write_options(), persons)
        else:
            env.safe_stdout_bytes().write(_serialised(fmt, found, likely, persons))
        flush_stdout(env)
    finally:
        reporter.close()
    return outcome(reporter.rejected)


def _serialised(fmt: str, found, likely, persons) -> bytes:
    """The names (and persons, merges) as ``json``, ``csv`` or ``jsonl``."""
    import orjson

    if fmt == "json":
        data = {
            "persons": [p.to_dict() for p in persons],
            "identities": [i.to_dict() for i in found],
            "merges": [m.to_dict() for m in likely],
        }
        return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
    from convo.output.views.rows import dicts_bytes

    rows = [i.to_dict() for i in found]
    return dicts_bytes(fmt, rows, list(rows[0]) if rows else [])


def register(app: typer.Typer) -> None:
    helps = {
        "limit": "At most this many names, the most active (rows; every selected message counts).",
        "reverse": "The least active names first.",
    }
    app.command("people")(command(read_options_for(FORMATS, helps=helps)(people)))
