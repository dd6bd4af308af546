"""Cline's and Roo Code's exported tasks (``convo.importers.agents.cline_md``): the
Export button's Markdown as cline/cline ``export-markdown.ts`` writes it (native tool
calls and results, ``[Image]``, a locale's ``# Current Time``) and as a Roo Code fork's
committed export holds it (XML tools, an ISO time, ``---`` and a heading inside an
answer). They were "format not recognised"."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents import cline_md
from convo.importers.registry import registry

DIR = FIXTURES / "cline_md"


def test_native_tools_and_locale_times():
    path = DIR / "cline_task_mar-26-2025_12-52-10-pm.md"
    assert registry.detect(Source(path)).name == "cline-md"
    recs, rejects, warnings = run(cline_md.read, path)
    assert not rejects and not warnings
    assert [(r["metadata"]["speaker"], r["textChunks"], r["timestamp"]) for r in recs] == [
        ("user", ["<task>\nraise the kettle cutoff to 100\n</task>\n[Image]"], "2025-03-26T04:50:44Z"),
        ("assistant", ["I will edit the file.\n[tool_use replace_in_file]\nPath: kettle/thermo.py\nDiff: CUTOFF = 100"],
         "2025-03-26T04:50:44Z"),
        ("tool", ["[tool_result replace_in_file] The content was successfully saved to kettle/thermo.py.",
                  "[tool_result replace_in_file error] [done]"], "2025-03-26T04:51:02Z"),
        ("assistant", ["[tool_use attempt_completion]\nResult: CUTOFF is now 100."], "2025-03-26T04:51:02Z"),
    ]  # fmt: skip
    assert recs[2]["metadata"]["listeners"] == ["assistant"]
    assert recs[0]["extra"]["environment_details"][0].startswith(
        "<environment_details>\n# Current Time"
    )


def test_xml_tools_iso_times_and_rules_inside_answers():
    path = DIR / "roo_task_may-16-2026_5-27-37-pm.md"
    assert registry.detect(Source(path)).name == "cline-md"
    recs, rejects, _ = run(cline_md.read, path)
    assert not rejects
    assert [r["role"] for r in recs] == ["user", "assistant", "user", "assistant"]
    assert [r["timestamp"] for r in recs] == [
        "2026-05-16T10:27:26Z", "2026-05-16T10:27:26Z", "2026-05-16T10:27:31Z", "2026-05-16T10:27:31Z",
    ]  # fmt: skip
    assert recs[2]["textChunks"][0].startswith("[read_file for 'kettle/thermo.py'] Result:")
    assert "<environment_details>" not in recs[2]["textChunks"][0]
    assert "---\n\n**User:**\n```" in recs[3]["textChunks"][0]
    assert recs[3]["textChunks"][0].endswith("</attempt_completion>")
