"""LangGraph store items: LangMem's memories (``convo.importers.agents.langgraph_store``,
issue 36).

The fixture is what LangMem's ``search_memory`` tool returns (``langmem/knowledge/
tools.py``: orjson of ``[item.dict() for item in store.search(...)]``): a memory the
manage-memory tool stored (``{"content": text}``), one the memory store manager stored
(``{"kind": "Memory", "content": {"content": text}}``) and a structured profile under
a key the user chose. The messages LangMem's tools take are read by ``langchain`` and
``openai`` (checked here too).
"""

from __future__ import annotations

import orjson
from formats_helpers import FIXTURES, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import langgraph_store
from convo.importers.registry import registry

PATH = FIXTURES / "langgraph_store" / "search_memory.json"
SPACE = "langgraph-store:memories/user-7f3a"


def test_golden_and_mapping():
    recs, rejects, warnings = run(langgraph_store.read, PATH)
    assert not rejects and not warnings
    assert_golden("formats/langgraph_store/search_memory.jsonl", recs)
    assert [r["textChunks"] for r in recs] == [
        ["User prefers dark mode in every app."],
        ["Works at a bakery; starts at 5am."],
        ['name: Ana\ntimezone: Europe/Lisbon\nlikes: ["sourdough","cycling"]'],
    ]
    assert {r["thread"] for r in recs} == {SPACE}
    assert recs[2]["id"] == f"{SPACE}:preferences"
    assert [r["tags"] for r in recs] == [
        ["memory"],
        ["memory", "Memory"],
        ["memory", "UserProfile"],
    ]
    assert all(r["metadata"] == {"speaker": None, "listeners": []} for r in recs)
    assert recs[1]["timestamp"] == "2025-02-11T07:15:09Z"  # updated_at
    assert recs[1]["extra"]["created_at"] == "2025-02-09T18:22:40.001000+00:00"
    assert recs[0]["extra"]["score"] == 0.8213


def test_detected_other_shapes_and_the_message_formats(tmp_path):
    assert registry.detect(Source(PATH)).name == "langgraph-store"
    items = orjson.loads(PATH.read_bytes())
    lines = tmp_path / "dump.jsonl"
    lines.write_bytes(b"\n".join(orjson.dumps(i) for i in items) + b"\n")
    assert registry.detect(Source(lines)).name == "langgraph-store"
    assert len(run(langgraph_store.read, lines)[0]) == 3
    wrapped = tmp_path / "items.json"
    wrapped.write_bytes(orjson.dumps({"items": [*items[:2], {"key": "x"}]}))
    recs, rejects, _ = run(langgraph_store.read, wrapped)
    assert len(recs) == 2 and len(rejects) == 1
    # the messages a LangMem manager takes: LangChain dicts and OpenAI-style dicts
    lc = tmp_path / "messages.json"
    lc.write_bytes(
        orjson.dumps(
            [{"type": "human", "data": {"content": "I prefer dark mode", "type": "human"}}]
        )
    )
    assert registry.detect(Source(lc)).name == "langchain"
    oa = tmp_path / "openai.json"
    oa.write_bytes(orjson.dumps([{"role": "user", "content": "I prefer dark mode"}]))
    assert registry.detect(Source(oa)).name == "openai"
