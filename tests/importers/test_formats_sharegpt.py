"""ShareGPT conversations (``convo.importers.agents.sharegpt``).

Fixtures follow the ShareGPT/Vicuna dumps (``{"id", "conversations": [{"from": "human" |
"gpt", "value"}]}``) and LLaMA-Factory's ``sharegpt`` dataset format, documented in
hiyouga/LLaMA-Factory ``data/README.md`` (``from`` = human / gpt / system / function_call /
observation, top-level ``system`` and ``tools``), as JSON array, one object and JSONL.
"""

from __future__ import annotations

from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import sharegpt
from convo.importers.registry import registry

DIR = FIXTURES / "sharegpt"


def test_array_golden_and_rejects():
    recs, rejects, warnings = run(sharegpt.read, DIR / "sharegpt.json")
    assert_golden("formats/sharegpt/array.jsonl", recs)
    assert [(r.where, r.reason) for r in rejects] == [
        ("sharegpt.json#item-3.msg-1", "not a ShareGPT turn (an object with 'from' and 'value')"),
        ("sharegpt.json#item-4", "not a ShareGPT sample (no conversations list)"),
    ]
    assert warnings == ["sharegpt.json: ShareGPT has no times: messages get the epoch sentinel"]


def test_jsonl_golden_and_bad_line():
    recs, rejects, _ = run(sharegpt.read, DIR / "sharegpt.jsonl")
    assert_golden("formats/sharegpt/lines.jsonl", recs)
    assert [r.where for r in rejects] == ["sharegpt.jsonl:2"]
    assert [r["thread"] for r in recs] == ["jsonl-1", "jsonl-1", "jsonl-2", "jsonl-2", "jsonl-2"]


def test_one_object():
    recs, rejects, _ = run(sharegpt.read, DIR / "one.json")
    assert not rejects
    assert [(r["metadata"]["speaker"], r["role"], r["textChunks"]) for r in recs] == [
        ("user", "user", ["Name a prime above 100."]),
        ("assistant", "assistant", ["101"]),
    ]
    assert recs[0]["metadata"]["listeners"] == ["assistant"]
    assert recs[0]["id"] == "sharegpt:one.json:one-sample:1"  # sample ids: unique in a file


def test_roles_tools_and_system_prompt():
    recs, _, _ = run(sharegpt.read, DIR / "sharegpt.json")
    tool = [r for r in recs if r["thread"].endswith("#item-2")]
    assert tool[0]["extra"]["system_prompt"] is True and tool[0]["role"] == "system"
    assert "get_weather" in tool[0]["extra"]["conversation"]["tools"]
    call, observation = tool[2], tool[3]
    assert call["textChunks"] == ['[tool_use get_weather] {"city":"Oslo"}']
    assert call["role"] == "assistant" and call["extra"]["original_role"] == "function_call"
    assert observation["role"] == "tool" and observation["metadata"]["listeners"] == ["gpt"]
    first = recs[0]
    assert first["metadata"] == {"speaker": "human", "listeners": ["gpt"]}


def test_sniff():
    for name in ("sharegpt.json", "sharegpt.jsonl", "one.json"):
        assert sharegpt.sniff(Source(DIR / name)) >= 85
    assert sharegpt.sniff(Source(FIXTURES / "hf_chat" / "chat.jsonl")) == 0


def test_detect_among_builtins():
    reg = fresh_registry(sharegpt)
    for name in ("sharegpt.json", "sharegpt.jsonl", "one.json"):
        assert detect_name(reg, DIR / name) == "sharegpt"


def test_global_registry_detects():
    assert registry.detect(Source(DIR / "sharegpt.json")).name == "sharegpt"
