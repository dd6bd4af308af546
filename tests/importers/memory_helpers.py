"""Helpers for the memory tests of readers with lookups (the maps that spill): a file's
records through the whole ingest, and the peak memory of reading them."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from convo.pipeline.ingest import Ingest


def read_lines(path: Path) -> list[str]:
    """The records ``path`` gives, each as JSON text (any rejection fails the test)."""
    run = Ingest(on_reject=pytest.fail, on_warning=lambda w: None)
    return [json.dumps(m.serialize()) for m in run.messages([path])]


def peak_bytes(path: Path) -> int:
    """The peak of traced memory while ``path``'s records are read (at least one)."""
    run = Ingest(on_reject=pytest.fail, on_warning=lambda w: None)
    tracemalloc.start()
    try:
        assert sum(1 for _ in run.messages([path])) > 0
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
