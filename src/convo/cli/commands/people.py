"""``convo people``: the names in the messages, with counts, and likely merges."""

from __future__ import annotations

import typer

from convo.cli.options import ReadArgs, read_options_for
from convo.cli.runtime import Reporter, command, environment, flush_stdout, outcome

FORMATS = ("table", "json", "jsonl")


def people(args: ReadArgs) -> int:
    """Every speaker and listener name: messages, first and last seen, formats; then
    names that look like one person (same address, same display name, one name inside
    another).

    Settle them in a people file (--people FILE or $CONVO_PEOPLE), TOML:

        [people.alice]
        name = "Alice Smith"
        names = ["Alice Smith", "Alice", "alice_dev"]
        addresses = ["alice@example.org"]

    Then -s/-r, from:/to:, stats and knowledge treat every alias as that person.
    Piped: JSON ({"identities": [...], "merges": [...]}); -f jsonl: one line per name.
    -n N shows the first N names (the most active); every selected message is counted.
    """
    import orjson

    from convo.analysis.people import identities, merges
    from convo.output.views.people import render

    env = environment()
    fmt = args.format or ("table" if env.stdout_isatty else "json")
    reporter = Reporter()
    try:
        rows, args.limit = args.limit, None  # -n: the names shown, as elsewhere the rows
        records = (m.record for m in args.matches(env, reporter))
        found = identities(records, args.load_people())
        likely = merges(found)
        found = found if rows is None else found[:rows]
        out = env.safe_stdout_bytes() if fmt != "table" else None
        if fmt == "json" and out is not None:
            data = {
                "identities": [i.to_dict() for i in found],
                "merges": [m.to_dict() for m in likely],
            }
            out.write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
        elif out is not None:
            out.write(b"".join(orjson.dumps(i.to_dict()) + b"\n" for i in found))
        else:
            render(found, likely, env.console(), args.write_options())
        flush_stdout(env)
    finally:
        reporter.close()
    return outcome(reporter.rejected)


def register(app: typer.Typer) -> None:
    app.command("people")(command(read_options_for(FORMATS)(people)))
