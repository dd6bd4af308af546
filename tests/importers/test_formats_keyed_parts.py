"""Frameworks whose messages read as ``openai`` once their parts are known
(``convo.importers.agents.keyed_parts``): Semantic Kernel's ``ChatHistory`` (Python's
``serialize()``, .NET's ``JsonSerializer`` output), Haystack's ``ChatMessage.to_dict()``
(2.12+ and 2.9-2.11's underscored keys) and smolagents' messages (``tool-call`` and
``tool-response`` roles). Semantic Kernel's files were rejected or "format not
recognised", Haystack's tool calls and results read ``[None] {json}``, smolagents' roles
were speakers heard by no one."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from formats_helpers import FIXTURES, run

from convo.core.io import Source
from convo.importers.agents.reader import read_agent_messages
from convo.importers.context import ImportOptions
from convo.importers.registry import registry

DIR = FIXTURES / "frameworks"


def _read(name: str):
    path = DIR / name
    assert registry.detect(Source(path)).name == "openai"
    recs, rejects, _ = run(read_agent_messages, path, fmt="openai")
    assert not rejects
    return recs


def _said(recs):
    return [(r["metadata"]["speaker"], r["metadata"]["listeners"], r.get("role"), r["textChunks"])
            for r in recs]  # fmt: skip


def test_semantic_kernel_python_serialize():
    recs = _read("sk_chat_history.json")
    assert _said(recs) == [
        ("system", [], "system", ["You help people with their kettles."]),
        ("user", ["assistant"], "user", ["Why does my kettle click off before it boils?"]),
        ("assistant", ["user"], "assistant", ['[tool_use manuals-lookup] {"model":"K-200"}']),
        ("tool", ["assistant"], "tool", ["[tool_result manuals-lookup] K-200: thermostat cutoff 90 C"]),
        ("KettleAgent", ["user"], "assistant",
         ["Its thermostat cuts off at 90 C; raise the cutoff.",
          "[image] https://example.com/k200-thermostat.png"]),
    ]  # fmt: skip
    assert recs[2]["timestamp"] == "2024-12-01T14:01:59Z"  # metadata.created
    assert recs[2]["extra"]["finish_reason"] == "tool_calls"
    assert recs[4]["extra"]["blocks"][0] == {
        "type": "thinking",
        "thinking": "The cutoff is below boiling.",
    }


def test_semantic_kernel_dotnet_json():
    recs = _read("sk_dotnet_history.json")
    assert _said(recs) == [
        ("user", ["assistant"], "user", ["When does the kettle's warranty end?"]),
        ("assistant", ["user"], "assistant", ['[tool_use Warranty-Lookup] {"serial":"K200-77"}']),
        ("tool", ["assistant"], "tool", ["[tool_result Warranty-Lookup] 2026-03-01"]),
        ("WarrantyAgent", ["user"], "assistant", ["It ends on 1 March 2026."]),
    ]
    assert [r["timestamp"][:4] for r in recs] == ["1970", "2024", "1970", "2024"]
    assert recs[1]["extra"]["model_id"] == "gpt-4o"


def test_haystack_tool_calls_results_and_reasoning():
    recs = _read("haystack_messages.json")
    assert _said(recs)[2:] == [
        ("assistant", ["user"], "assistant", ['[tool_use weather] {"city":"Oslo"}']),
        ("tool", ["assistant"], "tool", ["[tool_result weather] rain, 8 C"]),
        ("assistant", ["user"], "assistant", ["Yes: rain, 8 C."]),
    ]
    assert recs[3]["extra"]["blocks"][0]["tool_use_id"] == "call_h1"
    assert recs[4]["extra"]["blocks"][0] == {"type": "thinking", "thinking": "The tool says rain."}


def test_haystack_2_9_underscored_keys():
    recs = _read("haystack_2_9.json")
    assert _said(recs) == [
        ("user", ["assistant"], "user", ["Boil time for 1 l?"]),
        ("assistant", ["user"], "assistant", ["About three minutes."]),
    ]


def test_smolagents_tool_roles():
    recs = _read("smolagents_messages.json")
    said = _said(recs)
    assert [s[:3] for s in said[3:]] == [
        ("assistant", ["user"], "assistant"),
        ("tool", ["assistant"], "tool"),
    ]
    assert [r["extra"]["original_role"] for r in recs[3:]] == ["tool-call", "tool-response"]


def test_dspy_history_answers_and_time():
    """DSPy's ``lm.history`` saved as JSON: the answers (``outputs``) were left in the
    first message's ``extra.conversation``, no record, and every message had no time."""
    path = DIR / "dspy_history.json"
    assert registry.detect(Source(path)).name == "openai"
    recs, rejects, warnings = run(
        read_agent_messages, path, ImportOptions(tz=ZoneInfo("Europe/Oslo")), fmt="openai"
    )
    assert not rejects and not warnings
    assert [(r["role"], r["timestamp"], r["thread"]) for r in recs] == [
        ("system", "2025-04-23T09:20:00Z", "dspy_history.json#conv-1"),
        ("user", "2025-04-23T09:20:00Z", "dspy_history.json#conv-1"),
        ("assistant", "2025-04-23T09:20:00Z", "dspy_history.json#conv-1"),
        ("user", "2025-04-23T09:21:30Z", "dspy_history.json#conv-2"),
        ("assistant", "2025-04-23T09:21:30Z", "dspy_history.json#conv-2"),
    ]
    assert recs[2]["textChunks"] == [
        "[[ ## answer ## ]]\nThe thermostat cuts off at 90 C.\n\n[[ ## completed ## ]]"
    ]
    assert recs[4]["metadata"] == {"speaker": "assistant", "listeners": ["user"]}
    assert recs[4]["extra"]["blocks"][0]["type"] == "thinking"
    assert "outputs" not in recs[0]["extra"]["conversation"]
    assert recs[0]["extra"]["conversation"]["uuid"] == "5f0c9a52-7d1e-4b8e-9a57-3c0e2b1d4f61"
