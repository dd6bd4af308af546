"""OpenAI ``chat.completion`` responses and Assistants thread messages
(``convo.importers.agents.openai_api``).

Fixtures follow openai/openai-python ``src/openai/types/chat/chat_completion.py`` and
``chat_completion_message.py`` (choices, message with refusal / annotations /
tool_calls), the Batch API output lines (platform.openai.com/docs/guides/batch:
``custom_id``, ``response.body``, ``error``), DeepSeek's ``reasoning_content``
(api-docs.deepseek.com/guides/reasoning_model) and ``src/openai/types/beta/threads/
message.py`` (thread.message with text ``value``/``annotations``, ``image_file``,
newest-first list).
"""

from __future__ import annotations

from formats_helpers import FIXTURES, THINKING, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.agents import openai_api
from convo.importers.registry import registry

DIR = FIXTURES / "openai_api"


def test_completion_golden():
    recs, rejects, warnings = run(openai_api.read_completion, DIR / "completion.json")
    assert not rejects and not warnings
    assert_golden("formats/openai_api/completion.jsonl", recs)
    first, second = recs
    assert first["id"] == "openai:chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG"
    assert second["id"] == first["id"] + ":1" and second["extra"]["choice"] == 1
    assert second["textChunks"] == ['[tool_use describe_image] {"detail":"high"}']
    assert first["timestamp"] == "2025-03-10T01:31:23Z"
    assert first["metadata"] == {"speaker": "assistant", "listeners": ["user"]}


def test_batch_output_golden_and_failed_request():
    recs, rejects, _ = run(openai_api.read_completion, DIR / "batch_output.jsonl")
    assert_golden("formats/openai_api/batch_output.jsonl", recs)
    assert [(r.where, r.reason) for r in rejects] == [
        (
            "batch_output.jsonl#line-2",
            'batch request failed ({"code":"invalid_request","message":"model not found"})',
        )
    ]
    assert [r["thread"] for r in recs] == ["request-1", "request-3"]
    assert recs[1]["textChunks"] == ["[refusal] I cannot help with that."]


def test_reasoning_content_is_private():
    recs, _, _ = run(openai_api.read_completion, DIR / "batch_output.jsonl")
    assert recs[0]["textChunks"] == ["9.11 is smaller than 9.9."]
    assert recs[0]["extra"]["thinking"] == [
        "Compare the decimals: 0.11 < 0.90, so 9.11 is smaller."
    ]
    recs, _, _ = run(openai_api.read_completion, DIR / "batch_output.jsonl", THINKING)
    assert recs[0]["textChunks"][0].startswith("[thinking] Compare the decimals")


def test_assistants_golden_sorted_oldest_first():
    recs, rejects, _ = run(openai_api.read_assistants, DIR / "thread_messages.json")
    assert_golden("formats/openai_api/thread_messages.jsonl", recs)
    assert [r["id"] for r in recs] == ["openai:msg_abc123", "openai:msg_abc456"]
    assert [r.where for r in rejects] == ["thread_messages.json#item-3"]
    assert recs[1]["textChunks"] == ["Here is the chart you asked for.", "[image] file-chart1"]
    assert (
        recs[1]["thread"] == "thread_abc123" and recs[1]["extra"]["assistant_id"] == "asst_abc123"
    )


def test_sniffers_do_not_overlap():
    for name in ("completion.json", "batch_output.jsonl"):
        assert openai_api.sniff_completion(Source(DIR / name)) >= 90
        assert openai_api.sniff_assistants(Source(DIR / name)) == 0
    assert openai_api.sniff_assistants(Source(DIR / "thread_messages.json")) >= 90
    assert openai_api.sniff_completion(Source(DIR / "thread_messages.json")) == 0


def test_detect_among_builtins():
    reg = fresh_registry(openai_api)
    assert detect_name(reg, DIR / "completion.json") == "openai-completion"
    assert detect_name(reg, DIR / "batch_output.jsonl") == "openai-completion"
    assert detect_name(reg, DIR / "thread_messages.json") == "openai-assistants"


def test_global_registry_detects():
    assert registry.detect(Source(DIR / "completion.json")).name == "openai-completion"
    assert registry.detect(Source(DIR / "thread_messages.json")).name == "openai-assistants"
