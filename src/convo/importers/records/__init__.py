"""convo's own JSONL records and TypeAgent's serialised messages."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from convo.importers.registry import Registry

MODULES = ("jsonl", "parquet", "typeagent")


def register(registry: Registry) -> None:
    """Register jsonl, parquet, parquet-dataset and typeagent (imported when the registry
    loads)."""
    from convo.importers.registry import register_modules

    register_modules(__package__, MODULES, registry)
