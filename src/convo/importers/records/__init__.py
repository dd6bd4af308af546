"""convo's own JSONL records and TypeAgent's serialised messages."""

from convo.importers.records.jsonl import register

__all__ = ["register"]
