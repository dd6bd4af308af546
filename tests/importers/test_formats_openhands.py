"""OpenHands event streams (``convo.importers.agents.openhands``).

Fixtures follow All-Hands-AI/OpenHands ``openhands/events/serialization/event.py``
(``event_to_dict``, ``event_to_trajectory``) and ``openhands/storage/locations.py``: a
2025 trajectory as the app downloads it (system prompt with tools, a message with an
image and a file, tool-call metadata and LLM metrics, a failed command, think, edit with
its diff, an error observation, finish, agent state changes, a stray element); a 2024
one as ``--save-trajectory-path`` wrote it (``images_urls``, ``extras.exit_code``, no
tool-call metadata, ids with a gap); and the file store's
``sessions/<id>/events/<n>.json`` with its ``event_cache`` page (a browse observation
with its screenshot and the browser's page objects).
"""

from __future__ import annotations

import json

import pytest
from chat_exports_helpers import ingest
from formats_helpers import FIXTURES, detect_name, files_taken, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import openhands
from convo.importers.context import ImportContext, ImportOptions
from convo.importers.registry import registry
from convo.pipeline.notes import clash_warning

DIR = FIXTURES / "openhands"
SID = "1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f"
NEW = DIR / f"trajectory-{SID}.json"
OLD = DIR / "opendevin-2024.json"
STORE = DIR / "sessions" / "9f8e7d6c5b4a39281706f5e4d3c2b1a0"


def _read(path, options=None):
    """Records of a file read under its whole path (its folders name the conversation)."""
    rejects, warnings = [], []
    source = Source(path)
    ctx = ImportContext(source, options, on_reject=rejects.append, on_warning=warnings.append)
    return [m.serialize() for m in openhands.read(source, ctx)], rejects, warnings


@pytest.mark.parametrize("path", [NEW, OLD], ids=lambda p: p.name)
def test_golden(path):
    recs, _, _ = run(openhands.read, path)
    assert_golden(f"formats/openhands/{path.stem}.jsonl", recs)


def test_trajectory():
    recs, rejects, warnings = run(openhands.read, NEW)
    assert [(r.where, r.reason) for r in rejects] == [
        (f"{NEW.name}:271", "not an OpenHands event (action or observation)")
    ]
    assert not warnings
    assert len(recs) == 14
    system, asked, state, ran, failed, think, _, edit, edited, _, error, said, done, end = recs
    assert {r["thread"] for r in recs} == {f"openhands:{SID}"}
    assert [r["id"] for r in recs[:3]] == [f"openhands:{SID}:{n}" for n in range(3)]
    assert system["metadata"]["speaker"] == "system" and system["tags"] == ["system"]
    assert system["extra"]["tools"] == ["execute_bash", "str_replace_editor"]
    assert system["extra"]["agent_class"] == "CodeActAgent"
    assert asked["metadata"] == {"speaker": "user", "listeners": ["assistant"]}
    assert asked["textChunks"] == [
        "The kettle test fails, see the screenshot",
        "[image image/png, 72 bytes]",
        "[file] /workspace/notes.txt",
    ]
    assert asked["timestamp"] == "2025-07-02T10:15:02Z"
    assert state["textChunks"] == ["[agent_state_changed running]"]
    assert state["tags"] == ["system"] and state["metadata"] == {
        "speaker": "openhands",
        "listeners": [],
    }
    assert state["role"] == "system"  # the agent's state, no tool's answer
    assert ran["metadata"]["speaker"] == "assistant"
    assert ran["textChunks"][0] == "Let me run the tests first."
    assert ran["textChunks"][1].startswith('[tool_use run] {"command":"cd /workspace/kettle')
    assert ran["extra"]["function_name"] == "execute_bash"
    assert ran["extra"]["tool_call_id"] == "toolu_01A"
    assert ran["extra"]["cost"] == 0.0123
    assert ran["extra"]["tokens"] == {"prompt_tokens": 5120, "completion_tokens": 210}
    assert "model_response" not in json.dumps(ran["extra"])
    assert failed["textChunks"][0].startswith("[tool_result run error] F.\nFAILED")
    assert failed["tags"] == ["error"] and failed["extra"]["cause"] == 3
    assert think["textChunks"] == [
        "The loop stops one degree early: < should be <=.",
        "[tool_use think] {}",
    ]
    assert edit["textChunks"][0].startswith('[tool_use edit] {"path":"/workspace/kettle/boil.py"')
    assert edited["extra"]["extras"]["diff"].startswith("--- a")
    assert error["textChunks"] == [
        "[tool_result run error] ERROR: file not found: tests/test_kettle.py"  # its cause: run
    ]
    assert said["textChunks"] == ["The boil test passes now: the loop ran one degree short."]
    assert done["textChunks"][0] == "Fixed the off-by-one in boil.py."
    assert end["textChunks"] == ["[agent_state_changed finished]"]


