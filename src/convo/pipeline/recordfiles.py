"""What ``convo validate`` reads: the record lines of its inputs, each file checked first.

``validate`` checks records, so a named file must hold them: convo's JSONL (or a damaged
one, each bad line reported with its number), or TypeAgent's records as ``convo export
--to typeagent`` writes them (one JSON array: each element checked as a line, numbered
by the line it starts on). A file of any other format is one clear error naming the
format it is and the command that reads it (``convo ingest``), not a rejection per line.

Each input comes with whether it is TypeAgent's (``validated_inputs``): an array, or
JSONL whose first record has neither ``id`` nor ``format`` (``export --to typeagent
--jsonl``); its records are checked for TypeAgent's keys only, as ``--typeagent`` asks.
A convo file with such a line among its records still has it reported.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import orjson

from convo.core.errors import InputError
from convo.core.io import Source
from convo.core.jsonl import Line
from convo.core.jsonstream import iter_items
from convo.pipeline.inputs import LineSource, record_lines

ARRAY_FORMAT = "typeagent"  # importers/records/typeagent.py


def validated_inputs(
    inputs: list[str], *, store: str | None, store_named: bool = False, stdin_has_data: bool
) -> Iterator[tuple[LineSource, bool]]:
    """The record lines of each input (by the read commands' input rule), and whether
    they are TypeAgent's records (see the module docstring)."""
    parts: list[str | None] = list(inputs) if inputs else [None]
    for path in parts:
        if path not in (None, "-") and _kind(path) == ARRAY_FORMAT:
            yield _array_lines(path), True
            continue
        named = [path] if path is not None else []
        lines = record_lines(
            named, store=store, store_named=store_named, stdin_has_data=stdin_has_data,
            raw_only=True,
        )  # fmt: skip
        first = next(lines, None)
        if first is None:
            continue
        yield itertools.chain([first], lines), _typeagent_line(first[0].raw)


def _typeagent_line(raw: bytes) -> bool:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    return isinstance(value, dict) and "id" not in value and "format" not in value


def _kind(path: str) -> str | None:
    """The format of a named file when it is not JSONL records (None: read it as JSONL)."""
    from convo.importers.registry import registry

    source = Source(path)
    if source.is_dir:
        return None
    try:
        fmt = registry.detect(source)
    except InputError:
        return None  # damaged JSONL or garbage: every line is reported
    if fmt.name in ("jsonl", ARRAY_FORMAT):
        return fmt.name
    raise InputError(
        f"this is {fmt.name} ({fmt.family}), not JSONL records",
        where=path,
        hint=f"`convo ingest {path}` imports it; validate checks records",
    )


def _array_lines(path: str) -> Iterator[tuple[Line, str]]:
    with Source(path).open() as stream:
        for item, number in iter_items(stream, (), where=path):
            yield Line(number, orjson.dumps(item)), path
