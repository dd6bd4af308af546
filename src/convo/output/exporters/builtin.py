"""convo's own output formats, registered through the ``convo.exporters`` entry-point hook.

Declared here, apart from their writers, so that the registry knows every name, its
description and whether it is ``raw`` without importing a writer: a read command then
imports only the writer it runs (the table writer alone brings rich and the views).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from convo.core.errors import UsageError
from convo.output.exporters.registry import Exporter, Registry

TYPE_CHECKING = False  # typing is not imported at run time (docs/startup.md)

if TYPE_CHECKING:
    from typing import Any

    from convo.output.env import Environment
    from convo.output.exporters.common import Record
    from convo.output.writers import WriteOptions
    from convo.output.writers.base import RecordWriter

Items = Callable[["Record", "Any"], list[dict[str, "Any"]]]


def _later(module: str, name: str) -> Callable[..., Any]:
    """``module.name``, imported when first called: naming the formats (``-f``'s choices,
    a ``list`` that writes jsonl) imports neither the agent formats (their model brings
    pydantic) nor the documents (webvtt)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        import importlib

        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def _agents(name: str) -> Callable[..., Any]:
    return _later("convo.output.exporters.agents", name)


def _documents(name: str) -> Callable[..., Any]:
    return _later("convo.output.exporters.documents", name)


_tool_names = _later("convo.output.exporters.common", "ToolNames")


def per_record(items: Items, state: Callable[[], Any] = lambda: None):
    """A stream of the JSON values ``items(record, state)`` gives for each record."""

    def stream(records: Iterable[Record]) -> Iterator[dict[str, Any]]:
        ctx = state()
        for rec in records:
            yield from items(rec, ctx)

    return stream


def _write_parquet(records: Iterable[dict[str, Any]], folder: str, **options: Any) -> int:
    from convo.output.exporters.parquet import write_parquet  # pyarrow loads only when used

    return write_parquet(records, folder, **options)


def _write_parquet_parts(parts: list[Any], filters: Any, folder: str, **options: Any) -> int | None:
    from convo.output.exporters.parquet_parallel import export_parts

    return export_parts(parts, filters, folder, **options)


def _write_sqlite(records: Iterable[dict[str, Any]], path: str, **options: Any) -> int:
    from convo.output.exporters.sqlite import write_sqlite

    return write_sqlite(records, path, **options)


def _whole_dataset(messages: Iterable[Any]) -> Any:
    raise UsageError("a dataset is written to a folder", hint="use write_dir (-o DIR)")


def _table(env: Environment, options: WriteOptions) -> RecordWriter:
    from convo.output.writers.table import TableWriter

    return TableWriter(env.console(), options)


def _jsonl(env: Environment, _options: WriteOptions) -> RecordWriter:
    from convo.output.writers.records import JsonlWriter

    return JsonlWriter(env.safe_stdout_bytes("json"))


def _json(env: Environment, _options: WriteOptions) -> RecordWriter:
    from convo.output.writers.records import JsonWriter

    return JsonWriter(env.safe_stdout_bytes("json"))


def _text(env: Environment, options: WriteOptions) -> RecordWriter:
    from convo.output.writers.text import TextWriter

    return TextWriter(env.stdout, options)


BUILTINS = (
    Exporter("table", "view", "a table on the terminal (default there)", writer=_table),
    Exporter("jsonl", "view", "the records as JSON lines (default when piped)", writer=_jsonl,
             raw=True),
    Exporter("json", "view", "the records as one JSON array", writer=_json, raw=True),
    Exporter("text", "view", "one plain line per message, for grep", writer=_text),
    Exporter("openai", "agent", "OpenAI chat completions messages", _agents("to_openai"),
             per_record(_agents("openai_items"))),
    Exporter("anthropic", "agent", "an Anthropic Messages request body {system, messages}",
             _agents("to_anthropic")),
    Exporter("agentscope", "agent", "AgentScope Msg.to_dict() dicts", _agents("to_agentscope"),
             per_record(_agents("agentscope_items"), _tool_names)),
    Exporter("autogen", "agent", "AutoGen agentchat message and event dumps", _agents("to_autogen"),
             per_record(_agents("autogen_items"), _tool_names)),
    Exporter("langmem", "agent", "LangMem threads {id, messages, metadata}", _agents("to_langmem")),
    Exporter("jianmu", "agent", "Jianmu Message.to_dict() dicts", _agents("to_jianmu"),
             per_record(_agents("jianmu_items"))),
    Exporter("typeagent", "agent", "TypeAgent ConversationMessage.serialize() dicts",
             _agents("to_typeagent"), per_record(_agents("typeagent_items"))),
    Exporter("markdown", "document", "a Markdown transcript (HTML and markup escaped; UTC)",
             document=_documents("MarkdownDocument")),
    Exporter("csv", "document", "spreadsheet columns, one row a message (formulas escaped; UTC)",
             document=_documents("CsvDocument")),
    Exporter("html", "document", "a standalone HTML page", _documents("to_html"),
             _documents("iter_html")),
    Exporter("vtt", "document", "WebVTT subtitles, one cue a message", _documents("to_vtt"),
             _documents("iter_vtt")),
    Exporter("srt", "document", "SubRip subtitles, one cue a message", _documents("to_srt"),
             _documents("iter_srt")),
    Exporter("parquet", "dataset", "a Parquet dataset folder (typed columns, format=/month=)",
             _whole_dataset, write_dir=_write_parquet, write_parts=_write_parquet_parts),
    Exporter("sqlite", "dataset", "one SQLite database with the text (datasette, FTS5)",
             _whole_dataset, write_dir=_write_sqlite),
)  # fmt: skip


def register(registry: Registry) -> None:
    for exporter in BUILTINS:
        registry.register(exporter)
