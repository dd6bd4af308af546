"""Gemini API contents and responses (``convo.importers.agents.gemini``).

Fixtures follow the Gemini API reference (ai.google.dev/api/caching#Content,
ai.google.dev/api/generate-content: ``contents`` with ``role: user|model`` and
``parts``; ``systemInstruction``; ``functionCall``/``functionResponse``; ``inlineData``/
``fileData``; ``executableCode``/``codeExecutionResult``; thought parts ``thought: true``
with ``thoughtSignature``; ``candidates``/``usageMetadata``/``modelVersion``/
``responseId``; ``streamGenerateContent`` returning an array of chunks) and the
snake_case ``model_dump`` of googleapis/python-genai ``google/genai/types.py``.
"""

from __future__ import annotations

import pytest
from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import gemini
from convo.importers.registry import registry

DIR = FIXTURES / "gemini"
ALL = ("request.json", "response.json", "stream.json", "sdk-dumps.jsonl")


@pytest.mark.parametrize("name", ALL)
def test_golden(name):
    recs, _, _ = run(gemini.read, DIR / name)
    assert_golden(f"formats/gemini/{name.split('.')[0]}.jsonl", recs)


def test_request_mapping_and_reject():
    recs, rejects, warnings = run(gemini.read, DIR / "request.json")
    assert [r.where for r in rejects] == ["request.json#msg-6"]
    assert warnings == [
        "request.json: Gemini contents carry no times: messages get the epoch sentinel"
    ]
    system, user, call, result, answer, picture = recs
    assert system["role"] == "system" and system["textChunks"] == [
        "You are a cat. Your name is Neko."
    ]
    assert user["metadata"] == {"speaker": "user", "listeners": ["model"]}
    assert call["role"] == "assistant" and call["metadata"]["speaker"] == "model"
    assert call["textChunks"] == [
        '[tool_use set_light_values] {"brightness":25,"color_temp":"warm"}'
    ]
    assert result["role"] == "tool" and result["extra"]["original_role"] == "user"
    assert answer["textChunks"] == ["Meow. The lights are low and warm now."]
    assert picture["textChunks"][1:] == [
        "[image image/jpeg, 20 bytes]",
        "[file https://generativelanguage.googleapis.com/v1beta/files/abc-123]",
    ]


def test_thoughts_private_unless_asked():
    recs, _, _ = run(gemini.read, DIR / "response.json")
    (answer,) = recs
    assert not any("run code" in c for c in answer["textChunks"])
    assert answer["extra"]["thinking"] == [
        "The user wants the sum of the first 50 primes; run code."
    ]
    assert answer["id"] == "gemini:Ufr4aKv8Aqjcz7IP2oC4mAc"
    assert answer["timestamp"] == "2025-10-22T09:14:25Z"
    recs, _, _ = run(gemini.read, DIR / "response.json", THINKING)
    assert (
        recs[0]["textChunks"][0]
        == "[thinking] The user wants the sum of the first 50 primes; run code."
    )


def test_stream_chunks_are_one_reply():
    recs, rejects, _ = run(gemini.read, DIR / "stream.json")
    assert not rejects
    assert [r["textChunks"] for r in recs] == [["Once upon a time, a lamp learned to glow."]]
    assert recs[0]["extra"]["streamed_chunks"] == 3 and recs[0]["extra"]["finish_reason"] == "STOP"


def test_snake_case_sdk_dumps_and_bare_content_lists():
    recs, rejects, _ = run(gemini.read, DIR / "sdk-dumps.jsonl")
    assert not rejects
    assert [r["textChunks"][0] for r in recs] == [
        "Be brief.", "Weather in Tokyo?", '[tool_use get_weather] {"city":"Tokyo"}',
        '[tool_result get_weather] {"result":"sunny, 21C"}', "Sunny and 21 C in Tokyo.",
        "hello", "hi!",
    ]  # fmt: skip
    assert recs[-1]["thread"] == "sdk-dumps.jsonl#line-2"


def test_detect_among_builtins():
    reg = fresh_registry(gemini)
    for name in ALL:
        assert detect_name(reg, DIR / name) == "gemini"


def test_global_registry_detects():
    assert registry.detect(Source(DIR / "request.json")).name == "gemini"


def test_gemini_cli_checkpoint_with_history():
    """A Gemini CLI ``/chat save`` checkpoint as the CLI writes it since it keeps the
    sign-in method (packages/core/src/core/logger.ts ``Checkpoint``: ``history``,
    ``authType``): the contents are read as a bare list's are."""
    path = DIR / "checkpoint-garden.json"
    assert registry.detect(Source(path)).name == "gemini"
    recs, rejects, _ = run(gemini.read, path)
    assert not rejects
    assert [r["metadata"]["speaker"] for r in recs] == ["user", "model", "user", "model"]
    assert recs[3]["textChunks"] == ["In March."]


@pytest.mark.parametrize("bad", [None, 5, True, [], {}, {"text": None}, {"text": 5}])
def test_a_damaged_streamed_part_is_no_error(tmp_path, bad):
    """A streamed response's part that is not an object, or whose text is not a string:
    joining it to the text before was a TypeError (an internal error)."""
    import json

    doc = json.loads((DIR / "stream.json").read_text(encoding="utf-8"))
    doc[0]["candidates"][0]["content"]["parts"].append(bad)
    doc[1]["candidates"][0]["content"]["parts"].insert(0, bad)
    path = tmp_path / "stream.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    recs, rejects, _ = run(gemini.read, path)
    assert recs or rejects  # read, or the candidate rejected: no exception


def test_a_checkpoint_of_contents_alone_is_one_conversation():
    """Gemini CLI's ``/chat save`` before September 2025 (and ``/chat share file.json``):
    ``JSON.stringify(history)``, a bare array of ``Content``. Each element was read as a
    conversation of its own (thread ``FILE#item-N``), and a tool's ``{"output": text}``
    read as JSON: now one thread, the output's text (an ``error`` flagged)."""
    path = FIXTURES / "gemini" / "checkpoint-kettle.json"
    assert registry.detect(Source(path)).name == "gemini"
    recs, rejects, _ = run(gemini.read, path)
    assert not rejects
    assert {r["thread"] for r in recs} == {"checkpoint-kettle.json"}
    assert [r["source_id"] for r in recs][:2] == [
        "checkpoint-kettle.json#item-1",
        "checkpoint-kettle.json#item-2",
    ]
    assert recs[4]["textChunks"] == ["[tool_result read_file] CUTOFF = 90"]
    assert recs[4]["metadata"] == {"speaker": "tool", "listeners": ["model"]}
    assert recs[6]["textChunks"] == [
        "[tool_result run_shell_command error] Tool execution denied by user."
    ]
