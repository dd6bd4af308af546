"""Where read commands get their records: named inputs, stdin, or the store.

Input rule: named inputs; else stdin when it is a pipe or a non-empty file and the
``--store`` option is not given (an explicit ``--store`` means the store, so a command in
a ``while read`` loop never swallows the loop's stdin); else the store. ``$CONVO_STORE``
only says where the store is: a person who sets it in a shell profile keeps
``convo ingest a.vtt | convo query -s Alice`` reading the pipe. When the store is read
while stdin is a non-empty pipe, ``stdin_ignored`` says so for the caller to print.

Named inputs may be in any importable format: JSONL records are streamed as raw lines
(so output can pass them through), anything else is imported on the fly, so
``convo query --speaker Alice standup.vtt`` works without an ingest first.

A named file (or stdin) no format recognises is an error ("format not recognised", as
for ``convo ingest``), unless it looks like damaged records (it opens a JSON object, or
a later line of its head is a record): then it is read as JSONL so that every bad line
is reported with its number.

A named file whose first line is a convo/TypeAgent record (it has ``textChunks``) and the
store are read as raw JSONL without loading the importers (and pydantic), which keeps a
query's start-up short; the reading side (``core.io``, ``core.jsonl``, orjson) loads when
an input is read, so a read the store's index answers does not import it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

from convo.core.errors import InputError, NoStore
from convo.store.select import RawFile

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from typing import Any

    from convo.core.io import Source
    from convo.core.jsonl import Line
    from convo.importers.context import ImportOptions, Rejection

LineSource = Iterator[tuple["Line", str]]


def _looks_like_records(path: str) -> bool:
    """The first line of a regular file is one JSON object with ``textChunks``."""
    import os

    from convo.core.io import BOM, open_binary

    if path == "-" or not os.path.isfile(path):
        return False
    try:
        with open_binary(path) as f:
            head = f.read(1 << 16)
    except (InputError, OSError, EOFError):
        return False
    head = head.removeprefix(BOM).lstrip()
    end = head.find(b"\n")
    if end < 0:
        return False
    return _is_record_line(head[:end])


def _raw_lines(source: Any) -> LineSource:
    from convo.core.jsonl import iter_lines

    with source.open() as stream:
        for line in iter_lines(stream):
            yield line, source.name


def _imported_lines(
    source: Source,
    fmt_name: str,
    options: ImportOptions | None,
    on_reject: Callable[[Rejection], None] | None,
) -> LineSource:
    from convo.core.jsonl import Line, dumps
    from convo.importers.registry import registry
    from convo.pipeline.ingest import Ingest

    ingest = Ingest(options, format_name=fmt_name, on_reject=on_reject)
    for n, msg in enumerate(ingest.read_source(source, registry.get(fmt_name)), 1):
        yield Line(n, dumps(msg.serialize())[:-1]), source.name


if TYPE_CHECKING:
    Part = Any  # a raw JSONL source (Source or RawFile: read in blocks) or ready record lines


def parts_of(
    path: str,
    *,
    options: ImportOptions | None = None,
    format_name: str | None = None,
    on_reject: Callable[[Rejection], None] | None = None,
    raw_only: bool = False,
) -> Iterator[Part]:
    """One input as a raw JSONL source (streamed by the caller) or imported record lines.

    ``options`` and ``format_name`` (``--from``) are those of ``convo ingest``, so a file
    gives the same records (times, ids) whichever command reads it.
    """
    forced = format_name not in (None, "jsonl")
    if not forced and (
        _looks_like_records(path) or (raw_only and path != "-" and not _isdir(path))
    ):
        yield RawFile(path)
        return
    from convo.core.io import Source
    from convo.importers.registry import registry

    source = Source(path)
    if raw_only and not source.is_dir:
        yield source
        return
    if source.is_dir:
        from convo.core.jsonl import Line, dumps
        from convo.pipeline.ingest import Ingest

        # Each file as it is, as when named one by one: a read command shows what its
        # inputs say (no id is given its content hash for another file's message).
        ingest = Ingest(options, format_name=format_name, on_reject=on_reject, cross=False)
        yield (
            (Line(n, dumps(msg.serialize())[:-1]), source.name)
            for n, msg in enumerate(ingest.messages([path]), 1)
        )
        return
    if format_name is not None:
        fmt = registry.get(format_name)
    else:
        try:
            fmt = registry.detect(source)
        except InputError:
            if not _json_lines_like(source):
                raise  # "format not recognised", as `convo ingest` says
            # Damaged records (a store whose lines went bad): read as JSONL so each bad
            # line is reported with its number.
            yield source
            return
    if fmt.name == "jsonl":
        yield source
    else:
        yield _imported_lines(source, fmt.name, options, on_reject)


def _json_lines_like(source: Source) -> bool:
    """The head opens a JSON object or holds a record line: records, perhaps damaged
    (a store with a bad first line), not some other file."""
    from convo.core.io import BOM

    head = source.head.removeprefix(BOM)
    if head.lstrip()[:1] == b"{":
        return True
    for line in head.splitlines()[1:]:
        if line.lstrip()[:1] == b"{" and _is_record_line(line):
            return True
    return False


def _is_record_line(line: bytes) -> bool:
    import orjson

    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return isinstance(value, dict) and ("textChunks" in value or "text_chunks" in value)


def _isdir(path: str) -> bool:
    import os

    return os.path.isdir(path)


def reads_store(inputs: list[str], *, store_named: bool, stdin_has_data: bool) -> bool:
    """The input rule picks the store: no named inputs, and stdin is not the input."""
    return not inputs and not (stdin_has_data and not store_named)


STDIN_IGNORED = (
    "reading the store ({store}), not the data piped to standard input (name - to read it)"
)


def store_input(
    inputs: list[str], *, store: str | None, store_named: bool, stdin_has_data: bool
) -> str | None:
    """The store file (links followed, where its index lives) when the input rule reads
    an existing store, else None."""
    if not reads_store(inputs, store_named=store_named, stdin_has_data=stdin_has_data):
        return None
    from convo.store.path import real_location, store_location

    path = store_location(store)
    real = real_location(path)
    return real if os.path.exists(path) else None


def existing_store(store: str | None) -> str:
    """The store file a read command reads (``--store``, ``$CONVO_STORE`` or the
    default), or the InputError that says it is not there: a read command checks it
    before it writes anything (a CSV header, a JSON array's ``[``)."""
    from convo.store.path import real_location, store_location

    named = store_location(store)  # strings, no pathlib: an indexed read's start-up
    real_location(named)  # a folder, a device or a dangling link is an error
    if not os.path.exists(named):
        raise NoStore(named)
    return named


def record_parts(
    inputs: list[str], *, store: str | None, store_named: bool = False, stdin_has_data: bool,
    **read: Any,
) -> Iterator[Part]:  # fmt: skip
    """Every input of a read command, by the input rule above; ``read``: the keywords of
    ``parts_of`` (``options``, ``format_name``, ``on_reject``, ``raw_only``)."""
    if not inputs:
        if not reads_store(inputs, store_named=store_named, stdin_has_data=stdin_has_data):
            inputs = ["-"]
        else:
            inputs = [existing_store(store)]
            read["raw_only"] = True
    for path in inputs:
        yield from parts_of(path, **read)


def record_lines(
    inputs: list[str], *, store: str | None, store_named: bool = False, stdin_has_data: bool,
    **read: Any,
) -> LineSource:  # fmt: skip
    """All record lines for a read command, by the input rule above (``read``: as for
    ``record_parts``)."""
    parts = record_parts(
        inputs, store=store, store_named=store_named, stdin_has_data=stdin_has_data, **read
    )
    for part in parts:
        yield from _raw_lines(part) if hasattr(part, "open") else part
