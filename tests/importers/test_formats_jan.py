"""Jan threads (``convo.importers.apps.jan``).

Fixtures follow janhq/jan ``core/src/types/message/messageEntity.ts`` (``ThreadMessage``),
``web-app/src/types/message.d.ts`` (tool calls in the metadata) and
``src-tauri/src/core/threads`` (a folder a thread: ``thread.json`` and
``messages.jsonl``): a thread of the current app (uuid thread, ms times, an image as a
data URL, an inline file, ``<think>`` in the text, metadata tool calls, reasoning and
tool-call parts, an error and a stopped message, a torn line and a run object); and a
0.4 thread (``jan_<seconds>`` folder, times in seconds, a short id ``0``).
"""

from __future__ import annotations

import shutil

import pytest
from chat_exports_helpers import ingest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import jan
from convo.importers.registry import registry
from convo.pipeline.notes import clash_warning

DIR = FIXTURES / "jan" / "threads"
NEW = DIR / "0f6c1b9e-2d4a-4c8e-9b1a-7e5d3c2b1a09" / "messages.jsonl"
OLD = DIR / "jan_1700000000" / "messages.jsonl"


@pytest.mark.parametrize("path", [NEW, OLD], ids=lambda p: p.parent.name)
def test_golden(path):
    recs, _, _ = run(jan.read, path)
    assert_golden(f"formats/jan/{path.parent.name}.jsonl", recs)


def test_thread():
    recs, rejects, warnings = run(jan.read, NEW)
    assert [(r.where, r.reason) for r in rejects] == [
        ("messages.jsonl:4", "not JSON"),
        ("messages.jsonl:6", "not a Jan message (object thread.message, content)"),
    ]
    assert not warnings
    asked, looked, converted, failed, stopped = recs
    assert asked["subject"] == "Kettle keeps clicking off"  # from thread.json
    assert asked["id"] == "jan:01JQ3V8K2PA1B2C3D4E5F6G7H8"
    assert asked["thread"] == "jan:0f6c1b9e-2d4a-4c8e-9b1a-7e5d3c2b1a09"
    assert asked["timestamp"] == "2025-03-20T09:00:00Z"  # ms
    assert asked["textChunks"][1:] == ["[image image/png, 72 bytes]", "[file manual.txt]"]
    assert asked["extra"]["files"][0]["content"].startswith("KT-200")
    assert looked["textChunks"][0].startswith("Limescale on the thermostat.")
    assert looked["extra"]["thinking"] == ["The thermostat trips early; limescale is likely."]
    assert looked["textChunks"][1:] == [
        '[tool_use local_time] {"city":"Lisbon"}',
        "[tool_result local_time] 09:16",
    ]
    assert converted["extra"]["thinking"] == ["Use the converter tool."]
    assert converted["textChunks"][:2] == [
        '[tool_use convert] {"value":5,"from":"ft"}',
        "[tool_result convert] 1.52 m",
    ]
    assert failed["tags"] == ["error"]
    assert failed["extra"]["error_code"] == "invalid_api_key"
    assert stopped["tags"] == ["stopped"]


def test_thinking_private_unless_asked():
    recs, _, _ = run(jan.read, NEW, THINKING)
    assert recs[1]["textChunks"][0] == "[thinking] The thermostat trips early; limescale is likely."


def test_old_thread_seconds_and_short_id():
    recs, _, _ = run(jan.read, OLD)
    assert [r["timestamp"] for r in recs] == ["2023-11-14T22:13:30Z", "2023-11-14T22:13:32Z"]
    assert recs[1]["id"] == "jan:jan_1700000000:0"
    assert recs[0]["subject"] == "Pelican names"


def test_without_thread_json_no_subject(tmp_path):
    path = tmp_path / "messages.jsonl"
    shutil.copy(OLD, path)
    recs, _, _ = run(jan.read, path)
    assert "subject" not in recs[0]


def test_thread_json_reads_no_message(tmp_path):
    """Beside its messages.jsonl it says nothing (that file takes its title); alone it
    is named in one warning."""
    for folder in DIR.iterdir():
        recs, rejects, warnings = run(jan.read, folder / "thread.json")
        assert (recs, rejects, warnings) == ([], [], [])
        alone = tmp_path / folder.name / "thread.json"
        alone.parent.mkdir()
        alone.write_bytes((folder / "thread.json").read_bytes())
        recs, rejects, warnings = run(jan.read, alone)
        assert (recs, rejects) == ([], [])
        assert len(warnings) == 1 and "Jan thread's metadata" in warnings[0]


def test_detect_among_builtins():
    reg = fresh_registry(jan)
    for path in (NEW, OLD, NEW.with_name("thread.json"), OLD.with_name("thread.json")):
        assert detect_name(reg, path) == "jan"
        assert registry.detect(Source(path)).name == "jan"


def test_openai_assistants_messages_are_not_taken():
    path = FIXTURES / "openai_api" / "thread_messages.json"
    assert jan.sniff(Source(path)) == 0
    assert registry.detect(Source(path)).name == "openai-assistants"


def test_messages_without_a_time_are_counted(tmp_path):
    path = tmp_path / "messages.jsonl"
    lines = OLD.read_text().splitlines()
    path.write_text(
        "\n".join(line.replace('"created_at": 1700000012', '"created_at": 0') for line in lines)
    )
    recs, _, warnings = run(jan.read, path)
    assert recs[1]["timestamp"] == "1970-01-01T00:00:00Z"
    assert warnings == [
        "messages.jsonl: 1 message without a time (created_at 0 or missing): the epoch"
    ]


def test_a_repeated_id_on_other_text_is_not_shared(tmp_path):
    """A damaged or hand-joined messages.jsonl repeating an id (a 0.4 short id such as
    `0`): two different messages never share an id; the same line again keeps it."""
    import json

    first, second = NEW.read_text().splitlines()[:2]
    other = {**json.loads(second), "id": json.loads(first)["id"]}
    path = tmp_path / "messages.jsonl"
    path.write_text("\n".join([first, json.dumps(other), first]) + "\n")
    recs, rejects, warnings = ingest(path, "jan")
    assert not rejects and len(recs) == 3
    assert recs[0]["id"] == recs[2]["id"] != recs[1]["id"]
    assert f"{path}: {clash_warning(1)}" in warnings


def test_a_tool_output_list_holding_other_values_reads():
    """The mutated-file property found a tool's ``output`` list holding ``null``: it
    crashed the block reader; its strings read as they are, other values as JSON."""
    from convo.importers.agents.blocks import result_text

    assert result_text([None, "plain", 3]) == "null\nplain\n3"
