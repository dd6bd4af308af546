"""GitHub Copilot CLI's shared sessions (``convo.importers.agents.copilot_md``): ``/share``'s
Markdown as a committed 2026 session holds it (notices, reasoning, a subagent's task, tool
events with ``<details>`` outputs and a heading inside one, a failed tool, an error, the
footer). They were "format not recognised"."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents import copilot_md
from convo.importers.registry import registry

PATH = FIXTURES / "copilot_md" / "copilot-session-2230af76.md"


def test_shared_session():
    assert registry.detect(Source(PATH)).name == "copilot-md"
    recs, rejects, warnings = run(copilot_md.read, PATH)
    assert not rejects and not warnings
    got = [
        (r["metadata"]["speaker"], r["timestamp"], r["tags"], r["textChunks"][0].split("\n")[0])
        for r in recs
    ]
    assert got == [
        ("system", "2026-03-05T18:55:43Z", ["system"], "💡 No copilot instructions found. Run /init to generate a copilot-instructions.md file for this project."),
        ("user", "2026-03-05T18:58:03Z", [], "Why does my kettle click off before it boils?"),
        ("assistant", "2026-03-05T18:58:11Z", [], "[tool_use task] (Completed)"),
        ("assistant", "2026-03-05T18:58:11Z", [], "I'll look at the thermostat."),
        ("assistant", "2026-03-05T18:58:11Z", [], "[tool_use view] **view the file at /srv/ann/kettle/thermo.py.**"),
        ("tool", "2026-03-05T18:58:11Z", [], "[tool_result view] 1. # cutoff in C"),
        ("assistant", "2026-03-05T18:58:11Z", [], "[tool_use bash] **Run the tests**"),
        ("tool", "2026-03-05T18:58:11Z", ["error"], "[tool_result bash error] ### Summary"),
        ("assistant", "2026-03-05T19:03:37Z", [], "The cutoff is 90 C; raise it to 100."),
        ("system", "2026-03-05T19:05:12Z", ["system", "error"], "Failed to share session: Error: ENOENT: no such file or directory"),
    ]  # fmt: skip
    assert recs[2]["extra"] == {
        "thinking": ["The user wants the cutoff. Let me look at thermo.py."]
    }
    assert recs[5]["metadata"]["listeners"] == ["assistant"]
    assert {r["thread"] for r in recs} == {"copilot-cli:2230af76-8ea6-4f7f-b3b8-6c63b29169c8"}
