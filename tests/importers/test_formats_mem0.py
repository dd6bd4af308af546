"""Mem0's memories (``convo.importers.agents.mem0``): ``get_all``'s ``{"results": [...]}``
with a graph's ``relations`` and an element that is no memory, and ``history``'s changes,
as mem0ai/mem0 ``mem0/memory/main.py`` returns them. They were "format not recognised"."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents import mem0
from convo.importers.registry import registry

DIR = FIXTURES / "mem0"


def test_memories():
    path = DIR / "memories.json"
    assert registry.detect(Source(path)).name == "mem0"
    recs, rejects, warnings = run(mem0.read, path)
    assert [r.where for r in rejects] == ["memories.json#3"]
    assert warnings == ["memories.json: 1 graph relation not read (no text of their own)"]
    assert [(r["metadata"]["speaker"], r["textChunks"], r["timestamp"], r["thread"], r["tags"]) for r in recs] == [
        (None, ["Owns a K-200 kettle that clicks off at 90 C"], "2024-07-26T17:29:36Z", "mem0:ann", ["memory"]),
        (None, ["Prefers green tea at 80 C"], "2024-07-27T16:00:00Z", "mem0:ann", ["memory"]),
    ]  # fmt: skip
    assert recs[1]["id"] == "mem0:475bde34-21e6-42ab-8bef-0ab84474f156"
    assert recs[1]["extra"]["score"] == 0.87 and recs[1]["extra"]["metadata"] == {
        "category": "food"
    }


def test_history():
    path = DIR / "history.json"
    assert registry.detect(Source(path)).name == "mem0"
    recs, rejects, _ = run(mem0.read, path)
    assert not rejects
    assert [(r["textChunks"], r["tags"]) for r in recs] == [
        (["Prefers green tea"], ["memory", "add"]),
        (["Prefers green tea at 80 C"], ["memory", "update"]),
    ]
    assert recs[1]["extra"]["old_memory"] == "Prefers green tea"
