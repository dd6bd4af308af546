"""``convo search`` without typer: the command line read by ``cli/fast.py``'s parse from
the command's own parameters (``cli.commands.search.specs``), then the same command run
under the same rules (``fast.invoke``). A search's start-up without typer's import,
about 0.07 s of CPU on the benchmark machine (benchmarks/bench_retrieval.py). Anything
the parse is not sure to read as click would goes to typer, as for the read commands;
``tests/cli/test_fast_search.py`` checks that both parses give the search the same.
"""

from __future__ import annotations

from typing import Any


def run(top: dict[str, Any], argv: list[str]) -> int | None:
    """The exit code of ``convo search ARGV`` with the group's options ``top``, or None:
    typer must read it."""
    from convo.cli.commands.search import search, specs
    from convo.cli.fast import Decline, invoke, parse
    from convo.cli.options import read_specs
    from convo.cli.order_options import ORDER_SPECS

    try:
        values = parse(specs(), argv)
    except Decline:
        return None
    for spec in (*read_specs(None), *ORDER_SPECS):  # what search does not take: defaults
        values.setdefault(spec.name, spec.default)
    own = {"fts": values.pop("fts"), "mode": values.pop("mode")}
    return invoke(lambda args, _order: search(**own, args=args), top, values)
