"""convo's own exporters, registered through the ``convo.exporters`` entry-point hook."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from convo.core.errors import UsageError
from convo.output.exporters import agents, documents
from convo.output.exporters.common import Record, ToolNames
from convo.output.exporters.registry import Exporter, Registry

Items = Callable[[Record, Any], list[dict[str, Any]]]


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


BUILTINS = (
    Exporter("openai", "agent", "OpenAI chat completions messages", agents.to_openai,
             per_record(agents.openai_items)),
    Exporter("anthropic", "agent", "an Anthropic Messages request body {system, messages}",
             agents.to_anthropic),
    Exporter("agentscope", "agent", "AgentScope Msg.to_dict() dicts", agents.to_agentscope,
             per_record(agents.agentscope_items, ToolNames)),
    Exporter("autogen", "agent", "AutoGen agentchat message and event dumps", agents.to_autogen,
             per_record(agents.autogen_items, ToolNames)),
    Exporter("langmem", "agent", "LangMem threads {id, messages, metadata}", agents.to_langmem),
    Exporter("jianmu", "agent", "Jianmu Message.to_dict() dicts", agents.to_jianmu,
             per_record(agents.jianmu_items)),
    Exporter("typeagent", "agent", "TypeAgent ConversationMessage.serialize() dicts",
             agents.to_typeagent, per_record(agents.typeagent_items)),
    Exporter("markdown", "document", "a Markdown transcript", documents.to_markdown,
             documents.iter_markdown),
    Exporter("csv", "document", "CSV, one row a message (formulas escaped)", documents.to_csv,
             documents.iter_csv),
    Exporter("html", "document", "a standalone HTML page", documents.to_html,
             documents.iter_html),
    Exporter("vtt", "document", "WebVTT subtitles, one cue a message", documents.to_vtt,
             documents.iter_vtt),
    Exporter("srt", "document", "SubRip subtitles, one cue a message", documents.to_srt,
             documents.iter_srt),
    Exporter("parquet", "dataset", "a Parquet dataset folder (typed columns, format=/month=)",
             _whole_dataset, write_dir=_write_parquet, write_parts=_write_parquet_parts),
    Exporter("sqlite", "dataset", "one SQLite database with the text (datasette, FTS5)",
             _whole_dataset, write_dir=_write_sqlite),
)  # fmt: skip


def register(registry: Registry) -> None:
    for exporter in BUILTINS:
        registry.register(exporter)
