"""Windsurf's exported Cascade conversations (``convo.importers.agents.windsurf_md``):
Download Trajectory's Markdown as users commit it (steps in italics under both headings,
a ``(no content)`` block, italics in an answer that are no step). They were "format not
recognised"."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents import windsurf_md
from convo.importers.registry import registry

PATH = FIXTURES / "windsurf_md" / "kettle-cutoff.md"


def test_exported_conversation():
    assert registry.detect(Source(PATH)).name == "windsurf-md"
    recs, rejects, warnings = run(windsurf_md.read, PATH)
    assert not rejects
    assert warnings == [
        "kettle-cutoff.md: skipped 1 empty block",
        "kettle-cutoff.md: a Cascade export carries no times: messages get the epoch sentinel",
    ]
    assert [(r["metadata"]["speaker"], r["role"], r["textChunks"]) for r in recs] == [
        ("user", "user", ["Why does my kettle click off before it boils? @[kettle/thermo.py]"]),
        ("cascade", "assistant", ["[tool_use Viewed] [thermo.py](file:///srv/ann/kettle/thermo.py)"]),
        ("cascade", "assistant", ["The cutoff is 90 C. *This is the cause.*\n\n```python\nCUTOFF = 90\n```\n\nLet me raise it:",
                                  "[tool_use Edited relevant file]", "[tool_use User accepted the command] `pytest -q`"]),
        ("cascade", "assistant", ["Done: the tests pass.", "[tool_use Updated todo list]"]),
        ("user", "user", ["thanks"]),
    ]  # fmt: skip
    assert recs[0]["metadata"]["listeners"] == ["cascade"]
    assert {r["thread"] for r in recs} == {"windsurf-md:kettle-cutoff.md"}
