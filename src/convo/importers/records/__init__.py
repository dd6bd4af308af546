"""convo's own JSONL records and TypeAgent's serialised messages."""

from typing import Any

from convo.importers.records import jsonl, parquet


def register(registry: Any) -> None:
    jsonl.register(registry)
    parquet.register(registry)
