"""Where read commands get their records: named inputs, stdin, or the store.

Named inputs may be in any importable format: JSONL records are streamed as raw lines
(so output can pass them through), anything else is imported on the fly, so
``convo query --speaker Alice standup.vtt`` works without an ingest first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .errors import InputError, RecordError
from .importers import ImportOptions, Source, registry
from .importers.base import Rejection
from .jsonl import Line, dumps, iter_lines

LineSource = Iterator[tuple[Line, str]]


def _raw_lines(source: Source) -> LineSource:
    with source.open() as stream:
        for line in iter_lines(stream):
            yield line, source.name


def _imported_lines(
    source: Source,
    fmt_name: str,
    options: ImportOptions | None,
    on_reject: Callable[[Rejection], None] | None,
) -> LineSource:
    from .ingest import Ingest

    ingest = Ingest(options, format_name=fmt_name, on_reject=on_reject)
    for n, msg in enumerate(ingest._read(source, registry.get(fmt_name)), 1):
        yield Line(n, dumps(msg.serialize())[:-1]), source.name


def lines_of(
    path: str,
    *,
    options: ImportOptions | None = None,
    on_reject: Callable[[Rejection], None] | None = None,
    raw_only: bool = False,
) -> LineSource:
    """Record lines of one input; ``raw_only`` reads it as JSONL whatever it looks like."""
    source = Source(path)
    if raw_only and not source.is_dir:
        yield from _raw_lines(source)
        return
    if source.is_dir:
        from .ingest import Ingest

        ingest = Ingest(options, on_reject=on_reject)
        for n, msg in enumerate(ingest.messages([path]), 1):
            yield Line(n, dumps(msg.serialize())[:-1]), source.name
        return
    try:
        fmt = registry.detect(source)
    except InputError:
        # Unrecognisable: read as JSONL so each bad line is reported with its number.
        yield from _raw_lines(source)
        return
    if fmt.name == "jsonl":
        yield from _raw_lines(source)
    else:
        yield from _imported_lines(source, fmt.name, options, on_reject)


def record_lines(
    inputs: list[str],
    *,
    store: str | None,
    stdin_has_data: bool,
    options: ImportOptions | None = None,
    on_reject: Callable[[Rejection], None] | None = None,
    raw_only: bool = False,
) -> LineSource:
    """All record lines for a read command, per DESIGN.md §2's input rule."""
    if not inputs:
        if stdin_has_data:
            inputs = ["-"]
        else:
            from .store import Store

            st = Store(store)
            if not st.exists():
                raise InputError(
                    "the store is empty",
                    where=str(st.path),
                    hint="add messages with `convo ingest FILE --save`, or name input files",
                )
            inputs = [str(st.path)]
            raw_only = True
    for path in inputs:
        yield from lines_of(path, options=options, on_reject=on_reject, raw_only=raw_only)


def report_bad_line(error: RecordError) -> Rejection:
    return Rejection(error.where or "", error.what, error.hint)
