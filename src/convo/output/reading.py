"""A read command as one library call: select from inputs, stream into a writer."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from typing import Any

    from convo.output.writers.base import RecordWriter
    from convo.query.scan import Selector


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
    """What an empty result says on a terminal (an empty screen would say nothing)."""
    return f"no messages match; 0 of {selector.lines_read():,} read"