def test_2024_trajectory():
    recs, rejects, _ = run(openhands.read, OLD)
    assert not rejects
    assert [r["id"] for r in recs] == [f"openhands:opendevin-2024:{n}" for n in (0, 2, 3, 4, 5, 6)]
    assert recs[0]["textChunks"] == ["Write a haiku about tea to haiku.txt"]
    assert recs[1]["textChunks"][0] == "I'll write the haiku with Python."
    assert recs[4]["textChunks"] == ["[tool_result run] steam curls from the cup"]
    assert recs[4]["tags"] == []
    assert recs[5]["textChunks"] == [
        "The haiku is in haiku.txt.",
        "All done!",
        '[finish] {"outputs":{}}',
    ]


def test_file_store_events_and_their_cache_page_agree(tmp_path):
    files = sorted((STORE / "events").glob("*.json"), key=lambda p: int(p.stem))
    one = [rec for p in files for rec in _read(p)[0]]
    # the page alone (no events/ beside it) gives the same records
    alone = tmp_path / STORE.name / "event_cache" / "0-25.json"
    alone.parent.mkdir(parents=True)
    alone.write_bytes((STORE / "event_cache" / "0-25.json").read_bytes())
    page, rejects, _ = _read(alone)
    assert not rejects
    assert one == [{**r, "source_id": o["source_id"]} for r, o in zip(page, one, strict=True)]
    assert {r["thread"] for r in one} == {f"openhands:{STORE.name}"}
    assert [r["id"] for r in one] == [f"openhands:{STORE.name}:{n}" for n in range(4)]
    browse = one[2]
    assert browse["textChunks"][1] == "[image image/png, 72 bytes]"
    kept = browse["extra"]["extras"]
    assert "screenshot" not in kept and "dom_object" not in kept and "set_of_marks" not in kept
    assert kept["open_pages_urls"] == ["https://example.com"]


def test_a_cache_page_beside_its_events_is_not_read_twice():
    recs, _, warnings = _read(STORE / "event_cache" / "0-25.json")
    assert recs == []
    assert [w.split(": ", 1)[1] for w in warnings] == [
        "4 events of this cache page have their own file in events/ beside it: read from there"
    ]


def test_naive_times_in_tz():
    from zoneinfo import ZoneInfo

    recs, _, _ = run(openhands.read, OLD, ImportOptions(tz=ZoneInfo("Europe/Berlin")))
    assert recs[0]["timestamp"] == "2024-08-05T14:20:11Z"


def test_wrapped_trajectory_and_a_repeated_id(tmp_path):
    events = json.loads(OLD.read_text())
    events[2] = {**events[2], "id": 0}  # a damaged file: id 0 again, on other text
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"trajectory": events}))
    assert detect_name(fresh_registry(openhands), path) == "openhands"
    recs, rejects, warnings = ingest(path, "openhands")
    assert not rejects and len(recs) == 6
    assert recs[0]["id"] == "openhands:t:0" and recs[2]["id"].startswith("h:")
    assert warnings == [f"{path}: {clash_warning(1)}"]


