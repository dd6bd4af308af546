"""A read command as one library call: select from inputs, stream into a writer."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from typing import Any

    from convo.output.writers.base import RecordWriter
    from convo.query.scan import Selector
    from convo.query.tree import Node


def write_selection(
    selector: Selector | None,
    parts: Iterable[Any],
    writer: RecordWriter,
    *,
    on_error=None,
    raw: bool = False,
    pager: bool = False,
    batches: Iterable[list[Any]] | None = None,
) -> int:
    """Write what ``selector`` picks from ``parts`` (``pipeline.inputs.record_parts``).

    Without ``--limit``/``--reverse`` the scanner's batches go straight to the writer
    (memory stays flat); ``raw`` writers get lines the scanner decided on bytes unparsed.
    ``pager`` pages a terminal writer's output. ``batches``: the matches, already chosen
    (``store.select.select``: through the index, sorted; ``selector`` may then be None).
    Returns the number of records written.
    """
    if batches is None:
        assert selector is not None
        filters = selector.filters
        if filters.limit is None and not filters.reverse:
            batches = selector.batches(parts, on_error, need_record=not raw)
        else:
            batches = ([m] for m in selector.select_parts(parts, on_error, need_record=not raw))
    console = writer.console
    with console.pager(styles=True) if pager and console is not None else contextlib.nullcontext():
        for batch in batches:
            writer.write_many(batch)
        writer.close()
    return writer.count


def nothing_matched(selector: Selector) -> str:
    """What an empty result says on a terminal (an empty screen would say nothing): how
    many lines were looked at, when the scan read them (an answer of the index reads
    none: "0 of 0 read" beside a store of thousands said the store was empty)."""
    read = selector.lines_read()
    return f"no messages match; 0 of {read:,} read" if read else "no messages match"


def unknown_values(where: Node | None) -> Iterator[str]:
    """A hint for each ``format:`` or ``role:`` value no format or role has, said when
    nothing matched (``format:mbx``): stored values are open strings (a plug-in's
    format, a record from elsewhere), so such a value is no error, but a typo should
    not look like an empty archive. The registry is read only then."""
    from difflib import get_close_matches

    from convo.core.fields import ROLES
    from convo.query.tree import Term, leaves

    known: dict[str, tuple[str, ...]] = {"role": ROLES}
    for leaf in leaves(where):
        if not isinstance(leaf, Term) or leaf.field not in ("format", "role"):
            continue
        if leaf.field == "format" and "format" not in known:
            from convo.importers.registry import registry

            known["format"] = tuple(registry.names())
        value = leaf.value.casefold()
        if value in known[leaf.field]:
            continue
        close = get_close_matches(value, known[leaf.field], n=1)
        guess = f"; did you mean {leaf.field}:{close[0]}?" if close else ""
        listed = "`convo formats` lists them" if leaf.field == "format" else ", ".join(ROLES)
        yield f"note: no {leaf.field} is named {leaf.value!r} ({listed}){guess}"
