"""Zed's agent threads as Markdown (``convo.importers.agents.zed_md``): ``to_markdown``'s
layouts as users commit them (``## Agent`` with its results after each call, an error
result; the first threads' ``## Assistant`` with the results in the next ``## User``;
attached context and thinking). They were "format not recognised"."""

from __future__ import annotations

from formats_helpers import FIXTURES, THINKING, run

from convo.core.io import Source
from convo.importers.agents import zed_md
from convo.importers.registry import registry

PATH = FIXTURES / "zed_md" / "kettle-cutoff-investigation.md"


def test_thread_markdown():
    assert registry.detect(Source(PATH)).name == "zed-md"
    recs, rejects, warnings = run(zed_md.read, PATH)
    assert not rejects
    assert warnings == [
        "kettle-cutoff-investigation.md: skipped 1 empty message",
        "kettle-cutoff-investigation.md: a thread's Markdown carries no times: messages get the epoch sentinel",
    ]
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        ("user", ["Why does my kettle click off before it boils?"]),
        ("assistant", ["I'll look at the thermostat and run the tests.",
                       '[tool_use read_file] {"path":"kettle/thermo.py"}', "[tool_result read_file] CUTOFF = 90"]),
        ("assistant", ['[tool_use terminal] {"cd":"kettle","command":"pytest -q"}',
                       '[tool_result terminal error] Command "pytest -q" failed with exit code 1.\n\n```\n## Summary\n1 failed\n```']),
        ("assistant", ["The cutoff is 90 C; raise it to 100.", '[tool_use edit_file] {"path":"kettle/thermo.py","mode":"edit"}']),
        ("tool", ["[tool_result edit_file] Edited kettle/thermo.py:\n\n```diff\n-CUTOFF = 90\n+CUTOFF = 100\n```"]),
        ("assistant", ["Done."]),
    ]  # fmt: skip
    assert recs[0]["subject"] == "Kettle Cutoff Investigation"
    assert recs[0]["extra"]["context"][0].startswith("<context>\nThe following items were attached")
    assert recs[1]["extra"]["thinking"] == ["The cutoff constant is the likely cause."]
    assert recs[4]["metadata"]["listeners"] == ["assistant"]


def test_thinking_when_asked():
    recs, _, _ = run(zed_md.read, PATH, THINKING)
    assert recs[1]["textChunks"][0] == "[thinking] The cutoff constant is the likely cause."
