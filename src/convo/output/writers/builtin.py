"""convo's own output formats, registered through the ``convo.writers`` hook.

Declared here, apart from their writers, so that the registry knows every name, its
description and whether it is ``raw`` without importing a writer: a read command then
imports only the writer it runs (the table writer alone brings rich and the views).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo.output.writers import WriteOptions, Writer, WriterRegistry

if TYPE_CHECKING:
    from convo.output.env import Environment
    from convo.output.writers.base import RecordWriter


def _table(env: Environment, options: WriteOptions) -> RecordWriter:
    from convo.output.writers.table import TableWriter

    return TableWriter(env.console(), options)


def _jsonl(env: Environment, _options: WriteOptions) -> RecordWriter:
    from convo.output.writers.records import JsonlWriter

    return JsonlWriter(env.safe_stdout_bytes("json"))


def _json(env: Environment, _options: WriteOptions) -> RecordWriter:
    from convo.output.writers.records import JsonWriter

    return JsonWriter(env.safe_stdout_bytes("json"))


def _csv(env: Environment, _options: WriteOptions) -> RecordWriter:
    from convo.output.writers.csv import CsvWriter

    return CsvWriter(env.stdout, tty=env.stdout_isatty)


def _markdown(env: Environment, options: WriteOptions) -> RecordWriter:
    from convo.output.writers.markdown import MarkdownWriter

    return MarkdownWriter(env.stdout, options)


def _text(env: Environment, options: WriteOptions) -> RecordWriter:
    from convo.output.writers.text import TextWriter

    return TextWriter(env.stdout, options)


BUILTINS = (
    Writer("table", "a table on the terminal (default there)", _table),
    Writer("jsonl", "the records as JSON lines (default when piped)", _jsonl, raw=True),
    Writer("json", "the records as one JSON array", _json, raw=True),
    Writer("csv", "spreadsheet columns (formulas escaped; UTC)", _csv),
    Writer("markdown", "a Markdown table (HTML and markup escaped)", _markdown),
    Writer("text", "one plain line per message, for grep", _text),
)


def register(registry: WriterRegistry) -> None:
    for writer in BUILTINS:
        registry.register(writer)
