"""smolagents' agent memory (``convo.importers.agents.smolagents``): ``get_full_steps()``
as huggingface/smolagents ``memory.py`` dumps the steps (a task, a plan, actions with
calls, observations, an error and the final answer), and benchmark run lines with their
steps or, older, their messages. They were "format not recognised"."""

from __future__ import annotations

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents import smolagents
from convo.importers.registry import registry

DIR = FIXTURES / "smolagents"


def test_memory_steps():
    path = DIR / "memory_steps.json"
    assert registry.detect(Source(path)).name == "smolagents"
    recs, rejects, warnings = run(smolagents.read, path)
    assert not rejects
    assert warnings == ["memory_steps.json: 1 step without a time gets the epoch sentinel"]
    assert [(r["metadata"]["speaker"], r["tags"], r["textChunks"][-1][:41]) for r in recs] == [
        ("user", [], "How long does 1 l of water take to boil a"),
        ("assistant", ["plan"], "1. Compute energy. 2. Divide by power."),
        ("assistant", [], "[tool_use python_interpreter] print(4186 "),
        ("tool", [], "[tool_result python_interpreter] Executio"),
        ("assistant", [], "[tool_use python_interpreter] final_answe"),
        ("tool", ["error"], "[tool_result python_interpreter error] Co"),
        ("assistant", ["final"], '[tool_use final_answer] {"answer":"About '),
        ("tool", [], "[tool_result final_answer] About 167 seco"),
    ]  # fmt: skip
    assert (
        recs[2]["timestamp"] == "2024-12-24T00:26:41Z"
        and recs[3]["timestamp"] == "2024-12-24T00:26:44Z"
    )
    assert recs[2]["extra"]["code_action"] == "print(4186 * 80 / 2000)"
    assert {r["thread"] for r in recs} == {"smolagents:memory_steps.json"}


def test_run_lines():
    path = DIR / "gaia_answers.jsonl"
    assert registry.detect(Source(path)).name == "smolagents"
    recs, rejects, _ = run(smolagents.read, path)
    assert not rejects
    first = [r for r in recs if r["thread"] == "smolagents:c61d22de-5f6c-4958-a7f6-5e9707bd3466"]
    assert [r["metadata"]["speaker"] for r in first] == [
        "user",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert (
        first[-1]["textChunks"] == ["About 167 seconds"]
        and first[-1]["extra"]["true_answer"] == "167"
    )
    older = [r for r in recs if r["thread"] == "smolagents:e1fc63a2-da7a-432f-be78-7c4a95598703"]
    assert [r["metadata"]["speaker"] for r in older] == [
        "user",
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