def test_a_file_that_is_not_an_event_is_rejected(tmp_path):
    path = tmp_path / "events" / "0.json"
    path.parent.mkdir()
    path.write_text('{"id": 0, "timestamp": "2025-01-01T00:00:00", "source": "user"}')
    recs, rejects, _ = _read(path)
    assert not recs and [r.reason for r in rejects] == [
        "not an OpenHands event (action or observation)"
    ]


def test_detected_among_builtins():
    reg = fresh_registry(openhands)
    for path in (NEW, OLD, STORE / "events" / "2.json", STORE / "event_cache" / "0-25.json"):
        assert detect_name(reg, path) == "openhands"
        assert registry.detect(Source(path)).name == "openhands"


def test_no_other_file_is_read_as_openhands():
    assert files_taken({"openhands"}, {"openhands"}) == {}


def test_a_generic_file_name_keeps_its_folder(tmp_path):
    (tmp_path / "run1").mkdir()
    path = tmp_path / "run1" / "output.json"
    path.write_text(OLD.read_text())
    recs, _, _ = _read(path)
    assert recs[0]["thread"] == "openhands:run1/output"
    assert recs[0]["id"] == "openhands:run1/output:0"


def test_v1_events_of_the_agent_sdk(tmp_path):
    """OpenHands V1 (the software-agent-sdk: the CLI's and the V1 app's
    ``conversations/<id>/events/event-NNNNN-<uuid>.json``, a ``kind`` a class) was
    "format not recognised"; its state events now are known and skipped, counted."""
    import convo

    folder = FIXTURES / "openhands/v1/5f0c2a1e9b8d4c7a8e6f1d2c3b4a5968/events"
    files = sorted(folder.glob("*.json"))
    assert {registry.detect(Source(p)).name for p in files} == {"openhands"}
    recs = [m.serialize() for p in files for m in convo.read_messages(p, format="openhands")]
    got = [(r["metadata"]["speaker"], r["role"], r["textChunks"]) for r in recs]
    assert got == [
        ("system", "system", ["You are OpenHands agent, a helpful AI assistant."]),
        ("user", "user", ["Why does the kettle test fail?"]),
        ("assistant", "assistant", ["Run the tests.", '[tool_use terminal] {"command":"pytest -q","is_input":false,"timeout":null,"reset":false}']),
        ("tool", "tool", ["[tool_result terminal error] 1 failed"]),
        ("tool", "tool", ["[tool_result file_editor error] Missing required argument 'path'"]),
        ("assistant", "assistant", ['[tool_use finish] {"message":"The boil loop stopped one degree early; fixed."}']),
    ]  # fmt: skip
    assert {r["thread"] for r in recs} == {"openhands:5f0c2a1e9b8d4c7a8e6f1d2c3b4a5968"}
    assert recs[1]["id"] == "openhands:da96f16f-8302-481e-8137-c14f5ee2da6a"
    assert recs[2]["extra"]["thinking"] == ["pytest first"]
    assert recs[5]["extra"]["thinking"] == ["The fix is in; done."]
    assert recs[0]["extra"]["tools"] == ["terminal"]
    _, _, warnings = run(openhands.read, files[4])
    assert warnings == [
        f"{files[4].name}: skipped events that hold no message: 1 ConversationStateUpdateEvent"
    ]


def test_a_v1_conversation_folder_reads_cleanly():
    """Ingesting a V1 conversation's folder: ``base_state.json`` (the agent's settings) is
    recognised and reads no message, so the run rejects nothing."""
    from convo.pipeline.ingest import Ingest

    rejects: list = []
    warnings: list = []
    folder = FIXTURES / "openhands/v1"
    recs = list(
        Ingest(on_reject=rejects.append, on_warning=warnings.append).messages([str(folder)])
    )
    assert len(recs) == 6 and not rejects
    assert any("base_state.json: the agent's settings, no message" in w for w in warnings)
