"""CrewAI run logs (``convo.importers.agents.crewai``): ``Crew(output_log_file=...)``
as crewAIInc/crewAI ``utilities/file_handler.py`` writes it, a ``.json`` array (2025:
``task_name``, ``output``, an ``error`` entry) and a first version's ``.txt`` (values
with line breaks and quotes, a completed task's output in ``task``). They were
"format not recognised"."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents import crewai
from convo.importers.registry import registry

DIR = FIXTURES / "crewai"


def test_json_log():
    path = DIR / "crew_log.json"
    assert registry.detect(Source(path)).name == "crewai"
    recs, rejects, _ = run(crewai.read, path)
    got = [
        (r["metadata"]["speaker"], r["metadata"]["listeners"], r["role"], r["textChunks"])
        for r in recs
    ]
    assert got == [
        ("crew", ["Kettle Researcher"], "user", ["Find why the kettle clicks off before the water boils."]),
        ("Kettle Researcher", ["crew"], "assistant", ["The thermostat's cutoff is set to 90 C in thermo.py."]),
        ("crew", ["Kettle Engineer"], "user", ["Write the fix."]),
        ("Kettle Engineer", [], "system", ["Tool 'edit_file' failed: permission denied"]),
        ("Kettle Engineer", ["crew"], "assistant", ["Raised CUTOFF to 100 in thermo.py."]),
    ]  # fmt: skip
    assert recs[0]["subject"] == "research_task" and recs[0]["tags"] == ["task"]
    assert recs[0]["timestamp"] == "2025-03-06T10:00:00Z"
    assert recs[3]["tags"] == ["system", "error"]
    assert recs[4]["extra"] == {"status": "completed", "task_name": "fix_task", "duration": 47.2}
    assert {r["thread"] for r in recs} == {"crewai:crew_log.json"}
    assert [r.where for r in rejects] == ["crew_log.json#item-6"]


def test_text_log_of_the_first_versions():
    path = DIR / "logs.txt"
    assert registry.detect(Source(path)).name == "crewai"
    recs, rejects, _ = run(crewai.read, path)
    assert not rejects
    assert [(r["metadata"]["speaker"], r["textChunks"]) for r in recs] == [
        ("crew", ['Summarise the kettle report.\nKeep it short, say "why".']),
        ("Researcher", ['The cutoff is 90 C, "too low".\nRaise it.']),  # the output in `task`
    ]
    assert [r["source_id"] for r in recs] == ["logs.txt:1", "logs.txt:4"]


def test_an_entry_cut_before_its_closing_quote_keeps_its_text(tmp_path):
    """A text log cut mid-entry (a crash; or another entry's first line pasted in) left a
    field without its closing quote: the field regex found no end, and the entry's text
    was dropped unsaid (test_export_mutations_property.py). The open field now takes the
    rest of the entry, anything else no field holds goes to extra.unparsed, and either
    is warned with the entry's place."""
    path = tmp_path / "crew.txt"
    path.write_text(
        '2024-05-01 09:00:00: agent="Researcher", task="Summarise.", status="started"\n\n'
        '2024-05-01 09:00:30: agent="Researcher", task="The cutoff is 90 C, "too low".\n'
        '2024-05-01 09:01:00: agent="Researcher", status="completed", output="Raised it."\n'
    )
    recs, rejects, warnings = run(crewai.read, path)
    assert not rejects
    assert [r["textChunks"] for r in recs] == [
        ["Summarise."],
        ['The cutoff is 90 C, "too low".'],
        ["Raised it."],
    ]
    assert recs[1]["metadata"]["speaker"] == "Researcher"
    assert [w.split(": ", 1)[0] for w in warnings] == ["crew.txt:3"]
