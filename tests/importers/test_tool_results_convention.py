"""Tool results are one convention in every agent format (docs/formats.md, "Tool
results"): a record holding only tool results has role ``tool``, is never spoken by the
user and is heard by no user, so people and stats count no tool output as the user's."""

from __future__ import annotations

from pathlib import Path

import pytest
from format_cases import CASES

from conftest import ROOT
from convo.pipeline.ingest import Ingest

# convo's own records are read as written
AS_WRITTEN = {"typeagent", "jsonl", "parquet", "parquet-dataset"}
FILES = [c for c in CASES if c.make is None and c.fmt not in AS_WRITTEN]


def _results_only(chunks: list[str]) -> bool:
    said = [t for t in chunks if t.strip()]
    return bool(said) and all(t.startswith("[tool_result") for t in said)


@pytest.mark.parametrize("case", FILES, ids=lambda c: f"{c.fmt}-{Path(c.path).name}")
def test_a_tool_result_is_the_tools(case) -> None:
    for m in Ingest(format_name=case.fmt).messages([str(ROOT / case.path)]):
        if _results_only(m.text_chunks):
            assert m.role == "tool", (m.id, m.role)
            assert m.speaker != "user" and "user" not in m.listeners, (m.id, m.speaker)


def test_a_claude_code_subagents_tool_result_answers_the_subagent(tmp_path) -> None:
    line = (
        '{"type":"user","isSidechain":true,"uuid":"00000000-0000-4000-8000-0000000000a1",'
        '"sessionId":"s-1","timestamp":"2025-10-01T10:00:01.000Z","message":{"role":"user",'
        '"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}\n'
    )
    path = tmp_path / "session.jsonl"
    path.write_text(line)
    (m,) = Ingest(format_name="anthropic").messages([path])
    assert (m.speaker, m.role, m.listeners) == ("tool", "tool", ["subagent"])
    assert m.id == "00000000-0000-4000-8000-0000000000a1"
