"""Issue 10: import a file in an agent format, export it to the same format, get it back.

Every message, role, name, id, content block, tool call and tool result must survive:
the export of a message that came from the target format is its original object.
"""

from __future__ import annotations

import json
import subprocess
import sys

import orjson
import pytest

from conftest import SAMPLE_DATA
from convo.output import exporters as export
from convo.output.exporters.registry import registry
from convo.pipeline.ingest import read_messages


def _input_messages(path) -> list[dict]:
    """The message objects of an agent-format file, in order, whatever its container."""
    text = path.read_text()
    try:
        doc = json.loads(text)
        docs = [doc]
    except json.JSONDecodeError:
        docs = [json.loads(line) for line in text.splitlines() if line.strip()]
    out: list[dict] = []
    for d in docs:
        items = d if isinstance(d, list) else [d]
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("messages"), list):
                out += item["messages"]
            else:
                out.append(item)
    return out


def _flatten_export(value) -> list[dict]:
    if isinstance(value, dict):
        return ([{"system": value["system"]}] if value.get("system") else []) + value["messages"]
    out = []
    for v in value:
        if isinstance(v, dict) and isinstance(v.get("messages"), list) and "id" in v:
            out += v["messages"]  # LangMem threads
        else:
            out.append(v)
    return out


CASES = [
    ("openai.json", "openai"),
    ("agentscope.json", "agentscope"),
    ("autogen.json", "autogen"),
    ("langmem.json", "langmem"),
    ("jianmu.json", "jianmu"),
    ("anthropic.json", "anthropic"),
]


@pytest.mark.parametrize(("name", "fmt"), CASES)
def test_same_format_round_trip_keeps_everything(name, fmt):
    path = SAMPLE_DATA / "chat" / name
    msgs = list(read_messages(path))
    assert {m.format for m in msgs} == {fmt}
    exported = _flatten_export(registry.get(fmt).export(msgs))
    original = _input_messages(path)
    if fmt == "anthropic":
        doc = json.loads(path.read_text())
        original = ([{"system": doc["system"]}] if doc.get("system") else []) + doc["messages"]
    assert exported == original


def test_openai_corpus_round_trip(corpus):
    path = corpus / "chat" / "openai-finetune-tool_calls-drone-line1.jsonl"
    msgs = list(read_messages(path))
    assert export.to_openai(msgs) == _input_messages(path)


def test_cross_format_keeps_tool_calls_and_results():
    msgs = list(read_messages(SAMPLE_DATA / "chat" / "openai.json"))
    anth = export.to_anthropic(msgs)
    blocks = [b for m in anth["messages"] if isinstance(m["content"], list) for b in m["content"]]
    uses = {b["id"] for b in blocks if b["type"] == "tool_use"}
    results = {b["tool_use_id"] for b in blocks if b["type"] == "tool_result"}
    assert uses and uses == results


def test_pipeline_ingest_then_export_agentscope(tmp_path):
    exe = [sys.executable, "-m", "convo"]
    ingested = subprocess.run(
        [*exe, "ingest", str(SAMPLE_DATA / "chat" / "openai.json")], capture_output=True
    )
    assert ingested.returncode == 0
    r = subprocess.run(
        [*exe, "export", "--to", "agentscope"], input=ingested.stdout, capture_output=True
    )
    assert r.returncode == 0, r.stderr
    out = orjson.loads(r.stdout)
    # AgentScope's Msg.from_dict needs these keys; role is one of its three roles.
    for m in out:
        assert {"id", "name", "role", "content", "metadata", "timestamp"} <= set(m)
        assert m["role"] in ("user", "assistant", "system")
        blocks = m["content"] if isinstance(m["content"], list) else []
        assert all(
            b["type"] in {"text", "thinking", "image", "audio", "video", "tool_use", "tool_result"}
            for b in blocks
        )


def test_claude_code_session_exports_the_inner_messages():
    path = SAMPLE_DATA / "chat" / "claude-code-session.jsonl"
    msgs = list(read_messages(path))
    body = export.to_anthropic(msgs)
    inner = [
        e["message"]
        for e in _input_messages(path)
        if isinstance(e.get("message"), dict) and e.get("type") in ("user", "assistant")
    ]
    assert body["messages"] == inner
    assert "system" not in body


def test_claude_code_corpus_round_trip(corpus):
    path = corpus / "chat" / "claude-code-session-representative.jsonl"
    msgs = list(read_messages(path))
    inner = [
        e["message"]
        for e in _input_messages(path)
        if isinstance(e.get("message"), dict) and e.get("type") in ("user", "assistant")
    ]
    assert export.to_anthropic(msgs)["messages"] == inner


AGENT_FORMATS = ["openai", "anthropic", "agentscope", "autogen", "langmem", "jianmu"]
MIXED = [name for name, _ in CASES]


def _export_file(tmp_path, fmt, messages, n):
    value = registry.get(fmt).export(messages)
    path = tmp_path / f"export-{n}.json"
    path.write_bytes(orjson.dumps(value))
    return value, path


@pytest.mark.parametrize("fmt", AGENT_FORMATS)
def test_export_ingest_export_is_a_fixed_point(tmp_path, fmt):
    """Issue 19: for every agent format, export → ingest → export gives the same export.

    The input mixes every agent format's sample (so most messages are converted, not
    copied from their original); the second export must equal the first exactly.
    """
    msgs = [m for name in MIXED for m in read_messages(SAMPLE_DATA / "chat" / name)]
    first, path = _export_file(tmp_path, fmt, msgs, 1)
    again = list(read_messages(path, format=fmt))
    second, _ = _export_file(tmp_path, fmt, again, 2)
    assert second == first


def test_typeagent_export_ingest_export_is_a_fixed_point(tmp_path):
    """The typeagent export is TypeAgent records: read back as JSONL, exported again, equal."""
    msgs = [m for name in MIXED for m in read_messages(SAMPLE_DATA / "chat" / name)]
    first = export.to_typeagent(msgs)
    path = tmp_path / "typeagent.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in first))
    again = list(read_messages(path, format="jsonl"))
    assert export.to_typeagent(again) == first
