"""convo's own JSONL records and TypeAgent's serialised messages."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from convo.importers.registry import Registry


def register(registry: Registry) -> None:
    """Declare jsonl, parquet, parquet-dataset and typeagent (their modules are imported
    when a gate admits a source or the format is named: ``importers.gates``)."""
    from convo.importers.gates import Gate, json_with
    from convo.importers.registry import Declared

    registry.declare(__package__, (
        ("jsonl", "jsonl", ("*.jsonl", "*.ndjson"), Gate(opens="{"), Gate(raw=rb"\A\s*\Z")),
        ("parquet", "parquet", ("*.parquet",), Gate(magic=(b"PAR1",))),
        Declared("parquet-dataset", f"{__package__}.parquet", (), directory=True),
        ("typeagent", "typeagent", ("*.json",), json_with('"textChunks"', '"text_chunks"', opens="[")),
    ), family="records")  # fmt: skip
