"""Hostile JSON into this wave's agent and chat-app formats (pydantic-ai, swe-agent,
llamaindex, letta, goose, librechat, llm-logs, lmstudio, jan,
continue, openhands, copilot-cli, zed, discord-package, hangouts, snapchat):
each format's own fixtures with values at random places (or one key everywhere) replaced
by random JSON values, so wrong types reach the fields its reader looks at. A read gives
messages, rejections or one of convo's own errors, never another exception; every
message passes the store's check (``core.record.check_message``), and once the pipeline
has finished them (``pipeline.ingest.Finisher``, the one home of the rule) no id is
shared by two different messages.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from formats_helpers import FIXTURES, finished
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from convo.core.errors import ConvoError
from convo.core.io import Source
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.registry import registry

CASES = {
    "pydantic-ai": ("pydantic_ai/history.json", "pydantic_ai/v0-chat-app.jsonl"),
    "swe-agent": (
        "swe_agent/django__django-11099.traj",
        "swe_agent/retry-loop.traj",
        "swe_agent/app-crash.traj.json",
    ),
    "llamaindex": ("llamaindex/chat_store.json",),
    "letta": ("letta/memgpt_agent_with_convo.af", "letta/agent-file-v2.af"),
    "goose": ("goose/20250301_101500.jsonl",),
    "librechat": ("librechat/flights.json", "librechat/scifi-tree.json"),
    "llm-logs": ("llm_logs/logs.json", "llm_logs/legacy.json"),
    "lmstudio": ("lmstudio/1742461200000.conversation.json",),
    "jan": ("jan/threads/0f6c1b9e-2d4a-4c8e-9b1a-7e5d3c2b1a09/messages.jsonl",),
    "continue": ("continue_dev/sessions/6f1c8e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b.json",),
    "openhands": (
        "openhands/trajectory-1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f.json",
        "openhands/opendevin-2024.json",
        "openhands/sessions/9f8e7d6c5b4a39281706f5e4d3c2b1a0/events/2.json",
    ),
    "zed": (
        "zed/conversations/Kettle clicks off early - 1.zed.json",
        "zed/conversations/Pelican pouches - 1.zed.json",
    ),
    "copilot-cli": ("copilot_cli/session-state/51854430-83f7-4543-a9bf-ec76ead71f59/events.jsonl",),
    "discord-package": ("discord_package/package/messages/c1012224565567721552/messages.json",),
    "hangouts": ("hangouts/Hangouts.json", "hangouts/Hangouts-2014.json"),
    "snapchat": (
        "snapchat/mydata_2024/messages/json/chat_history.json",
        "snapchat/mydata_2021/json/chat_history.json",
    ),
}
SEEDS = [(fmt, rel) for fmt, rels in CASES.items() for rel in rels]

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "²", "-1", "1e400", "{", '{"type": "user_message"}', "\u202e"])
    | st.text(max_size=12),
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids, max_size=3)
    ),
    max_leaves=8,
)


def _load(rel: str) -> Any:
    path = FIXTURES / rel
    if path.suffix == ".jsonl":  # its lines (one that is not JSON left out)
        out = []
        for line in path.read_text().splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
        return out
    return json.loads(path.read_text())


def _places(value: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, child in items:
        out += _places(child, (*path, key))
    return out


def _set(doc: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return doc


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _set_key(value: Any, key: str, new: Any) -> None:
    if isinstance(value, dict):
        for k in value:
            if k == key:
                value[k] = new
            else:
                _set_key(value[k], key, new)
    elif isinstance(value, list):
        for child in value:
            _set_key(child, key, new)


@st.composite
def mutated(draw, rel: str) -> Any:
    doc = _load(rel)
    for _ in range(draw(st.integers(1, 3))):
        keys = sorted(_keys(doc))
        if keys and draw(st.booleans()):
            _set_key(doc, draw(st.sampled_from(keys)), draw(values))
        else:
            doc = _set(doc, draw(st.sampled_from(_places(doc))), draw(values))
    return doc


def _write(path: Path, rel: str, doc: Any) -> None:
    if rel.endswith(".jsonl") and isinstance(doc, list):
        path.write_text("".join(json.dumps(x) + "\n" for x in doc), encoding="ascii")
    else:
        path.write_text(json.dumps(doc), encoding="ascii")


@pytest.mark.parametrize(("fmt_name", "rel"), SEEDS, ids=[r for _, r in SEEDS])
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_mutated_files_never_crash(tmp_path, fmt_name: str, rel: str, data) -> None:
    doc = data.draw(mutated(rel))
    path = tmp_path / Path(rel).name
    _write(path, rel, doc)
    fmt = registry.get(fmt_name)
    source = Source(path)
    fmt.sniff(source)
    ctx = ImportContext(source, ImportOptions())
    by_id: dict[str, list[str]] = {}
    try:
        for msg, error in finished(fmt_name, source, fmt.read(source, ctx)):
            if error is not None:  # only an empty text may fail
                assert "textChunks" in str(error) or "text" in str(error), error
            if msg.id:
                by_id.setdefault(msg.id, []).append(json.dumps(msg.text_chunks))
    except ConvoError:
        pass
    shared = {i: texts for i, texts in by_id.items() if len(set(texts)) > 1}
    assert shared == {}
